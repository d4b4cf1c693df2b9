package machinedeployment

import (
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/envtest"
)

// TestMachineDeployment_RecordsEventsForMachineSetsCreatedScaledAndDeleted follows a
// MachineDeployment through creation, a scale up and a rollout, and reads upstream's Events on
// it: each MachineSet created once, each change of a MachineSet's replicas with its from and to,
// the old MachineSet's deletion once the rollout is complete — and nothing more once it settles.
func TestMachineDeployment_RecordsEventsForMachineSetsCreatedScaledAndDeleted(t *testing.T) {
	f := newFixture(t)
	md := f.newMachineDeployment("workers", 2)
	require.NoError(t, env.Client.Create(f.ctx, md))
	oldMS, _ := f.waitForAvailable(md, 2)

	created := env.WaitForEvents(t, timeout, md, ReasonSuccessfulCreate, 1)
	require.Equal(t, ControllerName, created[0].ReportingController)
	require.Equal(t, "Normal", created[0].Type)
	require.Equal(t, oldMS, created[0].Related.Name, "the Event names the MachineSet")
	require.Contains(t, created[0].Note, "Created MachineSet "+oldMS)

	f.update(md, func() { md.Spec.Replicas = ptr.To[int32](3) })
	f.waitForAvailable(md, 3)
	scaled := env.WaitForEvents(t, timeout, md, ReasonSuccessfulScale, 1)
	require.Equal(t, "Scaled MachineSet "+oldMS+": 2 -> 3", scaled[0].Note)

	f.update(md, func() { md.Spec.Rollout.After = metav1.Now() })
	newMS, _ := f.waitForAvailable(md, 3)
	require.NotEqual(t, oldMS, newMS)
	deleted := env.WaitForEvents(t, timeout, md, ReasonSuccessfulDelete, 1)
	require.Equal(t, oldMS, deleted[0].Related.Name)
	require.Contains(t, deleted[0].Note, "the rollout to revision 2 is complete")
	f.waitForCondition(md, clusterv1.MachineDeploymentRollingOutCondition, metav1.ConditionFalse, "")

	got, err := env.Events(f.ctx, md, ReasonSuccessfulCreate)
	require.NoError(t, err)
	names := map[string]bool{}
	for _, ev := range got {
		names[ev.Related.Name] = true
	}
	require.Equal(t, map[string]bool{oldMS: true, newMS: true}, names, "one creation Event per MachineSet")
	for _, reason := range []string{ReasonFailedCreate, ReasonFailedScale, ReasonFailedDelete} {
		got, err := env.Events(f.ctx, md, reason)
		require.NoError(t, err)
		require.Empty(t, got, "no %s Event in a rollout that worked", reason)
	}
	envtest.WaitFor(t, timeout, "the old MachineSet to be gone", func() (bool, error) {
		_, ok := f.machineSets(md)[oldMS]
		return !ok, nil
	})
}
