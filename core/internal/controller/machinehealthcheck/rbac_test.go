package machinehealthcheck

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/controller"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/remote"
	"capstan.dev/core/internal/coretest"
)

// TestRBACMarkers_AreEnoughToCheckMarkAndClearMachines runs the controller, and the
// ClusterCache it needs, as a user holding only what their kubebuilder:rbac markers
// grant: a missing permission shows up as a Machine that is never marked or cleared.
func TestRBACMarkers_AreEnoughToCheckMarkAndClearMachines(t *testing.T) {
	startControllerAsMarkers(t, "capstan-mhc-rbac-test")

	f := newFixture(t)
	f.newMachine("m", true)
	f.newMHC("rbac")
	f.waitMachineCondition("m", clusterv1.MachineHealthCheckSucceededCondition, healthy())
	f.waitMHC("rbac", "status", counts(1, 1, 1, "m"))

	annotate(t, f, "m", func(a map[string]string) { a[clusterv1.RemediateMachineAnnotation] = "" })
	f.waitMachineCondition("m", clusterv1.MachineOwnerRemediatedCondition, waitingForRemediation())
	annotate(t, f, "m", func(a map[string]string) { delete(a, clusterv1.RemediateMachineAnnotation) })
	f.waitMachineCondition("m", clusterv1.MachineOwnerRemediatedCondition, nil)
}

// startControllerAsMarkers runs the controller as a user holding only what the
// kubebuilder:rbac markers grant, so a missing permission fails the test.
func startControllerAsMarkers(t *testing.T, user string) {
	t.Helper()
	cfg := env.UserFromRBACMarkers(t, user, "controller.go", "../../../rbac.go")
	mgr := coretest.NewManagerAs(t, env, cfg)
	copts := controller.Options{SkipNameValidation: ptr.To(true)}
	cc, err := remote.SetupWithManager(mgr, remote.Options{
		SecretReader: mgr.GetAPIReader(),
		HealthProbe:  remote.HealthProbeOptions{Interval: time.Second, Timeout: time.Second, FailureThreshold: 3},
		Controller:   copts,
	})
	require.NoError(t, err)
	require.NoError(t, (&Reconciler{Client: mgr.GetClient(), Workload: cc}).SetupWithManager(t.Context(), mgr, copts))
	coretest.StartManager(t, mgr)
}
