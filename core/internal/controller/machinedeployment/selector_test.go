package machinedeployment

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

// TestMachineDeployment_CreatesNothingWhenItsSelectorDoesNotSelectItsMachineSets uses a
// MachineDeployment that admission cannot judge: selector and template agree on the
// deployment-name label, but the controller writes the MachineDeployment's own name into that
// label on everything it creates, so it would never count its own MachineSets. It must say so on
// ScalingUp and create no MachineSet, which a watch observes on every event.
func TestMachineDeployment_CreatesNothingWhenItsSelectorDoesNotSelectItsMachineSets(t *testing.T) {
	f := newFixture(t)
	stopObserving := env.Observe(t, &clusterv1.MachineSetList{}, f.ns, func(all map[string]client.Object) error {
		return fmt.Errorf("the MachineDeployment created %d MachineSet(s), which its selector does not select", len(all))
	})
	md := f.newMachineDeployment("workers", 2)
	md.Spec.Selector.MatchLabels[clusterv1.MachineDeploymentNameLabel] = "someone-else"
	md.Spec.Template.Labels[clusterv1.MachineDeploymentNameLabel] = "someone-else"
	require.NoError(t, env.Client.Create(f.ctx, md))
	envtest.WaitFor(t, timeout, "ScalingUp to report the invalid selector", func() (bool, error) {
		f.get(md)
		c := conditions.Get(md, clusterv1.MachineDeploymentScalingUpCondition)
		return c != nil && c.Status == metav1.ConditionFalse && c.Reason == clusterv1.MachineDeploymentInvalidSelectorReason &&
			md.Status.ObservedGeneration == md.Generation, nil
	})
	stopObserving()
	require.Contains(t, conditions.Get(md, clusterv1.MachineDeploymentScalingUpCondition).Message,
		`spec.selector requirement "cluster.x-k8s.io/deployment-name=someone-else" does not select the MachineDeployment's own Machines`)
}
