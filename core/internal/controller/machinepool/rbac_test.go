package machinepool

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/envtest"
	"capstan.dev/contracts/remote"
	"capstan.dev/core/internal/coretest"
)

// TestRBACMarkers_AreEnoughForTheWholeLifecycle runs the controller, and the ClusterCache
// it needs, as a user holding only what their kubebuilder:rbac markers grant, through
// adoption, Node matching and deletion: a missing permission shows up as a pool that
// never runs or is never deleted.
func TestRBACMarkers_AreEnoughForTheWholeLifecycle(t *testing.T) {
	ctx := t.Context()
	cfg := env.UserFromRBACMarkers(t, "capstan-mp-rbac-test", "controller.go", "../../../rbac.go")
	mgr := coretest.NewManagerAs(t, env, cfg)
	copts := controller.Options{SkipNameValidation: ptr.To(true)}
	cc, err := remote.SetupWithManager(mgr, remote.Options{
		SecretReader: mgr.GetAPIReader(),
		HealthProbe:  remote.HealthProbeOptions{Interval: time.Second, Timeout: time.Second, FailureThreshold: 3},
		Controller:   copts,
	})
	require.NoError(t, err)
	require.NoError(t, (&Reconciler{Client: mgr.GetClient(), Workload: cc}).SetupWithManager(ctx, mgr, copts))
	coretest.StartManager(t, mgr)

	f := newFixtureWithoutController(t)
	p := f.newPool("rbac", 1)
	coretest.SetStatus(t, env, p.bootstrap, map[string]any{"initialization.dataSecretCreated": true, "dataSecretName": "data"})
	f.createNode("r", corev1.ConditionTrue)
	f.setInstances(p, "r")
	f.waitPool(p, "Running", all(inPhase(clusterv1.MachinePoolPhaseRunning), replicaCounts(1, 1, 1, 1, f.nodeName("r"))))

	require.NoError(t, env.Client.Delete(ctx, p.mp))
	envtest.WaitFor(t, timeout, "the MachinePool to be gone", func() (bool, error) {
		_, err := f.getPool(p)
		return apierrors.IsNotFound(err), client.IgnoreNotFound(err)
	})
	require.False(t, f.nodeExists("r"))
}
