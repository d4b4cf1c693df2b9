package machine

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/conditions"
	"capstan.dev/contracts/envtest"
	"capstan.dev/core/internal/coretest"
)

// TestMachine_PausedRunningMachineKeepsItsConditionsAndPhase pauses the Cluster of
// a Running, Ready and Available Machine (as capstanctl move does) and checks
// every version of the Machine the API server reports until it is resumed: only
// the Paused condition changes. After the resume the Machine is Ready and
// Available again without ever having left it.
func TestMachine_PausedRunningMachineKeepsItsConditionsAndPhase(t *testing.T) {
	startController(t)
	f := newFixture(t)
	m, _ := f.runningMachine(t, "paused")
	before, err := getMachine(t, m)
	require.NoError(t, err)
	w := coretest.WatchMachine(t, env, m)

	envtest.Update(t, env.Client, f.cluster, func() { f.cluster.Spec.Paused = ptr.To(true) })
	envtest.WaitFor(t, 30*time.Second, "Paused=True on the Machine", func() (bool, error) {
		got, err := getMachine(t, m)
		if err != nil {
			return false, err
		}
		if !conditions.IsTrue(got, clusterv1.PausedCondition) {
			return false, fmt.Errorf("conditions: %+v", got.Status.Conditions)
		}
		return true, nil
	})
	// Another event for the paused Machine: a label change reconciles it again.
	envtest.Update(t, env.Client, m, func() { m.Labels["example.test/touched"] = "yes" })
	envtest.Update(t, env.Client, f.cluster, func() { f.cluster.Spec.Paused = ptr.To(false) })
	envtest.WaitFor(t, 30*time.Second, "Paused=False on the Machine", func() (bool, error) {
		got, err := getMachine(t, m)
		if err != nil {
			return false, err
		}
		if c := conditions.Get(got, clusterv1.PausedCondition); c == nil || c.Status != metav1.ConditionFalse {
			return false, fmt.Errorf("Paused is %v", c)
		}
		return true, nil
	})

	withoutPaused := func(m *clusterv1.Machine) clusterv1.MachineStatus {
		st := *m.Status.DeepCopy()
		st.Conditions = nil
		for _, c := range m.Status.Conditions {
			if c.Type != clusterv1.PausedCondition {
				st.Conditions = append(st.Conditions, c)
			}
		}
		return st
	}
	for _, v := range w.Versions() {
		require.Empty(t, cmp.Diff(withoutPaused(before), withoutPaused(v.Machine)),
			"Machine version %s changed more than Paused (Paused: %v)", v.Machine.ResourceVersion, conditions.Get(v.Machine, clusterv1.PausedCondition))
	}
	got, err := getMachine(t, m)
	require.NoError(t, err)
	require.Equal(t, string(clusterv1.MachinePhaseRunning), got.Status.Phase)
	require.Empty(t, conditionsDiff(before, got, nodeDerivedConditions), "resumed: Ready and Available as before, same transition times")
}
