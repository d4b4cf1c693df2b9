package machinedeployment

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/conditions"
)

// TestMachineDeployment_CreatesNothingWhenItsSelectorDoesNotSelectItsMachineSets uses a
// MachineDeployment that admission cannot judge: selector and template agree on the
// deployment-name label, but the controller writes the MachineDeployment's own name into that
// label on everything it creates, so it would never count its own MachineSets. It must say so on
// ScalingUp and create no MachineSet, which a watch observes on every event.
func TestMachineDeployment_CreatesNothingWhenItsSelectorDoesNotSelectItsMachineSets(t *testing.T) {
	f := newFixture(t)
	sets := &clusterv1.MachineSetList{}
	require.NoError(t, env.Client.List(f.ctx, sets, client.InNamespace(f.ns)))
	w, err := env.Client.Watch(f.ctx, &clusterv1.MachineSetList{}, client.InNamespace(f.ns),
		&client.ListOptions{Raw: &metav1.ListOptions{ResourceVersion: sets.ResourceVersion}})
	require.NoError(t, err)
	defer w.Stop()

	md := f.newMachineDeployment("workers", 2)
	md.Spec.Selector.MatchLabels[clusterv1.MachineDeploymentNameLabel] = "someone-else"
	md.Spec.Template.Labels[clusterv1.MachineDeploymentNameLabel] = "someone-else"
	require.NoError(t, env.Client.Create(f.ctx, md))

	reported := func() bool {
		f.get(md)
		c := conditions.Get(md, clusterv1.MachineDeploymentScalingUpCondition)
		return c != nil && c.Status == metav1.ConditionFalse && c.Reason == clusterv1.MachineDeploymentInvalidSelectorReason &&
			md.Status.ObservedGeneration == md.Generation
	}
	deadline := time.After(timeout)
	for !reported() {
		select {
		case ev := <-w.ResultChan():
			t.Fatalf("%s event for a MachineSet: the MachineDeployment created a MachineSet its selector does not select", ev.Type)
		case <-deadline:
			t.Fatalf("ScalingUp did not report the invalid selector within %s: %+v", timeout, conditions.Get(md, clusterv1.MachineDeploymentScalingUpCondition))
		case <-time.After(100 * time.Millisecond): // only paces the wait for the condition; events are not missed
		}
	}
	require.Contains(t, conditions.Get(md, clusterv1.MachineDeploymentScalingUpCondition).Message,
		`spec.selector requirement "cluster.x-k8s.io/deployment-name=someone-else" does not select the MachineDeployment's own Machines`)
}
