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

package kubeadmconfig

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/yaml"

	bootstrapv1 "capstan.dev/bootstrap-kubeadm/api/bootstrap/v1beta2"
	"capstan.dev/bootstrap-kubeadm/internal/apitest"
	"capstan.dev/bootstrap-kubeadm/internal/cloudinit"
	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/conditions"
	"capstan.dev/contracts/envtest"
	"capstan.dev/contracts/events"
	"capstan.dev/contracts/remote"
	"capstan.dev/contracts/testing/crds"
)

var env *envtest.Environment

func TestMain(m *testing.M) { os.Exit(apitest.Run(m, &env)) }

const timeout = 30 * time.Second

// controllerOptions changes the Reconciler a test runs.
type controllerOptions struct {
	restConfig *rest.Config
	wrap       func(client.Client) client.Client
	tokenTTL   time.Duration // DefaultTokenTTL when zero
	// wrapRecorder wraps the reconciler's Event recorder (to count Events); nil: as it is.
	wrapRecorder func(events.Recorder) events.Recorder
}

// withTokenTTL runs the controller with --bootstrap-token-ttl=ttl.
func withTokenTTL(ttl time.Duration) func(*controllerOptions) {
	return func(o *controllerOptions) { o.tokenTTL = ttl }
}

// startController runs the KubeadmConfig controller and the ClusterCache it needs in a fresh
// manager, configured like main.go, and returns a function that stops it.
func startController(t *testing.T, opts ...func(*controllerOptions)) (stop func()) {
	t.Helper()
	o := controllerOptions{restConfig: env.Config, wrap: func(c client.Client) client.Client { return c }}
	for _, opt := range opts {
		opt(&o)
	}
	mgr := env.NewManager(t, "kubeadmconfig-test", o.restConfig)
	copts := controller.Options{SkipNameValidation: ptr.To(true)}
	cc, err := remote.SetupWithManager(mgr, remote.Options{
		SecretReader: mgr.GetAPIReader(),
		HealthProbe:  remote.HealthProbeOptions{Interval: time.Second, Timeout: time.Second, FailureThreshold: 3},
		Controller:   copts,
	})
	require.NoError(t, err)
	r := &Reconciler{Client: o.wrap(mgr.GetClient()), APIReader: mgr.GetAPIReader(), Workload: cc, WaitRequeue: 500 * time.Millisecond, TokenTTL: o.tokenTTL,
		Recorder: events.New(mgr, ControllerName)}
	if o.wrapRecorder != nil {
		r.Recorder = o.wrapRecorder(r.Recorder)
	}
	require.NoError(t, r.SetupWithManager(context.Background(), mgr, copts))
	return envtest.StartManager(t, mgr)
}

// fixture is one Cluster, with provisioned infrastructure, whose workload cluster is the
// envtest API server itself.
type fixture struct {
	ns      string
	cluster *clusterv1.Cluster
}

func newFixture(t *testing.T, mutate ...func(*clusterv1.Cluster)) *fixture {
	t.Helper()
	f := &fixture{ns: env.CreateNamespace(t, "kubeadmconfig")}
	f.cluster = &clusterv1.Cluster{
		ObjectMeta: metav1.ObjectMeta{Name: "c1", Namespace: f.ns},
		Spec: clusterv1.ClusterSpec{
			InfrastructureRef:    crds.Ref(crds.GenericInfrastructureClusterGVK, "c1"),
			ControlPlaneEndpoint: clusterv1.APIEndpoint{Host: "10.0.0.1", Port: 6443},
			ClusterNetwork: clusterv1.ClusterNetwork{
				ServiceDomain: "cluster.local",
				Services:      clusterv1.NetworkRanges{CIDRBlocks: []string{"10.96.0.0/12"}},
				Pods:          clusterv1.NetworkRanges{CIDRBlocks: []string{"10.244.0.0/16"}},
			},
		},
	}
	for _, m := range mutate {
		m(f.cluster)
	}
	require.NoError(t, env.Client.Create(context.Background(), f.cluster))
	f.setClusterStatus(t, func(s *clusterv1.ClusterStatus) { s.Initialization.InfrastructureProvisioned = ptr.To(true) })
	env.CreateKubeconfigSecret(t, f.cluster)
	return f
}

func (f *fixture) setClusterStatus(t *testing.T, mutate func(*clusterv1.ClusterStatus)) {
	t.Helper()
	envtest.UpdateStatus(t, env.Client, f.cluster, func() { mutate(&f.cluster.Status) })
}

func (f *fixture) initializeControlPlane(t *testing.T) {
	t.Helper()
	f.setClusterStatus(t, func(s *clusterv1.ClusterStatus) { s.Initialization.ControlPlaneInitialized = ptr.To(true) })
}

// newMachine creates a KubeadmConfig and a Machine referencing it, then adopts the config the
// way the core's Machine controller does (controller owner reference, cluster-name label).
func (f *fixture) newMachine(t *testing.T, name string, controlPlane bool, mutate ...func(*bootstrapv1.KubeadmConfig)) (*clusterv1.Machine, *bootstrapv1.KubeadmConfig) {
	t.Helper()
	ctx := context.Background()
	cfg := f.newConfig(t, name, mutate...)
	m := &clusterv1.Machine{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: f.ns, Labels: map[string]string{clusterv1.ClusterNameLabel: f.cluster.Name}},
		Spec:       f.machineSpec(name, "DockerMachine"),
	}
	if controlPlane {
		m.Labels[clusterv1.MachineControlPlaneLabel] = ""
	}
	require.NoError(t, env.Client.Create(ctx, m))
	adopt(t, cfg, "Machine", m, m.Spec.ClusterName)
	return m, cfg
}

// newConfig creates a KubeadmConfig labelled with its Cluster from the start, as the core's
// clones are: a paused Cluster is then known before an owner adopts the config.
func (f *fixture) newConfig(t *testing.T, name string, mutate ...func(*bootstrapv1.KubeadmConfig)) *bootstrapv1.KubeadmConfig {
	t.Helper()
	cfg := &bootstrapv1.KubeadmConfig{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: f.ns, Labels: map[string]string{clusterv1.ClusterNameLabel: f.cluster.Name}},
		Spec:       bootstrapv1.KubeadmConfigSpec{PreKubeadmCommands: []string{"echo pre " + name}},
	}
	for _, m := range mutate {
		m(cfg)
	}
	require.NoError(t, env.Client.Create(context.Background(), cfg))
	return cfg
}

// machineSpec is the spec of a Machine, or of a MachinePool's instances, booting from
// KubeadmConfig name.
func (f *fixture) machineSpec(name, infraKind string) clusterv1.MachineSpec {
	return clusterv1.MachineSpec{
		ClusterName: f.cluster.Name,
		Version:     "v1.37.2",
		Bootstrap: clusterv1.Bootstrap{ConfigRef: clusterv1.ContractVersionedObjectReference{
			APIGroup: bootstrapv1.GroupVersion.Group, Kind: "KubeadmConfig", Name: name}},
		InfrastructureRef: clusterv1.ContractVersionedObjectReference{
			APIGroup: "infrastructure.cluster.x-k8s.io", Kind: infraKind, Name: name},
	}
}

// newMachinePool creates a KubeadmConfig and a MachinePool of one instance referencing it,
// then adopts the config the way the core's MachinePool controller does.
func (f *fixture) newMachinePool(t *testing.T, name string) (*clusterv1.MachinePool, *bootstrapv1.KubeadmConfig) {
	t.Helper()
	ctx := context.Background()
	cfg := f.newConfig(t, name)
	mp := &clusterv1.MachinePool{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: f.ns, Labels: map[string]string{clusterv1.ClusterNameLabel: f.cluster.Name}},
		Spec: clusterv1.MachinePoolSpec{
			ClusterName: f.cluster.Name,
			Replicas:    ptr.To[int32](1),
			Template:    clusterv1.MachineTemplateSpec{Spec: f.machineSpec(name, "DockerMachinePool")},
		},
	}
	require.NoError(t, env.Client.Create(ctx, mp))
	adopt(t, cfg, "MachinePool", mp, mp.Spec.ClusterName)
	return mp, cfg
}

// adopt plays the core's Machine or MachinePool controller: it makes owner, of kind, the
// config's controller owner and labels the config with its Cluster.
func adopt(t *testing.T, cfg *bootstrapv1.KubeadmConfig, kind string, owner client.Object, clusterName string) {
	t.Helper()
	envtest.WaitFor(t, timeout, "KubeadmConfig "+cfg.Name+" to be adopted", func() (bool, error) {
		cur := &bootstrapv1.KubeadmConfig{}
		if err := env.Client.Get(context.Background(), client.ObjectKeyFromObject(cfg), cur); err != nil {
			return false, err
		}
		cur.OwnerReferences = []metav1.OwnerReference{{
			APIVersion: clusterv1.GroupVersion.String(), Kind: kind, Name: owner.GetName(), UID: owner.GetUID(),
			Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true),
		}}
		if cur.Labels == nil {
			cur.Labels = map[string]string{}
		}
		cur.Labels[clusterv1.ClusterNameLabel] = clusterName
		return true, env.Client.Update(context.Background(), cur)
	})
}

func getConfig(t *testing.T, cfg *bootstrapv1.KubeadmConfig) *bootstrapv1.KubeadmConfig {
	t.Helper()
	cur := &bootstrapv1.KubeadmConfig{}
	require.NoError(t, env.Client.Get(context.Background(), client.ObjectKeyFromObject(cfg), cur))
	return cur
}

// waitConfig waits until check accepts the KubeadmConfig and returns it.
func waitConfig(t *testing.T, cfg *bootstrapv1.KubeadmConfig, what string, check func(*bootstrapv1.KubeadmConfig) error) *bootstrapv1.KubeadmConfig {
	t.Helper()
	var cur *bootstrapv1.KubeadmConfig
	envtest.WaitFor(t, timeout, "KubeadmConfig "+cfg.Name+": "+what, func() (bool, error) {
		cur = &bootstrapv1.KubeadmConfig{}
		if err := env.Client.Get(context.Background(), client.ObjectKeyFromObject(cfg), cur); err != nil {
			return false, err
		}
		if err := check(cur); err != nil {
			return false, err
		}
		return true, nil
	})
	return cur
}

func waitDataSecret(t *testing.T, cfg *bootstrapv1.KubeadmConfig) *bootstrapv1.KubeadmConfig {
	t.Helper()
	return waitConfig(t, cfg, "bootstrap data written", func(c *bootstrapv1.KubeadmConfig) error {
		if c.Status.DataSecretName == "" || !ptr.Deref(c.Status.Initialization.DataSecretCreated, false) {
			return fmt.Errorf("status is %+v", c.Status)
		}
		return nil
	})
}

// waitWaiting waits until DataSecretAvailable is False with a message containing want.
func waitWaiting(t *testing.T, cfg *bootstrapv1.KubeadmConfig, want string) *bootstrapv1.KubeadmConfig {
	t.Helper()
	return waitConfig(t, cfg, "waiting: "+want, func(c *bootstrapv1.KubeadmConfig) error {
		cond := conditions.Get(c, bootstrapv1.KubeadmConfigDataSecretAvailableCondition)
		if cond == nil || cond.Status != metav1.ConditionFalse || !bytes.Contains([]byte(cond.Message), []byte(want)) {
			return fmt.Errorf("DataSecretAvailable is %+v", cond)
		}
		return nil
	})
}

// nodeData is the bootstrap data read back as a node would see it.
type nodeData struct {
	secret *corev1.Secret
	files  map[string]string
	runcmd []string
}

func readData(t *testing.T, cfg *bootstrapv1.KubeadmConfig) nodeData {
	t.Helper()
	s := &corev1.Secret{}
	require.NoError(t, env.Client.Get(context.Background(), client.ObjectKey{Namespace: cfg.Namespace, Name: cfg.Status.DataSecretName}, s))
	value := s.Data["value"]
	require.True(t, bytes.HasPrefix(value, []byte(cloudinit.Header)), "starts with the cloud-config header")
	var doc struct {
		WriteFiles []struct {
			Path     string `json:"path"`
			Encoding string `json:"encoding"`
			Content  string `json:"content"`
		} `json:"write_files"`
		RunCmd []string `json:"runcmd"`
	}
	require.NoError(t, yaml.Unmarshal(value, &doc))
	d := nodeData{secret: s, files: map[string]string{}, runcmd: doc.RunCmd}
	for _, f := range doc.WriteFiles {
		content := f.Content
		if f.Encoding == "base64" {
			b, err := base64.StdEncoding.DecodeString(content)
			require.NoError(t, err)
			content = string(b)
		}
		d.files[f.Path] = content
	}
	return d
}

func (f *fixture) secret(t *testing.T, name string) *corev1.Secret {
	t.Helper()
	s := &corev1.Secret{}
	require.NoError(t, env.Client.Get(context.Background(), client.ObjectKey{Namespace: f.ns, Name: name}, s))
	return s
}

func errorf(format string, args ...any) error { return fmt.Errorf(format, args...) }
