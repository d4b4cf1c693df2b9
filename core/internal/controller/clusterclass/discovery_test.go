package clusterclass

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/conditions"
	"capstan.dev/contracts/envtest"
	"capstan.dev/contracts/testing/crds"
	"capstan.dev/core/internal/coretest"
)

// discoveringClass is newClass with an inline variable and an external patch whose
// DiscoverVariables handler is the test extension's (it defines imageRepository).
func discoveringClass(t *testing.T, ns string, ext *coretest.TestExtension) *clusterv1.ClusterClass {
	t.Helper()
	newTemplate(t, crds.GenericInfrastructureMachineTemplateGVK, ns, "cluster")
	newTemplate(t, crds.GenericBootstrapConfigTemplateGVK, ns, "workers")
	newTemplate(t, crds.GenericInfrastructureMachineTemplateGVK, ns, "workers")
	cc := newClass(ns)
	cc.Spec.Variables = []clusterv1.ClusterClassVariable{{Name: "image", Required: ptr.To(false), Schema: schemaOf(t, `{"type":"string"}`)}}
	cc.Spec.Patches = []clusterv1.ClusterClassPatch{{Name: "test-extension", External: &clusterv1.ExternalPatchDefinition{
		GeneratePatchesExtension: "generate-patches." + ext.Name, DiscoverVariablesExtension: "discover-variables." + ext.Name,
		Settings: map[string]string{"flavor": "plain"}}}}
	return cc
}

// TestClusterClass_PublishesDiscoveredVariablesBesideInlineOnes: the external patch's variables
// go to status.variables with from: <patch name>, the inline ones with from: inline; the same
// name defined differently by both is published as a conflict and VariablesReady says which
// definitions conflict; once they agree, both definitions are published and VariablesReady is True.
func TestClusterClass_PublishesDiscoveredVariablesBesideInlineOnes(t *testing.T) {
	ns := env.CreateNamespace(t, "clusterclass-discovery")
	ext := coretest.StartTestExtension(t, env, ns, ns)
	calls := &envtest.CallCounter{Type: &clusterv1.ClusterClass{}, Key: client.ObjectKey{Namespace: ns, Name: "quick-start"}}
	startControllerWith(t, nil, calls, ext.Runtime)
	cc := discoveringClass(t, ns, ext)
	create(t, cc)
	got := waitCondition(t, cc, clusterv1.ClusterClassVariablesReadyCondition, metav1.ConditionTrue, "")
	// Steady state: another reconcile (a template changed) writes nothing.
	gets, before := calls.Snapshot()
	tpl := crds.New(crds.GenericBootstrapConfigTemplateGVK, ns, "workers")
	require.NoError(t, env.Client.Get(t.Context(), client.ObjectKeyFromObject(tpl), tpl))
	envtest.Update(t, env.Client, tpl, func() { tpl.SetLabels(map[string]string{"touched": "yes"}) })
	envtest.WaitFor(t, timeout, "a reconcile after the template changed", func() (bool, error) {
		g, _ := calls.Snapshot()
		return g > gets, nil
	})
	_, after := calls.Snapshot()
	require.Equal(t, before, after, "steady state: the reconcile wrote nothing")
	require.Len(t, got.Status.Variables, 2)
	require.Equal(t, "image", got.Status.Variables[0].Name)
	require.Equal(t, clusterv1.VariableDefinitionFromInline, got.Status.Variables[0].Definitions[0].From)
	repo := got.Status.Variables[1]
	require.Equal(t, "imageRepository", repo.Name)
	require.Equal(t, []string{"test-extension"}, []string{repo.Definitions[0].From})
	require.Equal(t, "string", repo.Definitions[0].Schema.OpenAPIV3Schema.Type)
	require.False(t, ptr.Deref(repo.DefinitionsConflict, true))

	envtest.Update(t, env.Client, got, func() {
		got.Spec.Variables = append(got.Spec.Variables, clusterv1.ClusterClassVariable{Name: "imageRepository", Required: ptr.To(false),
			Schema: schemaOf(t, `{"type":"integer"}`)})
	})
	got = waitCondition(t, cc, clusterv1.ClusterClassVariablesReadyCondition, metav1.ConditionFalse,
		`variable "imageRepository" has conflicting definitions (from inline, test-extension)`)
	require.Equal(t, clusterv1.ClusterClassVariablesReadyVariableDiscoveryFailedReason, conditions.Get(got, clusterv1.ClusterClassVariablesReadyCondition).Reason)
	require.True(t, ptr.Deref(got.Status.Variables[1].DefinitionsConflict, false))
	require.Len(t, got.Status.Variables[1].Definitions, 2)

	envtest.Update(t, env.Client, got, func() {
		got.Spec.Variables[1].Schema = schemaOf(t, `{"type":"string","default":"registry.k8s.io","description":"the image registry the test extension writes into the templates"}`)
	})
	got = waitCondition(t, cc, clusterv1.ClusterClassVariablesReadyCondition, metav1.ConditionTrue, "")
	require.False(t, ptr.Deref(got.Status.Variables[1].DefinitionsConflict, true))
	require.Len(t, got.Status.Variables[1].Definitions, 2)
}

// TestClusterClass_AFailingDiscoverVariablesIsNamed: a Failure answer makes VariablesReady False
// naming the patch, the handler, its extension and the hook; publishing waits until it answers.
func TestClusterClass_AFailingDiscoverVariablesIsNamed(t *testing.T) {
	ns := env.CreateNamespace(t, "clusterclass-discovery")
	ext := coretest.StartTestExtension(t, env, ns, ns)
	ext.Control(t, http.MethodPut, "/control/hooks/DiscoverVariables", `{"status":"Failure","message":"the registry list is unreadable"}`)
	startControllerWith(t, nil, nil, ext.Runtime)
	cc := discoveringClass(t, ns, ext)
	create(t, cc)
	got := waitCondition(t, cc, clusterv1.ClusterClassVariablesReadyCondition, metav1.ConditionFalse,
		`patch "test-extension" (spec.patches[0].external.discoverVariablesExtension discover-variables.`+ext.Name+`): calling DiscoverVariables handler discover-variables.`+
			ext.Name+` of extension `+ext.Name+`: Failure: the handler answered Failure: the registry list is unreadable`)
	require.Empty(t, got.Status.Variables, "nothing is published while a patch's variables are unknown")

	ext.Control(t, http.MethodDelete, "/control/hooks/DiscoverVariables", "")
	got = waitCondition(t, cc, clusterv1.ClusterClassVariablesReadyCondition, metav1.ConditionTrue, "")
	require.Len(t, got.Status.Variables, 2)
}
