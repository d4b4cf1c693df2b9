package topologyplan_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"capstan.dev/core/internal/capstanctl/topologyplan"
	"capstan.dev/core/internal/coretest"
)

// TestPlan_CallsTheExternalPatchesExtensions: a class with an external patch is planned with the
// extension's patches, called from the plan through the ExtensionConfig the management cluster
// holds (the test extension writes the patch setting imageRepository into the control plane).
func TestPlan_CallsTheExternalPatchesExtensions(t *testing.T) {
	ns := env.CreateNamespace(t, "plan-extpatch")
	ext := coretest.StartTestExtension(t, env, ns, ns)
	class, cluster := quickStart(t, ns)
	for _, o := range class {
		if o.GetKind() != "ClusterClass" {
			continue
		}
		patches, _, err := unstructured.NestedSlice(o.Object, "spec", "patches")
		require.NoError(t, err)
		patches = append(patches, map[string]any{"name": "test-extension", "external": map[string]any{
			"generatePatchesExtension": "generate-patches." + ext.Name, "settings": map[string]any{"imageRepository": "plan.example"}}})
		require.NoError(t, unstructured.SetNestedSlice(o.Object, patches, "spec", "patches"))
	}
	plans, err := topologyplan.Plan(context.Background(), env.Client, append(class, cluster))
	require.NoError(t, err)
	require.Len(t, plans, 1)
	kcp := plans[0].Changes[2].Object
	require.Equal(t, "KubeadmControlPlane", kcp.GetKind())
	require.Equal(t, "plan.example", nested[string](t, kcp, "spec", "kubeadmConfigSpec", "clusterConfiguration", "imageRepository"))
}
