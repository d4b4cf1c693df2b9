package machinehealthcheck

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
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/conditions"
	"capstan.dev/contracts/envtest"
	"capstan.dev/contracts/events"
	"capstan.dev/contracts/remote"
	"capstan.dev/contracts/testing/crds"
	"capstan.dev/core/internal/controller/machine"
	"capstan.dev/core/internal/coretest"
)

var env *envtest.Environment

func TestMain(m *testing.M) { os.Exit(coretest.Run(m, &env)) }

const (
	// timeout outlasts the shortest node startup timeout admission allows (30s).
	timeout       = 45 * time.Second
	clusterName   = "c1"
	poolLabel     = "capstan.test/pool"
	holdFinalizer = "test.capstan.dev/hold"
)

// controllerOptions say what startController runs besides the MachineHealthCheck controller.
type controllerOptions struct {
	// withMachineController also runs the Machine controller, the other writer of Machine
	// status.conditions.
	withMachineController bool
	// calls, when set, counts the MachineHealthCheck controller's API calls.
	calls *envtest.CallCounter
}

// startController runs the MachineHealthCheck controller (and the ClusterCache it needs)
// in a fresh manager for one test.
func startController(t *testing.T, o controllerOptions) {
	t.Helper()
	ctx := context.Background()
	mgr := coretest.NewManager(t, env)
	cc, err := remote.SetupWithManager(mgr, remote.Options{
		SecretReader: mgr.GetAPIReader(),
		HealthProbe:  remote.HealthProbeOptions{Interval: time.Second, Timeout: time.Second, FailureThreshold: 3},
		Controller:   controller.Options{SkipNameValidation: ptr.To(true)},
	})
	require.NoError(t, err)
	var c client.Client = mgr.GetClient()
	if o.calls != nil {
		c = o.calls.Wrap(c)
	}
	r := &Reconciler{Client: c, Workload: cc, Recorder: events.New(mgr, ControllerName)}
	if o.calls != nil {
		r.Recorder = o.calls.WrapRecorder(r.Recorder)
	}
	require.NoError(t, r.SetupWithManager(ctx, mgr, controller.Options{SkipNameValidation: ptr.To(true)}))
	if o.withMachineController {
		mr := &machine.Reconciler{Client: mgr.GetClient(), Workload: cc}
		require.NoError(t, mr.SetupWithManager(ctx, mgr, controller.Options{SkipNameValidation: ptr.To(true)}))
	}
	coretest.StartManager(t, mgr)
}

// fixture is one test's namespace with a Cluster whose workload cluster is envtest itself.
type fixture struct {
	t       *testing.T
	ctx     context.Context
	ns      string
	cluster *clusterv1.Cluster
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	f := &fixture{t: t, ctx: context.Background(), ns: env.CreateNamespace(t, "mhc")}
	f.cluster = &clusterv1.Cluster{
		ObjectMeta: metav1.ObjectMeta{Name: clusterName, Namespace: f.ns},
		Spec: clusterv1.ClusterSpec{ClusterNetwork: clusterv1.ClusterNetwork{ServiceDomain: "cluster.local"},
			InfrastructureRef: crds.Ref(crds.GenericInfrastructureClusterGVK, clusterName)},
	}
	require.NoError(t, env.Client.Create(f.ctx, f.cluster))
	envtest.UpdateStatus(t, env.Client, f.cluster, func() {
		f.cluster.Status.Initialization.InfrastructureProvisioned = ptr.To(true)
		f.cluster.Status.Initialization.ControlPlaneInitialized = ptr.To(true)
	})
	coretest.CreateKubeconfigSecret(t, env, f.cluster)
	return f
}

// nodeName keeps Nodes of different tests apart: they share one API server.
func (f *fixture) nodeName(machine string) string { return f.ns + "-" + machine }

// newMachine creates a worker Machine of the Cluster as its owner would, and, with a
// Node, records that Node in status.nodeRef as the Machine controller would.
func (f *fixture) newMachine(name string, withNode bool, mutate ...func(*clusterv1.Machine)) *clusterv1.Machine {
	f.t.Helper()
	m := &clusterv1.Machine{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: f.ns, Labels: map[string]string{
			clusterv1.ClusterNameLabel: clusterName, poolLabel: "workers",
		}},
		Spec: clusterv1.MachineSpec{
			ClusterName: clusterName,
			Bootstrap:   clusterv1.Bootstrap{DataSecretName: ptr.To(name + "-data")},
			InfrastructureRef: clusterv1.ContractVersionedObjectReference{
				APIGroup: "infrastructure.cluster.x-k8s.io", Kind: "GenericInfrastructureMachine", Name: name},
		},
	}
	for _, mut := range mutate {
		mut(m)
	}
	require.NoError(f.t, env.Client.Create(f.ctx, m))
	if withNode {
		f.createNode(name, corev1.ConditionTrue)
		envtest.UpdateStatus(f.t, env.Client, m, func() { m.Status.NodeRef = clusterv1.MachineNodeReference{Name: f.nodeName(name)} })
	}
	return m
}

// createNode registers the Node of a Machine with a Ready condition of the given status.
func (f *fixture) createNode(machine string, ready corev1.ConditionStatus) *corev1.Node {
	f.t.Helper()
	n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: f.nodeName(machine)},
		Spec: corev1.NodeSpec{ProviderID: "generic:////" + f.nodeName(machine)}}
	require.NoError(f.t, env.Client.Create(f.ctx, n))
	f.t.Cleanup(func() { _ = client.IgnoreNotFound(env.Client.Delete(context.Background(), n)) })
	f.setNodeReady(machine, ready)
	return n
}

// setNodeReady sets the Node's Ready condition, transitioning now.
func (f *fixture) setNodeReady(machine string, ready corev1.ConditionStatus) {
	f.t.Helper()
	envtest.WaitFor(f.t, timeout, "Node "+f.nodeName(machine)+" Ready="+string(ready), func() (bool, error) {
		n := &corev1.Node{}
		if err := env.Client.Get(f.ctx, client.ObjectKey{Name: f.nodeName(machine)}, n); err != nil {
			return false, err
		}
		now := metav1.Now()
		n.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: ready, Reason: "KubeletReady" + string(ready),
			LastHeartbeatTime: now, LastTransitionTime: now}}
		return true, env.Client.Status().Update(f.ctx, n)
	})
}

// newMHC creates a MachineHealthCheck selecting the fixture's workers; it is deleted
// when the test ends so later tests' managers leave it alone.
func (f *fixture) newMHC(name string, mutate ...func(*clusterv1.MachineHealthCheck)) *clusterv1.MachineHealthCheck {
	f.t.Helper()
	mhc := &clusterv1.MachineHealthCheck{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: f.ns},
		Spec: clusterv1.MachineHealthCheckSpec{
			ClusterName: clusterName,
			Selector:    metav1.LabelSelector{MatchLabels: map[string]string{poolLabel: "workers"}},
		},
	}
	for _, mut := range mutate {
		mut(mhc)
	}
	require.NoError(f.t, env.Client.Create(f.ctx, mhc))
	f.t.Cleanup(func() { _ = client.IgnoreNotFound(env.Client.Delete(context.Background(), mhc)) })
	return mhc
}

func (f *fixture) getMachine(name string) (*clusterv1.Machine, error) {
	m := &clusterv1.Machine{}
	return m, env.Client.Get(f.ctx, client.ObjectKey{Namespace: f.ns, Name: name}, m)
}

func (f *fixture) getMHC(name string) (*clusterv1.MachineHealthCheck, error) {
	mhc := &clusterv1.MachineHealthCheck{}
	return mhc, env.Client.Get(f.ctx, client.ObjectKey{Namespace: f.ns, Name: name}, mhc)
}

// waitMachineCondition waits until the Machine's condition matches want (a nil want:
// the condition is absent) and returns the Machine.
func (f *fixture) waitMachineCondition(name, conditionType string, want *metav1.Condition) *clusterv1.Machine {
	f.t.Helper()
	var got *clusterv1.Machine
	what := fmt.Sprintf("Machine %s condition %s to be %s", name, conditionType, describeCondition(want))
	envtest.WaitFor(f.t, timeout, what, func() (bool, error) {
		var err error
		if got, err = f.getMachine(name); err != nil {
			return false, err
		}
		c := conditions.Get(got, conditionType)
		if !conditionMatches(c, want) {
			return false, fmt.Errorf("it is %s", describeCondition(c))
		}
		return true, nil
	})
	return got
}

// waitMHC waits until check accepts the MachineHealthCheck and returns it.
func (f *fixture) waitMHC(name, what string, check func(*clusterv1.MachineHealthCheck) error) *clusterv1.MachineHealthCheck {
	f.t.Helper()
	var got *clusterv1.MachineHealthCheck
	envtest.WaitFor(f.t, timeout, "MachineHealthCheck "+name+": "+what, func() (bool, error) {
		var err error
		if got, err = f.getMHC(name); err != nil {
			return false, err
		}
		if err := check(got); err != nil {
			return false, err
		}
		return true, nil
	})
	return got
}

// counts checks the MachineHealthCheck's status counters and targets.
func counts(expected, healthy, remediationsAllowed int32, targets ...string) func(*clusterv1.MachineHealthCheck) error {
	return func(mhc *clusterv1.MachineHealthCheck) error {
		s := mhc.Status
		if ptr.Deref(s.ExpectedMachines, -1) != expected || ptr.Deref(s.CurrentHealthy, -1) != healthy ||
			ptr.Deref(s.RemediationsAllowed, -1) != remediationsAllowed || fmt.Sprint(s.Targets) != fmt.Sprint(targets) {
			return fmt.Errorf("status is expected=%v healthy=%v remediationsAllowed=%v targets=%v",
				ptr.Deref(s.ExpectedMachines, -1), ptr.Deref(s.CurrentHealthy, -1), ptr.Deref(s.RemediationsAllowed, -1), s.Targets)
		}
		return nil
	}
}

func conditionMatches(c, want *metav1.Condition) bool {
	if want == nil || c == nil {
		return want == nil && c == nil
	}
	return c.Status == want.Status && c.Reason == want.Reason && (want.Message == "" || c.Message == want.Message)
}

func describeCondition(c *metav1.Condition) string {
	if c == nil {
		return "absent"
	}
	return fmt.Sprintf("%s/%s %q", c.Status, c.Reason, c.Message)
}

// healthy, unhealthy and waitingForRemediation are the conditions tests expect.
func healthy() *metav1.Condition {
	return &metav1.Condition{Status: metav1.ConditionTrue, Reason: clusterv1.MachineHealthCheckSucceededReason}
}

func unhealthy(reason, message string) *metav1.Condition {
	return &metav1.Condition{Status: metav1.ConditionFalse, Reason: reason, Message: message}
}

func waitingForRemediation() *metav1.Condition {
	return &metav1.Condition{Status: metav1.ConditionFalse, Reason: clusterv1.MachineOwnerRemediatedWaitingForRemediationReason,
		Message: ownerRemediatedWaitingMessage}
}

// newProviderObjects creates a generic bootstrap config and infrastructure machine for
// a Machine the Machine controller provisions.
func newProviderObjects(t *testing.T, f *fixture, name string) (bootstrap, infra *unstructured.Unstructured) {
	t.Helper()
	bootstrap = crds.New(crds.GenericBootstrapConfigGVK, f.ns, name)
	infra = crds.New(crds.GenericInfrastructureMachineGVK, f.ns, name)
	require.NoError(t, env.Client.Create(f.ctx, bootstrap))
	require.NoError(t, env.Client.Create(f.ctx, infra))
	return bootstrap, infra
}

// provision flips the generic providers to done, as real providers would.
func provision(t *testing.T, bootstrap, infra *unstructured.Unstructured, providerID string) {
	t.Helper()
	coretest.SetStatus(t, env, bootstrap, map[string]any{
		"initialization.dataSecretCreated": true, "dataSecretName": bootstrap.GetName() + "-data",
	})
	envtest.WaitFor(t, timeout, "providerID on "+infra.GetName(), func() (bool, error) {
		cur := infra.DeepCopy()
		if err := env.Client.Get(context.Background(), client.ObjectKeyFromObject(infra), cur); err != nil {
			return false, err
		}
		if err := unstructured.SetNestedField(cur.Object, providerID, "spec", "providerID"); err != nil {
			return false, err
		}
		return true, env.Client.Update(context.Background(), cur)
	})
	coretest.SetStatus(t, env, infra, map[string]any{"initialization.provisioned": true})
}
