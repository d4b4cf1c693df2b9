/*
Copyright 2026 The Capstan Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package kubeadmcontrolplane

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	bootstrapv1 "capstan.dev/bootstrap-kubeadm/api/bootstrap/v1beta2"
	controlplanev1 "capstan.dev/bootstrap-kubeadm/api/controlplane/v1beta2"
	"capstan.dev/bootstrap-kubeadm/internal/apitest"
	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/conditions"
	"capstan.dev/contracts/envtest"
	"capstan.dev/contracts/events"
	"capstan.dev/contracts/remote"
	"capstan.dev/contracts/testing/crds"
)

var env *envtest.Environment

// TestMain starts one API server for the package with this module's CRDs and contracts' generic
// providers (the InfraMachineTemplate the control plane clones).
func TestMain(m *testing.M) {
	scheme, err := apitest.Scheme()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(envtest.Run(m, envtest.Options{
		CRDDirectoryPaths: []string{filepath.Join("..", "..", "..", "config", "crd", "bases")},
		CRDs:              crds.All(),
		Scheme:            scheme,
	}, &env))
}

const (
	timeout = 30 * time.Second
	// holdFinalizer keeps a deleted Machine around, as the core's Machine controller does while it
	// drains the Node; tests remove it to let the Machine go.
	holdFinalizer = "test.capstan.dev/hold"
	testVersion   = "v1.37.2"
)

// controllerOptions changes the Reconciler a test runs.
type controllerOptions struct {
	restConfig *rest.Config
	wrap       func(client.Client) client.Client
	now        func() time.Time
	// apiServerExpiry replaces the read of a node's API server certificate expiry.
	apiServerExpiry APIServerCertificateExpiryFunc
	// wrapRecorder wraps the reconciler's Event recorder (to count Events); nil: as it is.
	wrapRecorder func(events.Recorder) events.Recorder
}

// startController runs the KubeadmControlPlane controller and the ClusterCache it needs in a fresh
// manager, configured like main.go, and returns a function that stops it.
func startController(t *testing.T, opts ...func(*controllerOptions)) (stop func()) {
	t.Helper()
	o := controllerOptions{restConfig: env.Config, wrap: func(c client.Client) client.Client { return c }}
	for _, opt := range opts {
		opt(&o)
	}
	mgr := env.NewManager(t, "kubeadmcontrolplane-test", o.restConfig)
	copts := controller.Options{SkipNameValidation: ptr.To(true)}
	cc, err := remote.SetupWithManager(mgr, remote.Options{
		SecretReader: mgr.GetAPIReader(),
		HealthProbe:  remote.HealthProbeOptions{Interval: time.Second, Timeout: time.Second, FailureThreshold: 3},
		Controller:   copts,
	})
	require.NoError(t, err)
	r := &Reconciler{Client: o.wrap(mgr.GetClient()), APIReader: mgr.GetAPIReader(), Workload: cc,
		WaitRequeue: 200 * time.Millisecond, Now: o.now, EtcdClientFor: fakeEtcdClientFor, APIServerCertificateExpiry: o.apiServerExpiry,
		Recorder: events.New(mgr, ControllerName)}
	if o.wrapRecorder != nil {
		r.Recorder = o.wrapRecorder(r.Recorder)
	}
	require.NoError(t, r.SetupWithManager(context.Background(), mgr, copts))
	return envtest.StartManager(t, mgr)
}

// fixture is one test's namespace: a Cluster with provisioned infrastructure and control plane
// failure domains, the InfraMachineTemplate, and the KubeadmControlPlane its controlPlaneRef names.
type fixture struct {
	t       *testing.T
	ns      string
	cluster *clusterv1.Cluster
	kcp     *controlplanev1.KubeadmControlPlane
}

type fixtureOptions struct {
	// noKubeconfig leaves <cluster>-kubeconfig for the controller to write; by default the test
	// stores one for the envtest API server, which then plays the workload cluster.
	noKubeconfig bool
	// noOwner leaves the KubeadmControlPlane without the owner reference the core's Cluster
	// controller sets.
	noOwner        bool
	replicas       int32
	failureDomains []clusterv1.FailureDomain
	pausedCluster  bool
	// kcp changes the KubeadmControlPlane before it is created.
	kcp func(*controlplanev1.KubeadmControlPlane)
}

func newFixture(t *testing.T, opts ...func(*fixtureOptions)) *fixture {
	t.Helper()
	o := fixtureOptions{replicas: 1}
	for _, opt := range opts {
		opt(&o)
	}
	ctx := context.Background()
	f := &fixture{t: t, ns: env.CreateNamespace(t, "kcp")}
	f.cluster = &clusterv1.Cluster{
		ObjectMeta: metav1.ObjectMeta{Name: "c1", Namespace: f.ns},
		Spec: clusterv1.ClusterSpec{
			ControlPlaneEndpoint: clusterv1.APIEndpoint{Host: "10.0.0.1", Port: 6443},
			ControlPlaneRef: clusterv1.ContractVersionedObjectReference{
				APIGroup: controlplanev1.GroupVersion.Group, Kind: "KubeadmControlPlane", Name: "cp"},
		},
	}
	if o.pausedCluster {
		f.cluster.Spec.Paused = ptr.To(true)
	}
	require.NoError(t, env.Client.Create(ctx, f.cluster))
	envtest.UpdateStatus(t, env.Client, f.cluster, func() {
		f.cluster.Status.Initialization.InfrastructureProvisioned = ptr.To(true)
		f.cluster.Status.FailureDomains = o.failureDomains
	})
	if !o.noKubeconfig {
		env.CreateKubeconfigSecret(t, f.cluster)
	}

	it := crds.New(crds.GenericInfrastructureMachineTemplateGVK, f.ns, "cp-infra")
	require.NoError(t, unstructured.SetNestedField(it.Object, map[string]any{
		"spec": map[string]any{"image": "node:" + testVersion},
	}, "spec", "template"))
	require.NoError(t, env.Client.Create(ctx, it))

	f.kcp = &controlplanev1.KubeadmControlPlane{
		ObjectMeta: metav1.ObjectMeta{Name: "cp", Namespace: f.ns, Labels: map[string]string{clusterv1.ClusterNameLabel: f.cluster.Name}},
		Spec: controlplanev1.KubeadmControlPlaneSpec{
			Replicas: ptr.To(o.replicas),
			Version:  testVersion,
			MachineTemplate: controlplanev1.KubeadmControlPlaneMachineTemplate{
				ObjectMeta: clusterv1.ObjectMeta{Labels: map[string]string{"tier": "control-plane"}},
				Spec: controlplanev1.KubeadmControlPlaneMachineTemplateSpec{
					InfrastructureRef: clusterv1.ContractVersionedObjectReference{
						APIGroup: crds.InfrastructureGroupVersion.Group, Kind: crds.GenericInfrastructureMachineTemplateGVK.Kind, Name: "cp-infra"},
				},
			},
			KubeadmConfigSpec: bootstrapv1.KubeadmConfigSpec{
				ClusterConfiguration: bootstrapv1.ClusterConfiguration{CertificatesDir: "/etc/kubernetes/pki"},
				InitConfiguration: bootstrapv1.InitConfiguration{NodeRegistration: bootstrapv1.NodeRegistrationOptions{
					KubeletExtraArgs: []bootstrapv1.Arg{{Name: "v", Value: ptr.To("2")}}}},
				JoinConfiguration: bootstrapv1.JoinConfiguration{NodeRegistration: bootstrapv1.NodeRegistrationOptions{
					KubeletExtraArgs: []bootstrapv1.Arg{{Name: "v", Value: ptr.To("3")}}}},
				PreKubeadmCommands: []string{"echo pre"},
			},
		},
	}
	if o.kcp != nil {
		o.kcp(f.kcp)
	}
	if !o.noOwner {
		f.kcp.OwnerReferences = []metav1.OwnerReference{{
			APIVersion: clusterv1.GroupVersion.String(), Kind: "Cluster", Name: f.cluster.Name, UID: f.cluster.UID}}
	}
	require.NoError(t, env.Client.Create(ctx, f.kcp))
	t.Cleanup(f.cleanup)
	return f
}

// cleanup deletes the KubeadmControlPlane and lets its Machines go while the controller still
// runs, so that nothing of this test is reconciled by the next test's manager; without a running
// controller it removes the finalizer itself.
func (f *fixture) cleanup() {
	ctx := context.Background()
	if err := env.Client.Delete(ctx, f.kcp); client.IgnoreNotFound(err) != nil {
		f.t.Errorf("deleting KubeadmControlPlane: %v", err)
	}
	err := envtest.Poll(timeout, func() (bool, error) {
		for _, m := range f.machines() {
			f.release(m.Name)
			_ = env.Client.Delete(ctx, m)
		}
		cur := &controlplanev1.KubeadmControlPlane{}
		if err := env.Client.Get(ctx, client.ObjectKeyFromObject(f.kcp), cur); err != nil {
			return apierrors.IsNotFound(err), client.IgnoreNotFound(err)
		}
		if len(f.machines()) == 0 && controllerutil.RemoveFinalizer(cur, controlplanev1.KubeadmControlPlaneFinalizer) {
			_ = env.Client.Update(ctx, cur)
		}
		return false, nil
	})
	if err != nil {
		f.t.Errorf("KubeadmControlPlane of namespace %s not gone: %v", f.ns, err)
	}
}

// etcd is the test double of the fixture Cluster's etcd.
func (f *fixture) etcd() *fakeEtcd { return etcdOf(client.ObjectKeyFromObject(f.cluster)) }

// machines lists the namespace's control plane Machines, sorted by name.
func (f *fixture) machines() []*clusterv1.Machine {
	list := &clusterv1.MachineList{}
	if err := env.Client.List(context.Background(), list, client.InNamespace(f.ns)); err != nil {
		f.t.Fatalf("listing Machines: %v", err)
	}
	out := make([]*clusterv1.Machine, 0, len(list.Items))
	for i := range list.Items {
		out = append(out, &list.Items[i])
	}
	return out
}

// waitMachines waits until exactly n Machines exist and returns them.
func (f *fixture) waitMachines(n int) []*clusterv1.Machine {
	f.t.Helper()
	var got []*clusterv1.Machine
	envtest.WaitFor(f.t, timeout, fmt.Sprintf("%d Machines", n), func() (bool, error) {
		got = f.machines()
		if len(got) != n {
			return false, fmt.Errorf("%d Machines: %s", len(got), names(got))
		}
		return true, nil
	})
	return got
}

// joinNode plays kubeadm join and the core's Machine controller once the Machine's Node has
// joined: an etcd member named after the Node (unless one exists), then nodeRef and a true Ready
// condition.
func (f *fixture) joinNode(m *clusterv1.Machine) {
	f.t.Helper()
	if !slices.Contains(f.etcd().names(), m.Name) {
		f.etcd().add(m.Name)
	}
	cur := &clusterv1.Machine{ObjectMeta: metav1.ObjectMeta{Namespace: m.Namespace, Name: m.Name}}
	envtest.UpdateStatus(f.t, env.Client, cur, func() {
		cur.Status.NodeRef = clusterv1.MachineNodeReference{Name: m.Name}
		conditions.Set(cur, conditions.True(clusterv1.MachineReadyCondition, clusterv1.ReadyReason, ""))
	})
}

// hold adds the test finalizer to a Machine, so that a deletion leaves it deleting.
func (f *fixture) hold(m *clusterv1.Machine) {
	f.t.Helper()
	f.updateMachine(m.Name, func(cur *clusterv1.Machine) { controllerutil.AddFinalizer(cur, holdFinalizer) })
}

// release removes the test finalizer from a Machine, letting a deleted Machine go.
func (f *fixture) release(name string) {
	_ = retry.RetryOnConflict(retry.DefaultRetry, func() error {
		m := &clusterv1.Machine{}
		if err := env.Client.Get(context.Background(), client.ObjectKey{Namespace: f.ns, Name: name}, m); err != nil {
			return client.IgnoreNotFound(err)
		}
		if !controllerutil.RemoveFinalizer(m, holdFinalizer) {
			return nil
		}
		return env.Client.Update(context.Background(), m)
	})
}

func (f *fixture) updateMachine(name string, mutate func(*clusterv1.Machine)) {
	f.t.Helper()
	require.NoError(f.t, retry.RetryOnConflict(retry.DefaultRetry, func() error {
		m := &clusterv1.Machine{}
		if err := env.Client.Get(context.Background(), client.ObjectKey{Namespace: f.ns, Name: name}, m); err != nil {
			return err
		}
		mutate(m)
		return env.Client.Update(context.Background(), m)
	}))
}

// updateKCP applies mutate to a fresh read of the KubeadmControlPlane's spec and metadata.
func (f *fixture) updateKCP(mutate func(*controlplanev1.KubeadmControlPlane)) {
	f.t.Helper()
	require.NoError(f.t, retry.RetryOnConflict(retry.DefaultRetry, func() error {
		cur := &controlplanev1.KubeadmControlPlane{}
		if err := env.Client.Get(context.Background(), client.ObjectKeyFromObject(f.kcp), cur); err != nil {
			return err
		}
		mutate(cur)
		return env.Client.Update(context.Background(), cur)
	}))
}

// waitKCP waits until check accepts the KubeadmControlPlane and returns it.
func (f *fixture) waitKCP(what string, check func(*controlplanev1.KubeadmControlPlane) error) *controlplanev1.KubeadmControlPlane {
	f.t.Helper()
	var cur *controlplanev1.KubeadmControlPlane
	envtest.WaitFor(f.t, timeout, "KubeadmControlPlane: "+what, func() (bool, error) {
		cur = &controlplanev1.KubeadmControlPlane{}
		if err := env.Client.Get(context.Background(), client.ObjectKeyFromObject(f.kcp), cur); err != nil {
			return false, err
		}
		if err := check(cur); err != nil {
			return false, err
		}
		return true, nil
	})
	return cur
}

// waitCondition waits until the condition has status and its message contains want.
func (f *fixture) waitCondition(conditionType string, status metav1.ConditionStatus, want string) *controlplanev1.KubeadmControlPlane {
	f.t.Helper()
	return f.waitKCP(fmt.Sprintf("%s %s %q", conditionType, status, want), func(k *controlplanev1.KubeadmControlPlane) error {
		c := conditions.Get(k, conditionType)
		if c == nil || c.Status != status || !strings.Contains(c.Message, want) {
			return fmt.Errorf("%s is %+v", conditionType, c)
		}
		return nil
	})
}

// simulateKubeadmInit creates kube-system/kubeadm-config in the workload cluster (the envtest
// API server, shared by every test of the package: it is deleted when the test ends).
func simulateKubeadmInit(t *testing.T) {
	t.Helper()
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: metav1.NamespaceSystem, Name: "kubeadm-config"},
		Data: map[string]string{"ClusterConfiguration": "kind: ClusterConfiguration\n"}}
	require.NoError(t, env.Client.Create(context.Background(), cm))
	t.Cleanup(func() { _ = env.Client.Delete(context.Background(), cm) })
}

// growTo waits for each new Machine and joins its Node until n Machines exist, all with a Node;
// the first Machine is followed by kubeadm init.
func (f *fixture) growTo(n int) []*clusterv1.Machine {
	f.t.Helper()
	for i := 1; i <= n; i++ {
		ms := f.waitMachines(i)
		for _, m := range ms {
			if m.Status.NodeRef.Name == "" {
				f.joinNode(m)
			}
		}
		if i == 1 && !kubeadmInitDone() {
			simulateKubeadmInit(f.t)
		}
	}
	return f.waitMachines(n)
}

func kubeadmInitDone() bool {
	err := env.Client.Get(context.Background(), kubeadmConfigMap, &corev1.ConfigMap{})
	return err == nil
}

func names(ms []*clusterv1.Machine) string {
	out := make([]string, 0, len(ms))
	for _, m := range ms {
		s := m.Name
		if !m.DeletionTimestamp.IsZero() {
			s += "(deleting)"
		}
		out = append(out, s)
	}
	return strings.Join(out, ", ")
}
