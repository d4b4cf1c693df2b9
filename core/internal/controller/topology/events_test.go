package topology

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/conditions"
	"capstan.dev/contracts/envtest"
)

// TestTopology_RecordsEventsForWhatItCreatesUpdatesAndDeletes follows a Cluster through its
// creation, a template rotation and the removal of a MachineDeployment, and reads upstream's
// topology Events on the Cluster: one TopologyCreate per object created (the object related),
// TopologyUpdate for the MachineDeployment pointed at the new template copy, TopologyDelete for
// the removed MachineDeployment. (A reconcile that changes nothing records none: the
// steady-state tests count Events among the writes.)
func TestTopology_RecordsEventsForWhatItCreatesUpdatesAndDeletes(t *testing.T) {
	ns := env.CreateNamespace(t, "topology-events")
	startController(t, nil, nil)
	quickStart(t, ns)
	c := topologyCluster(ns)
	require.NoError(t, env.Client.Create(t.Context(), c))
	got := waitCondition(t, c, clusterv1.ClusterTopologyReconciledCondition, metav1.ConditionTrue, "")

	related := func(evs []eventsv1.Event) map[string]int {
		out := map[string]int{}
		for _, ev := range evs {
			require.Equal(t, ControllerName, ev.ReportingController)
			require.NotNil(t, ev.Related, "the Event names the object")
			out[ev.Related.Kind+"/"+ev.Related.Name]++
		}
		return out
	}
	mds := machineDeployments(t, got)
	created := related(env.WaitForEvents(t, timeout, got, ReasonTopologyCreate, 4))
	for _, want := range []string{"GenericInfrastructureCluster/" + got.Spec.InfrastructureRef.Name,
		"GenericControlPlane/" + got.Spec.ControlPlaneRef.Name, "MachineDeployment/" + mds["md-0"].Name, "MachineDeployment/" + mds["md-1"].Name} {
		require.Equal(t, 1, created[want], "one creation Event for %s, got %v", want, created)
	}

	oldInfra := mds["md-0"].Spec.Template.Spec.InfrastructureRef.Name
	envtest.Update(t, env.Client, got, func() {
		got.Spec.Topology.Variables = []clusterv1.ClusterVariable{{Name: "image", Value: js(`"node:v2"`)}}
	})
	envtest.WaitFor(t, timeout, "md-0 to reference a new infrastructure template", func() (bool, error) {
		md := machineDeployments(t, got)["md-0"]
		return md != nil && md.Spec.Template.Spec.InfrastructureRef.Name != oldInfra, nil
	})
	md0 := machineDeployments(t, got)["md-0"]
	waitForEventAbout(t, got, ReasonTopologyCreate, "GenericInfrastructureMachineTemplate/"+md0.Spec.Template.Spec.InfrastructureRef.Name)
	waitForEventAbout(t, got, ReasonTopologyUpdate, "MachineDeployment/"+md0.Name)

	md1 := machineDeployments(t, got)["md-1"].Name
	envtest.Update(t, env.Client, got, func() {
		got.Spec.Topology.Workers.MachineDeployments = got.Spec.Topology.Workers.MachineDeployments[:1]
	})
	waitForEventAbout(t, got, ReasonTopologyDelete, "MachineDeployment/"+md1)
	waitCondition(t, c, clusterv1.ClusterTopologyReconciledCondition, metav1.ConditionTrue, "")
}

// waitForEventAbout waits for exactly one Event of reason on c whose related object is kindName
// (Kind/name).
func waitForEventAbout(t *testing.T, c *clusterv1.Cluster, reason, kindName string) {
	t.Helper()
	envtest.WaitFor(t, timeout, reason+" Event about "+kindName, func() (bool, error) {
		evs, err := env.Events(t.Context(), c, reason)
		n := 0
		for _, ev := range evs {
			if ev.Related != nil && ev.Related.Kind+"/"+ev.Related.Name == kindName {
				n++
			}
		}
		if n > 1 {
			return false, fmt.Errorf("%d %s Events about %s", n, reason, kindName)
		}
		return n == 1, err
	})
}

// countingRecorder counts the Events it is asked to record.
type countingRecorder struct{ n int }

func (r *countingRecorder) Eventf(runtime.Object, runtime.Object, string, string, string, string, ...any) {
	r.n++
}

// A hold is recorded once even when later reconciles read the Cluster without the condition the
// first wrote (the cache lagging behind its status patch, or showing another controller's write
// made before it: both seen under load); once a reconcile finds the Cluster unheld, a new hold is
// recorded again, and one the condition already shows (a restarted manager) is not.
func TestRecordHookBlocking_OncePerHoldAlsoWhenTheCacheLags(t *testing.T) {
	rec := &countingRecorder{}
	r := &Reconciler{Recorder: rec}
	cluster := &clusterv1.Cluster{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "c1", ResourceVersion: "10"}}
	reason, msg := clusterv1.ClusterTopologyReconciledDeletingReason, "Following hooks are blocking delete: BeforeClusterDelete: wait"
	reconcile := func(c *clusterv1.Cluster, held bool) {
		s := &scope{cluster: c.DeepCopy()}
		if held {
			r.recordHookBlocking(s, reason, msg)
		}
		r.endHold(s)
	}
	reconcile(cluster, true)
	require.Equal(t, 1, rec.n)
	reconcile(cluster, true) // the same version read again
	other := cluster.DeepCopy()
	other.ResourceVersion = "11" // another controller's write, made before the condition's
	reconcile(other, true)
	require.Equal(t, 1, rec.n, "one Event per hold")

	reconcile(other, false) // the hold ended
	reconcile(other, true)  // and another began
	require.Equal(t, 2, rec.n)

	restarted := &Reconciler{Recorder: rec}
	shown := other.DeepCopy()
	conditions.Set(shown, conditions.False(clusterv1.ClusterTopologyReconciledCondition, reason, msg))
	s := &scope{cluster: shown}
	restarted.recordHookBlocking(s, reason, msg)
	require.Equal(t, 2, rec.n, "a hold the condition shows is not recorded again")
}
