package machine

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/conditions"
	"capstan.dev/contracts/envtest"
)

// runningMachine provisions a Machine and registers its Ready Node, and waits
// until the Machine is Running with Ready and Available True.
func (f *fixture) runningMachine(t *testing.T, name string, mutate ...func(*clusterv1.Machine)) (*clusterv1.Machine, *corev1.Node) {
	t.Helper()
	m, bootstrap, infra := f.newMachine(t, name, mutate...)
	providerID := uniqueProviderID(f, name)
	provision(t, bootstrap, infra, providerID)
	node := createNode(t, f.ns+"-"+name, providerID)
	waitPhase(t, m, clusterv1.MachinePhaseRunning)
	envtest.WaitFor(t, 30*time.Second, "Machine "+name+" Ready and Available", func() (bool, error) {
		got, err := getMachine(t, m)
		return err == nil && conditions.IsTrue(got, clusterv1.MachineReadyCondition) && conditions.IsTrue(got, clusterv1.MachineAvailableCondition), err
	})
	got, err := getMachine(t, m)
	require.NoError(t, err)
	return got, node
}

// nodeDerivedConditions are the conditions a lost workload connection must not flip.
var nodeDerivedConditions = []string{
	clusterv1.MachineNodeReadyCondition, clusterv1.MachineNodeHealthyCondition,
	clusterv1.MachineReadyCondition, clusterv1.MachineAvailableCondition,
}

// conditionsDiff compares the given conditions of two Machines, transition times included.
func conditionsDiff(want, got *clusterv1.Machine, types []string) string {
	pick := func(m *clusterv1.Machine) map[string]any {
		out := map[string]any{}
		for _, ct := range types {
			out[ct] = conditions.Get(m, ct)
		}
		return out
	}
	return cmp.Diff(pick(want), pick(got))
}
