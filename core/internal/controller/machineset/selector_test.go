package machineset

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/conditions"
	"capstan.dev/contracts/envtest"
)

// TestMachineSet_NeverCreatesMachinesItsSelectorDoesNotSelect feeds the controller a MachineSet
// that admission cannot judge: its selector and template agree on the set-name label, but the
// controller writes the MachineSet's own name into that label on every Machine, so the selector
// never selects what it creates. Such a MachineSet used to create Machines, release them as not
// matching and create more, without bound. Every Machine event is observed through a watch: none
// may appear until the selector is fixed, and then never more than spec.replicas.
func TestMachineSet_NeverCreatesMachinesItsSelectorDoesNotSelect(t *testing.T) {
	f := newFixture(t)
	stopObserving := env.Observe(t, &clusterv1.MachineList{}, f.ns, func(all map[string]client.Object) error {
		return fmt.Errorf("the MachineSet created %d Machine(s), which its selector does not select", len(all))
	})
	ms := f.newMachineSet("workers", "web", 2)
	ms.Spec.Selector.MatchLabels[clusterv1.MachineSetNameLabel] = "someone-else"
	ms.Spec.Template.Labels[clusterv1.MachineSetNameLabel] = "someone-else"
	require.NoError(t, env.Client.Create(f.ctx, ms))
	envtest.WaitFor(t, timeout, "ScalingUp to report the invalid selector", func() (bool, error) {
		f.get(ms)
		c := conditions.Get(ms, clusterv1.MachineSetScalingUpCondition)
		return c != nil && c.Status == metav1.ConditionFalse && c.Reason == clusterv1.MachineSetInvalidSelectorReason &&
			ms.Status.ObservedGeneration == ms.Generation, nil
	})
	stopObserving()
	c := conditions.Get(ms, clusterv1.MachineSetScalingUpCondition)
	require.Contains(t, c.Message, `spec.selector requirement "cluster.x-k8s.io/set-name=someone-else" does not select the MachineSet's own Machines`)
	require.Contains(t, c.Message, "make spec.template.metadata.labels satisfy every requirement of spec.selector")

	// Once the selector selects its own Machines, spec.replicas of them appear, and never more.
	stopObserving = env.Observe(t, &clusterv1.MachineList{}, f.ns, func(all map[string]client.Object) error {
		if len(all) > 2 {
			return fmt.Errorf("%d Machines, more than spec.replicas (2)", len(all))
		}
		return nil
	})
	f.update(ms, func() { delete(ms.Spec.Selector.MatchLabels, clusterv1.MachineSetNameLabel) })
	f.waitForOwned(ms, 2)
	stopObserving()
}
