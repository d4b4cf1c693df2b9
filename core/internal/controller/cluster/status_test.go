package cluster

import (
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/conditions"
)

// TestWorkersStatus_CountsMachinePoolInstancesFromTheirStatus: a MachinePool's instances are no
// Machines, so status.workers adds each pool's status counts to the worker Machines' (as upstream
// does); a Machine owned by a MachinePool is not counted twice.
func TestWorkersStatus_CountsMachinePoolInstancesFromTheirStatus(t *testing.T) {
	ready := clusterv1.Machine{}
	conditions.Set(&ready, conditions.True(clusterv1.MachineReadyCondition, "Ready", ""))
	conditions.Set(&ready, conditions.True(clusterv1.MachineAvailableCondition, "Available", ""))
	poolMachine := clusterv1.Machine{ObjectMeta: metav1.ObjectMeta{OwnerReferences: []metav1.OwnerReference{{Kind: "MachinePool", Name: "mp-0"}}}}
	d := descendants{
		machineDeployments: []clusterv1.MachineDeployment{{Spec: clusterv1.MachineDeploymentSpec{Replicas: ptr.To[int32](1)}}},
		machinePools: []clusterv1.MachinePool{{
			Spec: clusterv1.MachinePoolSpec{Replicas: ptr.To[int32](3)},
			Status: clusterv1.MachinePoolStatus{Replicas: ptr.To[int32](3), ReadyReplicas: ptr.To[int32](2),
				AvailableReplicas: ptr.To[int32](1), UpToDateReplicas: ptr.To[int32](3)},
		}},
		workerMachines: []clusterv1.Machine{ready, poolMachine},
	}
	require.Equal(t, &clusterv1.WorkersStatus{DesiredReplicas: ptr.To[int32](4), Replicas: ptr.To[int32](4), ReadyReplicas: ptr.To[int32](3),
		AvailableReplicas: ptr.To[int32](2), UpToDateReplicas: ptr.To[int32](4)}, workersStatus(d))
}

// TestHoldCounterOnlyStatus_HoldsCountersNotProgress: right after a status write, a Cluster
// status change that only moves counters is held back (the status as read is put back and the
// reconcile comes back when it may be written); a change of anything else is written at once,
// counters included.
func TestHoldCounterOnlyStatus_HoldsCountersNotProgress(t *testing.T) {
	r := &Reconciler{}
	c := &clusterv1.Cluster{ObjectMeta: metav1.ObjectMeta{UID: "cluster-uid"}}
	read := clusterv1.ClusterStatus{Workers: &clusterv1.WorkersStatus{Replicas: ptr.To[int32](3), ReadyReplicas: ptr.To[int32](1)}}

	c.Status = *read.DeepCopy()
	c.Status.Workers.ReadyReplicas = ptr.To[int32](2)
	res := r.holdCounterOnlyStatus(c, &read, ctrl.Result{})
	require.Zero(t, res.RequeueAfter, "nothing written yet: the first write is never held")
	require.Equal(t, int32(2), *c.Status.Workers.ReadyReplicas)

	read = *c.Status.DeepCopy()
	c.Status.Workers.ReadyReplicas = ptr.To[int32](3)
	res = r.holdCounterOnlyStatus(c, &read, ctrl.Result{})
	require.Positive(t, res.RequeueAfter, "a counter-only change within the interval comes back later")
	require.Equal(t, int32(2), *c.Status.Workers.ReadyReplicas, "the status as read is put back")

	c.Status.Workers.ReadyReplicas = ptr.To[int32](3)
	c.Status.Initialization.ControlPlaneInitialized = ptr.To(true)
	res = r.holdCounterOnlyStatus(c, &read, ctrl.Result{})
	require.Zero(t, res.RequeueAfter, "progress is written at once")
	require.Equal(t, int32(3), *c.Status.Workers.ReadyReplicas)
	require.True(t, *c.Status.Initialization.ControlPlaneInitialized)

	read = *c.Status.DeepCopy()
	conditions.Set(c, conditions.True(clusterv1.ClusterWorkersAvailableCondition, "Available", ""))
	c.Status.Workers.AvailableReplicas = ptr.To[int32](3)
	res = r.holdCounterOnlyStatus(c, &read, ctrl.Result{})
	require.Zero(t, res.RequeueAfter, "a condition that moves is written at once")
	require.Equal(t, int32(3), *c.Status.Workers.AvailableReplicas)
}

// TestAvailableCondition_AvailabilityGates: a gate's condition must be True (False for negative
// polarity) for Available, and a missing one holds it; without gates the Cluster API conditions
// decide alone.
func TestAvailableCondition_AvailabilityGates(t *testing.T) {
	c := &clusterv1.Cluster{}
	for _, ct := range []string{clusterv1.ClusterInfrastructureReadyCondition, clusterv1.ClusterControlPlaneAvailableCondition,
		clusterv1.ClusterWorkersAvailableCondition, clusterv1.ClusterRemoteConnectionProbeCondition} {
		conditions.Set(c, conditions.True(ct, "Ok", ""))
	}
	conditions.Set(c, conditions.False("example.com/Backup", "Failed", "the last backup failed"))
	conditions.Set(c, conditions.True("example.com/Degraded", "Degraded", ""))
	gate := func(t string, p clusterv1.ConditionPolarity) clusterv1.ClusterAvailabilityGate {
		return clusterv1.ClusterAvailabilityGate{ConditionType: t, Polarity: p}
	}

	require.Equal(t, metav1.ConditionTrue, availableCondition(c, nil).Status)
	got := availableCondition(c, []clusterv1.ClusterAvailabilityGate{
		gate("example.com/Backup", ""), gate("example.com/Degraded", clusterv1.NegativePolarityCondition), gate("example.com/Audited", ""),
	})
	require.Equal(t, metav1.ConditionFalse, got.Status)
	require.Equal(t, "example.com/Backup is False, the availability gate wants True: the last backup failed; "+
		"example.com/Degraded is True, the availability gate wants False; example.com/Audited not reported yet (spec.availabilityGates)", got.Message)

	conditions.Set(c, conditions.True("example.com/Backup", "Done", ""))
	conditions.Set(c, conditions.False("example.com/Degraded", "Healthy", ""))
	require.Equal(t, metav1.ConditionTrue, availableCondition(c, []clusterv1.ClusterAvailabilityGate{
		gate("example.com/Backup", clusterv1.PositivePolarityCondition), gate("example.com/Degraded", clusterv1.NegativePolarityCondition),
	}).Status)
}
