package movetest

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
)

const ipamAPI = "ipam.cluster.x-k8s.io/v1beta2"

// TestMove_TakesIPAddressClaimsWithTheirAddresses: an infrastructure machine's IPAddressClaim
// and the IPAddress allocated for it move with it, owners first (machine, claim, address), their
// owner references rewritten to the copies and the claim's status (addressRef, Ready) kept, so
// that the target's IPAM provider finds the allocation made and allocates nothing twice. The
// pool is only referenced; the IPAM provider's own pool kind moves like any Cluster API kind.
func TestMove_TakesIPAddressClaimsWithTheirAddresses(t *testing.T) {
	f := &fixture{ns: source.CreateNamespace(t, "move-ipam"), pausedBefore: map[string]bool{}}
	cluster := f.create(t, true, def{apiVersion: coreAPI, kind: "Cluster", name: "c1", fields: map[string]any{"spec": clusterSpec("c1")}})
	f.machine(t, cluster, "m1", nil)
	dm := &unstructured.Unstructured{}
	for _, o := range f.moves {
		if o.GetKind() == "DockerMachine" {
			dm = o
		}
	}
	pool := map[string]any{"apiGroup": "ipam.cluster.x-k8s.io", "kind": "InClusterIPPool", "name": "pool"}
	claim := f.create(t, true, def{apiVersion: ipamAPI, kind: "IPAddressClaim", name: "m1-eth0", owners: []*unstructured.Unstructured{dm},
		labels: map[string]string{clusterv1.ClusterNameLabel: "c1"}, finalizers: []string{"ipam.cluster.x-k8s.io/ReleaseAddress"},
		fields: map[string]any{"spec": map[string]any{"clusterName": "c1", "poolRef": pool}},
		status: map[string]any{"addressRef": map[string]any{"name": "m1-eth0"}, "conditions": []any{condition("Ready", "True", "Allocated")}}})
	f.create(t, true, def{apiVersion: ipamAPI, kind: "IPAddress", name: "m1-eth0", owners: []*unstructured.Unstructured{claim},
		finalizers: []string{"ipam.cluster.x-k8s.io/ProtectAddress"},
		fields: map[string]any{"spec": map[string]any{"claimRef": map[string]any{"name": "m1-eth0"}, "poolRef": pool,
			"address": "10.0.0.2", "prefix": int64(24), "gateway": "10.0.0.1"}}})
	before := snapshot(t, source.Client, f.moves)

	r := capstanctl(t, moveArgs(t, f.ns, "--dry-run")...)
	require.Equal(t, 0, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	require.Contains(t, r.stdout, ". IPAddressClaim m1-eth0 (owned by DockerMachine m1)\n")
	require.Contains(t, r.stdout, ". IPAddress m1-eth0 (owned by IPAddressClaim m1-eth0)\n")
	order := []string{". Machine m1 ", ". DockerMachine m1 ", ". IPAddressClaim m1-eth0 ", ". IPAddress m1-eth0 "}
	for i := 1; i < len(order); i++ {
		require.Less(t, strings.Index(r.stdout, order[i-1]), strings.Index(r.stdout, order[i]), "%q before %q", order[i-1], order[i])
	}

	r = capstanctl(t, moveArgs(t, f.ns)...)
	require.Equal(t, 0, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	require.Contains(t, r.stdout, "IPAddress 1, IPAddressClaim 1")
	require.Contains(t, r.stdout, "Resumed in the target: 1 Cluster, 5 objects\n", "the Machine, its infrastructure and bootstrap, the claim and the address were paused")
	requireMoved(t, f, before, nil)
}
