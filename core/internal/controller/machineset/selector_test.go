package machineset

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/conditions"
)

// TestMachineSet_NeverCreatesMachinesItsSelectorDoesNotSelect feeds the controller a MachineSet
// that admission cannot judge: its selector and template agree on the set-name label, but the
// controller writes the MachineSet's own name into that label on every Machine, so the selector
// never selects what it creates. Such a MachineSet used to create Machines, release them as not
// matching and create more, without bound. Every Machine event is observed through a watch: none
// may appear until the selector is fixed, and then never more than spec.replicas.
func TestMachineSet_NeverCreatesMachinesItsSelectorDoesNotSelect(t *testing.T) {
	f := newFixture(t)
	list := &clusterv1.MachineList{}
	require.NoError(t, env.Client.List(f.ctx, list, client.InNamespace(f.ns)))
	w, err := env.Client.Watch(f.ctx, &clusterv1.MachineList{}, client.InNamespace(f.ns),
		&client.ListOptions{Raw: &metav1.ListOptions{ResourceVersion: list.ResourceVersion}})
	require.NoError(t, err)
	defer w.Stop()

	ms := f.newMachineSet("workers", "web", 2)
	ms.Spec.Selector.MatchLabels[clusterv1.MachineSetNameLabel] = "someone-else"
	ms.Spec.Template.Labels[clusterv1.MachineSetNameLabel] = "someone-else"
	require.NoError(t, env.Client.Create(f.ctx, ms))

	reported := func() bool {
		f.get(ms)
		c := conditions.Get(ms, clusterv1.MachineSetScalingUpCondition)
		return c != nil && c.Status == metav1.ConditionFalse && c.Reason == clusterv1.MachineSetInvalidSelectorReason &&
			ms.Status.ObservedGeneration == ms.Generation
	}
	deadline := time.After(timeout)
	for !reported() {
		select {
		case ev := <-w.ResultChan():
			t.Fatalf("%s event for %s: the MachineSet created a Machine its selector does not select", ev.Type, eventObjectName(ev))
		case <-deadline:
			t.Fatalf("ScalingUp did not report the invalid selector within %s: %+v", timeout, conditions.Get(ms, clusterv1.MachineSetScalingUpCondition))
		case <-time.After(100 * time.Millisecond): // only paces the wait for the condition; events are not missed
		}
	}
	c := conditions.Get(ms, clusterv1.MachineSetScalingUpCondition)
	require.Contains(t, c.Message, `spec.selector requirement "cluster.x-k8s.io/set-name=someone-else" does not select the MachineSet's own Machines`)
	require.Contains(t, c.Message, "make spec.template.metadata.labels satisfy every requirement of spec.selector")

	// Once the selector selects its own Machines, exactly spec.replicas of them appear.
	f.update(ms, func() { delete(ms.Spec.Selector.MatchLabels, clusterv1.MachineSetNameLabel) })
	live := map[string]bool{}
	for len(live) < 2 {
		select {
		case ev := <-w.ResultChan():
			m, ok := ev.Object.(*clusterv1.Machine)
			require.True(t, ok, "unexpected watch event %s %T", ev.Type, ev.Object)
			switch {
			case ev.Type == watch.Deleted || !m.DeletionTimestamp.IsZero():
				delete(live, m.Name)
			default:
				live[m.Name] = true
			}
			require.LessOrEqual(t, len(live), 2, "Machines after %s of %s: %v", ev.Type, m.Name, live)
		case <-deadline:
			t.Fatalf("the fixed MachineSet did not create its 2 Machines within %s: %v", timeout, live)
		}
	}
	require.Len(t, f.ownedBy(ms), 2)
}

// eventObjectName names the object of a watch event.
func eventObjectName(ev watch.Event) string {
	if o, ok := ev.Object.(client.Object); ok {
		return o.GetName()
	}
	return "?"
}
