package cluster

import (
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

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
