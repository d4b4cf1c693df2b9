package topology

import (
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/envtest"
	"capstan.dev/contracts/testing/crds"
	"capstan.dev/core/internal/coretest"
)

// TestTopology_GenerateUpgradePlanGivesTheControlPlaneSteps: with the class's
// generateUpgradePlanExtension, spec.topology.version may move two minor versions without
// spec.kubernetesVersions; the control plane takes the step the extension plans (the test
// extension's v1.38.0), and the upgrade plans in status list the extension's steps.
func TestTopology_GenerateUpgradePlanGivesTheControlPlaneSteps(t *testing.T) {
	ext := coretest.StartTestExtension(t, env, "upgrade-plan-ext", "")
	startControllerWith(t, nil, nil, ext.Runtime)
	ns, c, got := stableCluster(t)
	cc := &clusterv1.ClusterClass{}
	require.NoError(t, env.Client.Get(t.Context(), client.ObjectKey{Namespace: ns, Name: "quick-start"}, cc))
	envtest.Update(t, env.Client, cc, func() {
		cc.Spec.Upgrade.External.GenerateUpgradePlanExtension = "generate-upgrade-plan." + ext.Name
	})
	markReconciled(t, cc)

	envtest.Update(t, env.Client, got, func() { got.Spec.Topology.Version = "v1.39.1" })
	got = waitCondition(t, c, clusterv1.ClusterTopologyReconciledCondition, metav1.ConditionFalse,
		"Control plane upgrading to v1.38.0, then v1.39.1")
	require.Equal(t, "v1.38.0", nestedString(t, get(t, crds.GenericControlPlaneGVK, ns, got.Spec.ControlPlaneRef.Name), "spec", "version"))
	require.Equal(t, []string{"v1.38.0", "v1.39.1"}, got.Status.ControlPlane.UpgradePlan)
}
