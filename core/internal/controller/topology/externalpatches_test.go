package topology

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/controller"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/envtest"
	"capstan.dev/contracts/testing/crds"
	"capstan.dev/core/internal/controller/clusterclass"
	"capstan.dev/core/internal/coretest"
	"capstan.dev/core/internal/topology/variables"
)

// externalPatchClass is quickStart with its patches as [inline, external, inline]: the inline
// "worker-image" writes the workers' image from variable image; the test extension's external
// patch prefixes every template's image with variable imageRepository (which it defines); the
// last, inline, sets the control plane's machine image. With discover, the ClusterClass controller
// (which the test runs) publishes imageRepository from the extension's DiscoverVariables;
// otherwise the test publishes it as defined by the external patch.
func externalPatchClass(t *testing.T, ns string, ext *coretest.TestExtension, discover bool) *clusterv1.ClusterClass {
	t.Helper()
	cc := quickStart(t, ns)
	external := &clusterv1.ExternalPatchDefinition{
		GeneratePatchesExtension: "generate-patches." + ext.Name, ValidateTopologyExtension: "validate-topology." + ext.Name}
	if discover {
		external.DiscoverVariablesExtension = "discover-variables." + ext.Name
	}
	envtest.Update(t, env.Client, cc, func() {
		cc.Spec.Patches = append(cc.Spec.Patches,
			clusterv1.ClusterClassPatch{Name: "test-extension", External: external},
			clusterv1.ClusterClassPatch{Name: "cp-image", Definitions: []clusterv1.PatchDefinition{{
				Selector: clusterv1.PatchSelector{APIVersion: crds.GenericInfrastructureMachineTemplateGVK.GroupVersion().String(),
					Kind: crds.GenericInfrastructureMachineTemplateGVK.Kind, MatchResources: clusterv1.PatchSelectorMatch{ControlPlane: ptr.To(true)}},
				JSONPatches: []clusterv1.JSONPatch{{Op: "replace", Path: "/spec/template/spec/image", Value: ptr.To(js(`"node:last"`))}},
			}}})
	})
	if discover {
		return cc
	}
	envtest.UpdateStatus(t, env.Client, cc, func() {
		cc.Status.ObservedGeneration = cc.Generation
		cc.Status.Variables = append(variables.StatusVariables(cc.Spec.Variables), clusterv1.ClusterClassStatusVariable{
			Name: "imageRepository", DefinitionsConflict: ptr.To(false),
			Definitions: []clusterv1.ClusterClassStatusVariableDefinition{{From: "test-extension", Required: ptr.To(false),
				Schema: schemaOf(t, `{"type":"string","default":"registry.k8s.io"}`)}},
		})
	})
	return cc
}

// TestTopology_ExternalPatchRunsBetweenInlinePatchesInClassOrder: with the ClusterClass
// controller discovering the extension's variable, a Cluster setting it is applied; the external
// patch sees the first inline patch's output (the workers' image it prefixes) and the last inline
// patch overwrites what the external one wrote (the control plane's machine image).
func TestTopology_ExternalPatchRunsBetweenInlinePatchesInClassOrder(t *testing.T) {
	ns := env.CreateNamespace(t, "topology-extpatch")
	ext := coretest.StartTestExtension(t, env, ns, ns)
	startControllerWith(t, nil, nil, ext.Runtime)
	mgr := coretest.NewManager(t, env)
	require.NoError(t, (&clusterclass.Reconciler{Client: mgr.GetClient(), Runtime: ext.Runtime}).SetupWithManager(t.Context(), mgr,
		controller.Options{SkipNameValidation: ptr.To(true)}))
	coretest.StartManager(t, mgr)
	externalPatchClass(t, ns, ext, true)
	c := topologyCluster(ns)
	c.Spec.Topology.Variables = []clusterv1.ClusterVariable{{Name: "imageRepository", Value: js(`"reg.example"`)}}
	require.NoError(t, env.Client.Create(t.Context(), c))
	got := waitCondition(t, c, clusterv1.ClusterTopologyReconciledCondition, metav1.ConditionTrue, "")

	md0 := machineDeployments(t, got)["md-0"]
	workers := get(t, crds.GenericInfrastructureMachineTemplateGVK, ns, md0.Spec.Template.Spec.InfrastructureRef.Name)
	require.Equal(t, "reg.example/node:v1", nestedString(t, workers, "spec", "template", "spec", "image"),
		"the external patch prefixed what the earlier inline patch wrote")
	cp := get(t, crds.GenericControlPlaneGVK, ns, got.Spec.ControlPlaneRef.Name)
	cpMachines := get(t, crds.GenericInfrastructureMachineTemplateGVK, ns, nestedString(t, cp, "spec", "machineTemplate", "spec", "infrastructureRef", "name"))
	require.Equal(t, "node:last", nestedString(t, cpMachines, "spec", "template", "spec", "image"), "the later inline patch ran after the external one")
}

// TestTopology_ExternalPatchFailuresHoldTheTopologyAndSayWhy: an answer with a uid the request
// did not hold, and a ValidateTopology Failure, each fail the reconcile before anything is
// created, and TopologyReconciled names the extension, the hook and what it said; once the
// extension agrees, the topology is created.
func TestTopology_ExternalPatchFailuresHoldTheTopologyAndSayWhy(t *testing.T) {
	ns := env.CreateNamespace(t, "topology-extpatch")
	ext := coretest.StartTestExtension(t, env, ns, ns)
	ext.Control(t, http.MethodPut, "/control/hooks/GeneratePatches", `{"unknownUID":true}`)
	startControllerWith(t, nil, nil, ext.Runtime)
	externalPatchClass(t, ns, ext, false)
	c := topologyCluster(ns)
	require.NoError(t, env.Client.Create(t.Context(), c))
	got := waitCondition(t, c, clusterv1.ClusterTopologyReconciledCondition, metav1.ConditionFalse,
		`patch "test-extension" (spec.patches[1]): generate-patches.`+ext.Name+` answered GeneratePatches items[0] with uid "not-a-request-uid"`)
	require.Equal(t, clusterv1.ClusterTopologyReconciledFailedReason, conditionReason(got))
	require.False(t, got.Spec.InfrastructureRef.IsDefined())

	ext.Control(t, http.MethodDelete, "/control/hooks/GeneratePatches", "")
	ext.Control(t, http.MethodPut, "/control/hooks/ValidateTopology", `{"status":"Failure","message":"md-0 is too small"}`)
	poke(t, c, "1")
	got = waitCondition(t, c, clusterv1.ClusterTopologyReconciledCondition, metav1.ConditionFalse,
		"calling ValidateTopology handler validate-topology."+ext.Name+" of extension "+ext.Name+": Failure: the handler answered Failure: md-0 is too small")
	require.Contains(t, conditionMessage(got), "fix the Runtime Extension or its ExtensionConfig")
	require.False(t, got.Spec.InfrastructureRef.IsDefined())

	ext.Control(t, http.MethodDelete, "/control/hooks/ValidateTopology", "")
	poke(t, c, "2")
	got = waitCondition(t, c, clusterv1.ClusterTopologyReconciledCondition, metav1.ConditionTrue, "")
	require.True(t, got.Spec.InfrastructureRef.IsDefined())
}

// poke changes an annotation of the Cluster so that the controller reconciles it now, rather than
// after its error backoff (the extension's answers are not API objects it could watch).
func poke(t *testing.T, c *clusterv1.Cluster, v string) {
	t.Helper()
	got, err := getCluster(c)
	require.NoError(t, err)
	envtest.Update(t, env.Client, got, func() { got.SetAnnotations(map[string]string{"test.capstan.dev/poke": v}) })
}
