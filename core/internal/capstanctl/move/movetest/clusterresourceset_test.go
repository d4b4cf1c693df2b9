package movetest

import (
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

const addonsAPI = "addons.cluster.x-k8s.io/v1beta2"

// TestMove_TakesClusterResourceSetsWithTheirResourcesAndBindings: as upstream's clusterctl
// move, a ClusterResourceSet moves with the Secrets and ConfigMaps it owns and the binding it
// owns, the owner references rewritten to the copies, so that the target's controller knows
// what was applied (and does not apply ApplyOnce resources again) and the resources keep
// an owner. A ConfigMap no ClusterResourceSet owns stays.
func TestMove_TakesClusterResourceSetsWithTheirResourcesAndBindings(t *testing.T) {
	f := &fixture{ns: source.CreateNamespace(t, "move-crs"), pausedBefore: map[string]bool{}}
	f.create(t, true, def{apiVersion: coreAPI, kind: "Cluster", name: "c1", labels: map[string]string{"cni": "flannel"},
		fields: map[string]any{"spec": clusterSpec("c1")}})
	crs := f.create(t, true, def{apiVersion: addonsAPI, kind: "ClusterResourceSet", name: "cni", finalizers: []string{"addons.cluster.x-k8s.io"},
		fields: map[string]any{"spec": map[string]any{
			"clusterSelector": map[string]any{"matchLabels": map[string]any{"cni": "flannel"}},
			"resources":       []any{map[string]any{"name": "flannel", "kind": "ConfigMap"}, map[string]any{"name": "creds", "kind": "Secret"}},
		}},
		status: map[string]any{"conditions": []any{condition("ResourcesApplied", "True", "Applied")}}})
	owned := []*unstructured.Unstructured{crs}
	f.create(t, true, def{apiVersion: "v1", kind: "ConfigMap", name: "flannel", owners: owned,
		fields: map[string]any{"data": map[string]any{"flannel.yaml": "kind: Namespace"}}})
	creds := secretDef("creds", owned, nil, map[string]string{"s.yaml": "kind: Namespace"})
	creds.fields["type"] = "addons.cluster.x-k8s.io/resource-set"
	f.create(t, true, creds)
	f.create(t, true, def{apiVersion: addonsAPI, kind: "ClusterResourceSetBinding", name: "c1", owners: owned,
		fields: map[string]any{"spec": map[string]any{"clusterName": "c1", "bindings": []any{map[string]any{
			"clusterResourceSetName": "cni",
			"resources": []any{map[string]any{"name": "flannel", "kind": "ConfigMap", "applied": true, "hash": "sha256:00",
				"lastAppliedTime": "2026-01-02T03:04:05Z"}},
		}}}}})
	f.create(t, false, def{apiVersion: "v1", kind: "ConfigMap", name: "unowned", fields: map[string]any{"data": map[string]any{"k": "v"}}})
	before, stays := snapshot(t, source.Client, f.moves), snapshot(t, source.Client, f.stays)

	r := capstanctl(t, moveArgs(t, f.ns)...)
	require.Equal(t, 0, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	require.Contains(t, r.stdout, "Copied 5 objects: Cluster 1, ClusterResourceSet 1, ClusterResourceSetBinding 1, ConfigMap 1, Secret 1")
	require.Contains(t, r.stdout, "Resumed in the target: 1 Cluster, 2 objects\n", "the ClusterResourceSet and its binding were paused by the annotation")
	requireMoved(t, f, before, stays)
}
