package clusterresourceset

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"sigs.k8s.io/controller-runtime/pkg/client"

	addonsv1 "capstan.dev/contracts/api/addons/v1beta2"
	"capstan.dev/contracts/envtest"
)

func TestClusterResourceSet_RecordsWhatItAppliedToWhichCluster(t *testing.T) {
	f := newFixture(t)
	f.newCluster("c1", true)
	f.newConfigMap("cni", map[string]string{"m": f.workloadConfigMap("cni", "1")})
	crs := f.newCRS("cni", addonsv1.ClusterResourceSetStrategyApplyOnce, configMapRef("cni"))
	calls := &envtest.CallCounter{Type: &addonsv1.ClusterResourceSet{}, Key: client.ObjectKeyFromObject(crs)}
	startController(t, controllerOptions{calls: []*envtest.CallCounter{calls}})
	f.waitApplied("c1", crs, configMapRef("cni"))

	applied := env.WaitForEvents(t, timeout, crs, ReasonSuccessfulApply, 1)
	require.Equal(t, "Normal", applied[0].Type)
	require.Equal(t, "c1", applied[0].Related.Name, "the Event names the Cluster")
	require.Equal(t, "Applied ConfigMap cni to Cluster c1", applied[0].Note)
	f.reconcileAgain(crs, calls)
	_, writes := calls.Snapshot()
	require.Equal(t, []string{"event SuccessfulApply *v1beta2.ClusterResourceSet cni"}, eventWrites(writes),
		"an ApplyOnce resource applied once is recorded once")
}

func TestClusterResourceSet_RecordsAFailedApplyOnceWhileItRetries(t *testing.T) {
	f := newFixture(t)
	f.newCluster("c1", true)
	f.newConfigMap("unknown", map[string]string{"m": "apiVersion: example.invalid/v1\nkind: Nope\nmetadata:\n  name: x\n  namespace: " + f.ns + "\n"})
	crs := f.newCRS("addons", addonsv1.ClusterResourceSetStrategyApplyOnce, configMapRef("unknown"))
	calls := &envtest.CallCounter{Type: &addonsv1.ClusterResourceSet{}, Key: client.ObjectKeyFromObject(crs)}
	startController(t, controllerOptions{calls: []*envtest.CallCounter{calls}})
	failed := env.WaitForEvents(t, timeout, crs, ReasonFailedApply, 1)
	require.Equal(t, "Warning", failed[0].Type)
	require.Contains(t, failed[0].Note, "Failed to apply to Cluster c1: ConfigMap unknown: ")
	// Each reconcile tries again; the failure, unchanged, was recorded when it happened.
	f.reconcileAgain(crs, calls)
	f.reconcileAgain(crs, calls)
	_, writes := calls.Snapshot()
	require.Equal(t, []string{"event FailedApply *v1beta2.ClusterResourceSet addons"}, eventWrites(writes))
}

// eventWrites are the Events among a CallCounter's writes.
func eventWrites(writes []string) []string {
	var out []string
	for _, w := range writes {
		if strings.HasPrefix(w, "event ") {
			out = append(out, w)
		}
	}
	return out
}
