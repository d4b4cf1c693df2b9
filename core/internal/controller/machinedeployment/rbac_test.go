package machinedeployment

import (
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/envtest"
	"capstan.dev/core/internal/controller/machineset"
	"capstan.dev/core/internal/coretest"
)

// TestRBACMarkers_AreEnoughToRollOutAndDelete runs both controllers as a user that holds only
// the permissions their kubebuilder:rbac markers grant, through a rollout and a deletion: a
// missing permission shows up as a rollout that never completes.
func TestRBACMarkers_AreEnoughToRollOutAndDelete(t *testing.T) {
	ctx := t.Context()
	cfg := env.UserFromRBACMarkers(t, "capstan-md-ms-rbac-test", "controller.go", "../machineset/controller.go")
	f := newFixtureWithoutControllers(t)
	mgr := coretest.NewManagerAs(t, env, cfg)
	copts := controller.Options{SkipNameValidation: ptr.To(true)}
	require.NoError(t, (&Reconciler{Client: mgr.GetClient()}).SetupWithManager(ctx, mgr, copts))
	require.NoError(t, (&machineset.Reconciler{Client: mgr.GetClient()}).SetupWithManager(ctx, mgr, copts))
	coretest.StandInForMachineController(t, mgr)
	f.start(mgr)

	md := f.newMachineDeployment("workers", 2)
	require.NoError(t, env.Client.Create(ctx, md))
	oldMS, _ := f.waitForAvailable(md, 2)
	f.waitForTemplatesOwned()
	f.update(md, func() { md.Spec.Template.Spec.Version = "v1.37.3" })
	envtest.WaitFor(t, timeout, "the rollout to complete", func() (bool, error) {
		for name, m := range f.machines() {
			if m.Labels[clusterv1.MachineSetNameLabel] != oldMS {
				f.makeAvailable(name)
			}
		}
		sets := f.machineSets(md)
		_, oldThere := sets[oldMS]
		return len(sets) == 1 && !oldThere, nil
	})
	f.waitForAvailable(md, 2)

	require.NoError(t, env.Client.Delete(ctx, md))
	envtest.WaitFor(t, timeout, "the MachineDeployment and everything under it to be gone", func() (bool, error) {
		err := env.Client.Get(ctx, client.ObjectKeyFromObject(md), &clusterv1.MachineDeployment{})
		return err != nil && client.IgnoreNotFound(err) == nil && len(f.machines()) == 0, nil
	})
}
