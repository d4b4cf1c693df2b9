package machine

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/envtest"
	"capstan.dev/contracts/events"
	"capstan.dev/contracts/remote"
	"capstan.dev/contracts/testing/crds"
	"capstan.dev/core/internal/coretest"
)

var env *envtest.Environment

func TestMain(m *testing.M) { os.Exit(coretest.Run(m, &env)) }

// fixture is one Cluster whose workload cluster is the envtest API server itself.
type fixture struct {
	ns      string
	cluster *clusterv1.Cluster
}

// startController runs the Machine controller (and the ClusterCache it needs)
// in a fresh manager for one test.
func startController(t *testing.T) { startControllerWith(t, controllerOptions{}) }

// controllerOptions vary the controller a test runs; zero values keep the defaults.
type controllerOptions struct {
	// wrapClient wraps the reconciler's management-cluster client (to inject faults).
	wrapClient func(client.Client) client.Client
	// gracePeriod is Reconciler.RemoteConditionsGracePeriod.
	gracePeriod time.Duration
	// connectRetry is the ClusterCache's ConnectRetryInterval.
	connectRetry time.Duration
	// reconciler, when set, receives the reconciler (to look into its watches).
	reconciler **Reconciler
	// sync is Reconciler.AdditionalSync.
	sync SyncPatterns
	// config, when set, is who the manager talks to the API server as (default: admin).
	config *rest.Config
	// wrapRecorder wraps the reconciler's Event recorder (to count Events).
	wrapRecorder func(events.Recorder) events.Recorder
}

// startControllerWith is startController with options; it returns a function
// that stops the manager (a simulated crash of the process).
func startControllerWith(t *testing.T, o controllerOptions) (stop func()) {
	t.Helper()
	cfg := env.Config
	if o.config != nil {
		cfg = o.config
	}
	mgr := coretest.NewManagerAs(t, env, cfg)
	cc, err := remote.SetupWithManager(mgr, remote.Options{
		SecretReader:         mgr.GetAPIReader(),
		HealthProbe:          remote.HealthProbeOptions{Interval: time.Second, Timeout: time.Second, FailureThreshold: 3},
		ConnectRetryInterval: o.connectRetry,
		Controller:           controller.Options{SkipNameValidation: ptr.To(true)},
	})
	require.NoError(t, err)
	c := mgr.GetClient()
	if o.wrapClient != nil {
		c = o.wrapClient(c)
	}
	r := &Reconciler{Client: c, Workload: cc, DrainRequeue: time.Second, RemoteConditionsGracePeriod: o.gracePeriod, AdditionalSync: o.sync,
		Recorder: events.New(mgr, ControllerName)}
	if o.wrapRecorder != nil {
		r.Recorder = o.wrapRecorder(r.Recorder)
	}
	require.NoError(t, r.SetupWithManager(context.Background(), mgr, controller.Options{SkipNameValidation: ptr.To(true)}))
	if o.reconciler != nil {
		*o.reconciler = r
	}
	return envtest.StartManager(t, mgr)
}

// newFixture creates a Cluster with an initialized control plane, one active control-plane
// Machine (so that worker Nodes may be drained and deleted, see isDeleteNodeAllowed) and a
// kubeconfig Secret pointing at envtest.
func newFixture(t *testing.T, clusterMutators ...func(*clusterv1.Cluster)) *fixture {
	t.Helper()
	f := newFixtureWithoutControlPlane(t, clusterMutators...)
	f.newMachine(t, "control-plane", func(m *clusterv1.Machine) {
		m.Labels = map[string]string{clusterv1.MachineControlPlaneLabel: ""}
	})
	return f
}

// newFixtureWithoutControlPlane is newFixture without any control-plane Machine.
func newFixtureWithoutControlPlane(t *testing.T, clusterMutators ...func(*clusterv1.Cluster)) *fixture {
	t.Helper()
	ctx := context.Background()
	f := &fixture{ns: env.CreateNamespace(t, "machine")}
	f.cluster = &clusterv1.Cluster{
		ObjectMeta: metav1.ObjectMeta{Name: "c1", Namespace: f.ns},
		Spec: clusterv1.ClusterSpec{ClusterNetwork: clusterv1.ClusterNetwork{ServiceDomain: "cluster.local"},
			InfrastructureRef: crds.Ref(crds.GenericInfrastructureClusterGVK, "c1")},
	}
	for _, mut := range clusterMutators {
		mut(f.cluster)
	}
	require.NoError(t, env.Client.Create(ctx, f.cluster))
	envtest.UpdateStatus(t, env.Client, f.cluster, func() {
		f.cluster.Status.Initialization.InfrastructureProvisioned = ptr.To(true)
		f.cluster.Status.Initialization.ControlPlaneInitialized = ptr.To(true)
	})
	coretest.CreateKubeconfigSecret(t, env, f.cluster)
	return f
}

// newMachine creates a generic bootstrap config, infra machine and the Machine.
func (f *fixture) newMachine(t *testing.T, name string, mutate ...func(*clusterv1.Machine)) (*clusterv1.Machine, *unstructured.Unstructured, *unstructured.Unstructured) {
	t.Helper()
	ctx := context.Background()
	bootstrap := crds.New(crds.GenericBootstrapConfigGVK, f.ns, name)
	infra := crds.New(crds.GenericInfrastructureMachineGVK, f.ns, name)
	require.NoError(t, env.Client.Create(ctx, bootstrap))
	require.NoError(t, env.Client.Create(ctx, infra))
	m := &clusterv1.Machine{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: f.ns},
		Spec: clusterv1.MachineSpec{
			ClusterName: f.cluster.Name,
			Version:     "v1.37.2",
			Bootstrap: clusterv1.Bootstrap{ConfigRef: clusterv1.ContractVersionedObjectReference{
				APIGroup: crds.GenericBootstrapConfigGVK.Group, Kind: crds.GenericBootstrapConfigGVK.Kind, Name: name}},
			InfrastructureRef: clusterv1.ContractVersionedObjectReference{
				APIGroup: crds.GenericInfrastructureMachineGVK.Group, Kind: crds.GenericInfrastructureMachineGVK.Kind, Name: name},
		},
	}
	for _, mut := range mutate {
		mut(m)
	}
	require.NoError(t, env.Client.Create(ctx, m))
	return m, bootstrap, infra
}

// provision flips the generic providers to done, as real providers would.
func provision(t *testing.T, bootstrap, infra *unstructured.Unstructured, providerID string) {
	t.Helper()
	coretest.SetStatus(t, env, bootstrap, map[string]any{
		"initialization.dataSecretCreated": true, "dataSecretName": bootstrap.GetName() + "-data",
	})
	envtest.WaitFor(t, 30*time.Second, "providerID on "+infra.GetName(), func() (bool, error) {
		cur := infra.DeepCopy()
		if err := env.Client.Get(context.Background(), client.ObjectKeyFromObject(infra), cur); err != nil {
			return false, err
		}
		if err := unstructured.SetNestedField(cur.Object, providerID, "spec", "providerID"); err != nil {
			return false, err
		}
		return true, env.Client.Update(context.Background(), cur)
	})
	coretest.SetStatus(t, env, infra, map[string]any{
		"initialization.provisioned": true,
		"addresses":                  []any{map[string]any{"type": "InternalIP", "address": "10.0.0.7"}},
	})
}

// createNode registers a Ready Node with the providerID in the "workload cluster".
func createNode(t *testing.T, name, providerID string, mutate ...func(*corev1.Node)) *corev1.Node {
	t.Helper()
	ctx := context.Background()
	n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: corev1.NodeSpec{ProviderID: providerID}}
	for _, mut := range mutate {
		mut(n)
	}
	require.NoError(t, env.Client.Create(ctx, n))
	envtest.UpdateStatus(t, env.Client, n, func() {
		n.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "KubeletReady",
			LastHeartbeatTime: metav1.Now(), LastTransitionTime: metav1.Now()}}
		n.Status.NodeInfo = corev1.NodeSystemInfo{KubeletVersion: "v1.37.2", OSImage: "Debian GNU/Linux 12 (bookworm)"}
	})
	t.Cleanup(func() { _ = client.IgnoreNotFound(env.Client.Delete(context.Background(), n)) })
	return n
}

func getMachine(t *testing.T, m *clusterv1.Machine) (*clusterv1.Machine, error) {
	got := &clusterv1.Machine{}
	err := env.Client.Get(context.Background(), client.ObjectKeyFromObject(m), got)
	return got, err
}

// waitPhase waits for the Machine to reach a phase.
func waitPhase(t *testing.T, m *clusterv1.Machine, phase clusterv1.MachinePhase) *clusterv1.Machine {
	t.Helper()
	var got *clusterv1.Machine
	envtest.WaitFor(t, 30*time.Second, fmt.Sprintf("Machine %s to reach phase %s", m.Name, phase), func() (bool, error) {
		var err error
		got, err = getMachine(t, m)
		if err != nil {
			return false, err
		}
		if got.Status.Phase != string(phase) {
			return false, fmt.Errorf("phase is %q", got.Status.Phase)
		}
		return true, nil
	})
	return got
}

// uniqueProviderID keeps Nodes of different tests apart (they share one apiserver).
func uniqueProviderID(f *fixture, name string) string { return "generic:////" + f.ns + "-" + name }
