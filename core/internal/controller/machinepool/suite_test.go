package machinepool

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/envtest"
	"capstan.dev/contracts/remote"
	"capstan.dev/contracts/testing/crds"
	"capstan.dev/core/internal/coretest"
)

var env *envtest.Environment

// genericInfrastructureMachinePoolGVK is the test InfraMachinePool in testdata/.
var genericInfrastructureMachinePoolGVK = schema.GroupVersionKind{
	Group: "infrastructure.cluster.x-k8s.io", Version: "v1beta2", Kind: "GenericInfrastructureMachinePool"}

// TestMain installs, besides what every core suite installs, the generic
// InfraMachinePool CRD in testdata/ (contracts' generic CRDs have no pool kind).
func TestMain(m *testing.M) {
	pools, err := envtest.DecodeCRDs(os.DirFS("testdata"), ".")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(envtest.Run(m, envtest.Options{CRDs: append(crds.All(), pools...)}, &env))
}

const (
	timeout       = 30 * time.Second
	clusterName   = "c1"
	holdFinalizer = "test.capstan.dev/hold"
)

// fixture is one test's namespace with a Cluster whose workload cluster is envtest
// itself, and a manager running the MachinePool controller.
type fixture struct {
	t       *testing.T
	ctx     context.Context
	ns      string
	cluster *clusterv1.Cluster
}

// newFixture starts the controller and creates the Cluster; clusterMutators adjust it
// before it is created.
func newFixture(t *testing.T, clusterMutators ...func(*clusterv1.Cluster)) *fixture {
	t.Helper()
	startController(t)
	return newFixtureWithoutController(t, clusterMutators...)
}

// newFixtureWithoutController creates the Cluster for a test that runs its own manager.
func newFixtureWithoutController(t *testing.T, clusterMutators ...func(*clusterv1.Cluster)) *fixture {
	t.Helper()
	f := &fixture{t: t, ctx: context.Background()}
	f.ns = env.CreateNamespace(t, "mp")
	f.cluster = &clusterv1.Cluster{
		ObjectMeta: metav1.ObjectMeta{Name: clusterName, Namespace: f.ns},
		Spec: clusterv1.ClusterSpec{ClusterNetwork: clusterv1.ClusterNetwork{ServiceDomain: "cluster.local"},
			InfrastructureRef: crds.Ref(crds.GenericInfrastructureClusterGVK, clusterName)},
	}
	for _, mut := range clusterMutators {
		mut(f.cluster)
	}
	require.NoError(t, env.Client.Create(f.ctx, f.cluster))
	envtest.UpdateStatus(t, env.Client, f.cluster, func() {
		f.cluster.Status.Initialization.InfrastructureProvisioned = ptr.To(true)
		f.cluster.Status.Initialization.ControlPlaneInitialized = ptr.To(true)
	})
	coretest.CreateKubeconfigSecret(t, env, f.cluster)
	return f
}

// startController runs the MachinePool controller (and the ClusterCache it needs) in a
// fresh manager; with calls, the controller's API calls are counted.
func startController(t *testing.T, calls ...*envtest.CallCounter) {
	t.Helper()
	mgr := coretest.NewManager(t, env)
	cc, err := remote.SetupWithManager(mgr, remote.Options{
		SecretReader: mgr.GetAPIReader(),
		HealthProbe:  remote.HealthProbeOptions{Interval: time.Second, Timeout: time.Second, FailureThreshold: 3},
		Controller:   controller.Options{SkipNameValidation: ptr.To(true)},
	})
	require.NoError(t, err)
	var c client.Client = mgr.GetClient()
	for _, calls := range calls {
		c = calls.Wrap(c)
	}
	r := &Reconciler{Client: c, Workload: cc}
	require.NoError(t, r.SetupWithManager(context.Background(), mgr, controller.Options{SkipNameValidation: ptr.To(true)}))
	coretest.StartManager(t, mgr)
}

// pool is a MachinePool with its bootstrap config and InfraMachinePool.
type pool struct {
	mp        *clusterv1.MachinePool
	bootstrap *unstructured.Unstructured
	infra     *unstructured.Unstructured
}

// newPool creates a generic bootstrap config, a generic InfraMachinePool and the
// MachinePool. When the test ends the pool is deleted and waited for while the
// controller still runs, so no later test's manager finds it.
func (f *fixture) newPool(name string, replicas int32) *pool {
	f.t.Helper()
	p := &pool{
		bootstrap: crds.New(crds.GenericBootstrapConfigGVK, f.ns, name),
		infra:     crds.New(genericInfrastructureMachinePoolGVK, f.ns, name),
	}
	require.NoError(f.t, env.Client.Create(f.ctx, p.bootstrap))
	require.NoError(f.t, env.Client.Create(f.ctx, p.infra))
	p.mp = &clusterv1.MachinePool{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: f.ns},
		Spec: clusterv1.MachinePoolSpec{
			ClusterName: clusterName,
			Replicas:    ptr.To(replicas),
			Template: clusterv1.MachineTemplateSpec{Spec: clusterv1.MachineSpec{
				ClusterName: clusterName,
				Version:     "v1.37.2",
				Bootstrap: clusterv1.Bootstrap{ConfigRef: clusterv1.ContractVersionedObjectReference{
					APIGroup: crds.GenericBootstrapConfigGVK.Group, Kind: crds.GenericBootstrapConfigGVK.Kind, Name: name}},
				InfrastructureRef: clusterv1.ContractVersionedObjectReference{
					APIGroup: genericInfrastructureMachinePoolGVK.Group, Kind: genericInfrastructureMachinePoolGVK.Kind, Name: name},
			}},
		},
	}
	require.NoError(f.t, env.Client.Create(f.ctx, p.mp))
	f.t.Cleanup(func() {
		if err := env.Client.Delete(context.Background(), p.mp); client.IgnoreNotFound(err) != nil {
			f.t.Errorf("deleting MachinePool %s: %v", name, err)
			return
		}
		if err := envtest.Poll(timeout, func() (bool, error) {
			err := env.Client.Get(context.Background(), client.ObjectKeyFromObject(p.mp), &clusterv1.MachinePool{})
			return apierrors.IsNotFound(err), client.IgnoreNotFound(err)
		}); err != nil {
			f.t.Errorf("MachinePool %s was not deleted: %v", name, err)
		}
	})
	return p
}

// providerID keeps the instances of different tests apart: they share one API server.
func (f *fixture) providerID(instance string) string { return "generic:////" + f.ns + "-" + instance }

func (f *fixture) nodeName(instance string) string { return f.ns + "-" + instance }

// setInstances writes the InfraMachinePool's spec.providerIDList and status, as its
// provider would.
func (f *fixture) setInstances(p *pool, instances ...string) {
	f.t.Helper()
	ids := make([]any, 0, len(instances))
	for _, i := range instances {
		ids = append(ids, f.providerID(i))
	}
	envtest.WaitFor(f.t, timeout, "spec.providerIDList of "+p.infra.GetName(), func() (bool, error) {
		cur := p.infra.DeepCopy()
		if err := env.Client.Get(f.ctx, client.ObjectKeyFromObject(p.infra), cur); err != nil {
			return false, err
		}
		if err := unstructured.SetNestedSlice(cur.Object, ids, "spec", "providerIDList"); err != nil {
			return false, err
		}
		return true, env.Client.Update(f.ctx, cur)
	})
	coretest.SetStatus(f.t, env, p.infra, map[string]any{
		"initialization.provisioned": true, "replicas": int64(len(instances)),
	})
}

// createNode registers the Node of an instance with the given readiness.
func (f *fixture) createNode(instance string, ready corev1.ConditionStatus) *corev1.Node {
	f.t.Helper()
	n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: f.nodeName(instance)},
		Spec: corev1.NodeSpec{ProviderID: f.providerID(instance)}}
	require.NoError(f.t, env.Client.Create(f.ctx, n))
	f.t.Cleanup(func() { _ = client.IgnoreNotFound(env.Client.Delete(context.Background(), n)) })
	f.setNodeReady(instance, ready)
	require.NoError(f.t, env.Client.Get(f.ctx, client.ObjectKeyFromObject(n), n))
	return n
}

func (f *fixture) setNodeReady(instance string, ready corev1.ConditionStatus) {
	f.t.Helper()
	envtest.WaitFor(f.t, timeout, "Node "+f.nodeName(instance)+" Ready="+string(ready), func() (bool, error) {
		n := &corev1.Node{}
		if err := env.Client.Get(f.ctx, client.ObjectKey{Name: f.nodeName(instance)}, n); err != nil {
			return false, err
		}
		now := metav1.Now()
		n.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: ready, Reason: "KubeletReady" + string(ready),
			LastHeartbeatTime: now, LastTransitionTime: now}}
		n.Status.NodeInfo = corev1.NodeSystemInfo{KubeletVersion: "v1.37.2"}
		return true, env.Client.Status().Update(f.ctx, n)
	})
}

func (f *fixture) nodeExists(instance string) bool {
	f.t.Helper()
	err := env.Client.Get(f.ctx, client.ObjectKey{Name: f.nodeName(instance)}, &corev1.Node{})
	require.NoError(f.t, client.IgnoreNotFound(err))
	return err == nil
}

func (f *fixture) getPool(p *pool) (*clusterv1.MachinePool, error) {
	got := &clusterv1.MachinePool{}
	return got, env.Client.Get(f.ctx, client.ObjectKeyFromObject(p.mp), got)
}

// waitPool waits until check accepts the MachinePool and returns it.
func (f *fixture) waitPool(p *pool, what string, check func(*clusterv1.MachinePool) error) *clusterv1.MachinePool {
	f.t.Helper()
	var got *clusterv1.MachinePool
	envtest.WaitFor(f.t, timeout, "MachinePool "+p.mp.Name+": "+what, func() (bool, error) {
		var err error
		if got, err = f.getPool(p); err != nil {
			return false, err
		}
		if err := check(got); err != nil {
			return false, err
		}
		return true, nil
	})
	return got
}

// inPhase checks the pool's phase.
func inPhase(phase clusterv1.MachinePoolPhase) func(*clusterv1.MachinePool) error {
	return func(mp *clusterv1.MachinePool) error {
		if mp.Status.Phase != string(phase) {
			return fmt.Errorf("phase is %q", mp.Status.Phase)
		}
		return nil
	}
}

// replicaCounts checks the pool's counts and the names of its nodeRefs, in order.
func replicaCounts(replicas, ready, available, upToDate int32, nodes ...string) func(*clusterv1.MachinePool) error {
	return func(mp *clusterv1.MachinePool) error {
		var names []string
		for _, ref := range mp.Status.NodeRefs {
			names = append(names, ref.Name)
		}
		s := mp.Status
		got := fmt.Sprintf("replicas=%d ready=%d available=%d upToDate=%d nodeRefs=%v", ptr.Deref(s.Replicas, -1),
			ptr.Deref(s.ReadyReplicas, -1), ptr.Deref(s.AvailableReplicas, -1), ptr.Deref(s.UpToDateReplicas, -1), names)
		want := fmt.Sprintf("replicas=%d ready=%d available=%d upToDate=%d nodeRefs=%v", replicas, ready, available, upToDate, nodes)
		if got != want {
			return fmt.Errorf("status is %s", got)
		}
		return nil
	}
}
