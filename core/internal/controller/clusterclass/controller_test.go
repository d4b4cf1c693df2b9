package clusterclass

import (
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/conditions"
	"capstan.dev/contracts/envtest"
	"capstan.dev/contracts/testing/crds"
)

// TestClusterClass_MissingTemplateIsNamedAndResolvedOnceCreated: a class whose worker template
// does not exist says which one and where it is referenced; creating it (no requeue: the watch on
// its kind) resolves the class, and every template gets the class as owner.
func TestClusterClass_MissingTemplateIsNamedAndResolvedOnceCreated(t *testing.T) {
	ns := env.CreateNamespace(t, "cc")
	startController(t, nil, nil)
	shared := newTemplate(t, crds.GenericInfrastructureMachineTemplateGVK, ns, "cluster")
	bootstrap := newTemplate(t, crds.GenericBootstrapConfigTemplateGVK, ns, "workers")
	cc := newClass(ns)
	create(t, cc)

	got := waitCondition(t, cc, clusterv1.ClusterClassRefVersionsUpToDateCondition, metav1.ConditionUnknown,
		"GenericInfrastructureMachineTemplate workers (spec.workers.machineDeployments[default-worker].infrastructure.templateRef) does not exist in namespace "+ns+": create it")
	require.Equal(t, clusterv1.ClusterClassRefVersionsUpToDateInternalErrorReason, conditions.Get(got, clusterv1.ClusterClassRefVersionsUpToDateCondition).Reason)
	require.True(t, conditions.IsTrue(got, clusterv1.ClusterClassVariablesReadyCondition), "no variables: ready")

	workers := newTemplate(t, crds.GenericInfrastructureMachineTemplateGVK, ns, "workers")
	got = waitCondition(t, cc, clusterv1.ClusterClassRefVersionsUpToDateCondition, metav1.ConditionTrue, "")
	require.Equal(t, got.Generation, got.Status.ObservedGeneration)
	for _, tmpl := range []*unstructured.Unstructured{shared, bootstrap, workers} {
		require.True(t, ownedBy(t, tmpl, got), "%s %s is owned by the class", tmpl.GetKind(), tmpl.GetName())
	}
	cur := shared.DeepCopy()
	require.NoError(t, env.Client.Get(t.Context(), client.ObjectKeyFromObject(shared), cur))
	require.Len(t, cur.GetOwnerReferences(), 1, "a template referenced twice gets the class once")
}

// TestClusterClass_PublishesVariablesAndNamesTheFieldPathOfAnInvalidSchema: valid variables are
// published sorted in status.variables; an invalid schema makes VariablesReady False with the
// field path, and is not published until fixed.
func TestClusterClass_PublishesVariablesAndNamesTheFieldPathOfAnInvalidSchema(t *testing.T) {
	ns := env.CreateNamespace(t, "cc")
	startController(t, nil, nil)
	cc := newClass(ns)
	cc.Spec.Variables = []clusterv1.ClusterClassVariable{
		{Name: "workerImage", Required: ptr.To(false), Schema: schemaOf(t, `{"type":"string","default":"kindest/node"}`)},
		{Name: "apiServer", Required: ptr.To(true), Schema: schemaOf(t, `{"type":"object","properties":{"port":{"minimum":1}}}`)},
	}
	create(t, cc)

	got := waitCondition(t, cc, clusterv1.ClusterClassVariablesReadyCondition, metav1.ConditionFalse,
		`variable "apiServer": spec.variables[1].schema.openAPIV3Schema.properties[port].type: Required value`)
	require.Equal(t, clusterv1.ClusterClassVariablesReadyVariableDiscoveryFailedReason, conditions.Get(got, clusterv1.ClusterClassVariablesReadyCondition).Reason)
	require.Empty(t, got.Status.Variables, "nothing is published while a schema is invalid")

	envtest.Update(t, env.Client, got, func() {
		got.Spec.Variables[1].Schema = schemaOf(t, `{"type":"object","properties":{"port":{"type":"integer","minimum":1}}}`)
	})
	got = waitCondition(t, cc, clusterv1.ClusterClassVariablesReadyCondition, metav1.ConditionTrue, "")
	require.Len(t, got.Status.Variables, 2)
	require.Equal(t, "apiServer", got.Status.Variables[0].Name, "sorted by name")
	require.Equal(t, "workerImage", got.Status.Variables[1].Name)
	def := got.Status.Variables[0].Definitions[0]
	require.Equal(t, clusterv1.VariableDefinitionFromInline, def.From)
	require.True(t, *def.Required)
	require.False(t, *got.Status.Variables[0].DefinitionsConflict)
}

// TestClusterClass_PatchRulesAdmissionCannotCheck: a replace with an array index and a patch
// reading an undefined variable are reported with their paths.
func TestClusterClass_PatchRulesAdmissionCannotCheck(t *testing.T) {
	ns := env.CreateNamespace(t, "cc")
	startController(t, nil, nil)
	cc := newClass(ns)
	cc.Spec.Patches = []clusterv1.ClusterClassPatch{{Name: "image", Definitions: []clusterv1.PatchDefinition{{
		Selector: clusterv1.PatchSelector{APIVersion: crds.GenericInfrastructureMachineTemplateGVK.GroupVersion().String(),
			Kind: crds.GenericInfrastructureMachineTemplateGVK.Kind, MatchResources: clusterv1.PatchSelectorMatch{InfrastructureCluster: ptr.To(true)}},
		JSONPatches: []clusterv1.JSONPatch{
			{Op: "replace", Path: "/spec/template/spec/images/0", ValueFrom: &clusterv1.JSONPatchValue{Variable: "builtin.cluster.name"}},
			{Op: "add", Path: "/spec/template/spec/image", ValueFrom: &clusterv1.JSONPatchValue{Variable: "image.tag"}},
		},
	}}}}
	create(t, cc)
	waitCondition(t, cc, clusterv1.ClusterClassVariablesReadyCondition, metav1.ConditionFalse,
		"spec.patches[0].definitions[0].jsonPatches[0].path: Invalid value: \"/spec/template/spec/images/0\": replace cannot address an array item")
	waitCondition(t, cc, clusterv1.ClusterClassVariablesReadyCondition, metav1.ConditionFalse,
		`spec.patches[0].definitions[0].jsonPatches[1].valueFrom.variable: Invalid value: "image.tag": variable "image" is not defined`)
}

// TestClusterClass_ReportsAReferenceToAnOlderAPIVersion: the multi-version generic CRD declares
// v1beta2 as its newest version for the contract, so a reference at v1beta1 is outdated; the
// class is not rewritten.
func TestClusterClass_ReportsAReferenceToAnOlderAPIVersion(t *testing.T) {
	ns := env.CreateNamespace(t, "cc")
	startController(t, nil, nil)
	newTemplate(t, crds.GenericInfrastructureMachineTemplateGVK, ns, "cluster")
	newTemplate(t, crds.GenericBootstrapConfigTemplateGVK, ns, "workers")
	old := crds.GenericMultiVersionInfrastructureMachineGVK
	old.Version = "v1beta1"
	u := crds.New(old, ns, "workers")
	create(t, u)
	cc := newClass(ns)
	cc.Spec.Workers.MachineDeployments[0].Infrastructure.TemplateRef = ref(old, "workers")
	create(t, cc)
	got := waitCondition(t, cc, clusterv1.ClusterClassRefVersionsUpToDateCondition, metav1.ConditionFalse,
		"GenericMultiVersionInfrastructureMachine workers (spec.workers.machineDeployments[default-worker].infrastructure.templateRef) is referenced at v1beta1, but its CRD declares the v1beta2 contract at v1beta2: set apiVersion to infrastructure.cluster.x-k8s.io/v1beta2")
	require.Equal(t, "infrastructure.cluster.x-k8s.io/v1beta1", got.Spec.Workers.MachineDeployments[0].Infrastructure.TemplateRef.APIVersion)
}

// TestClusterClass_PausedThenSteady: a paused class reports Paused and nothing else, and its
// templates get no owner; resumed, it is reconciled; then a reconcile (triggered by a template
// change) writes nothing.
func TestClusterClass_PausedThenSteady(t *testing.T) {
	ns := env.CreateNamespace(t, "cc")
	calls := &envtest.CallCounter{Type: &clusterv1.ClusterClass{}, Key: client.ObjectKey{Namespace: ns, Name: "quick-start"}}
	startController(t, nil, calls)
	shared := newTemplate(t, crds.GenericInfrastructureMachineTemplateGVK, ns, "cluster")
	newTemplate(t, crds.GenericBootstrapConfigTemplateGVK, ns, "workers")
	newTemplate(t, crds.GenericInfrastructureMachineTemplateGVK, ns, "workers")
	cc := newClass(ns)
	cc.Annotations = map[string]string{clusterv1.PausedAnnotation: ""}
	create(t, cc)

	got := waitCondition(t, cc, clusterv1.PausedCondition, metav1.ConditionTrue, "remove it to resume")
	require.Nil(t, conditions.Get(got, clusterv1.ClusterClassRefVersionsUpToDateCondition))
	require.False(t, ownedBy(t, shared, got), "a paused class touches no template")

	envtest.Update(t, env.Client, got, func() { delete(got.Annotations, clusterv1.PausedAnnotation) })
	got = waitCondition(t, cc, clusterv1.ClusterClassRefVersionsUpToDateCondition, metav1.ConditionTrue, "")
	require.True(t, conditions.IsTrue(got, clusterv1.ClusterClassVariablesReadyCondition))
	require.True(t, ownedBy(t, shared, got))

	envtest.WaitFor(t, timeout, "the class to settle", func() (bool, error) {
		cur := &clusterv1.ClusterClass{}
		err := env.Client.Get(t.Context(), client.ObjectKeyFromObject(cc), cur)
		return err == nil && cur.Status.ObservedGeneration == cur.Generation && conditions.Get(cur, clusterv1.PausedCondition).Status == metav1.ConditionFalse, err
	})
	gets, before := calls.Snapshot()
	cur := shared.DeepCopy()
	require.NoError(t, env.Client.Get(t.Context(), client.ObjectKeyFromObject(shared), cur))
	cur.SetLabels(map[string]string{"touched": "yes"})
	require.NoError(t, env.Client.Update(t.Context(), cur))
	envtest.WaitFor(t, timeout, "a reconcile after the template change", func() (bool, error) {
		g, _ := calls.Snapshot()
		return g > gets, nil
	})
	_, after := calls.Snapshot()
	require.Equal(t, before, after, "steady state: the reconcile wrote nothing")
}

// TestRBACMarkers_AreEnoughForTheController runs the controller as a user holding only what its
// kubebuilder:rbac markers grant: a missing permission shows as a class that never resolves.
func TestRBACMarkers_AreEnoughForTheController(t *testing.T) {
	ns := env.CreateNamespace(t, "cc")
	startController(t, env.UserFromRBACMarkers(t, "capstan-cc-rbac-test", "controller.go"), nil)
	tmpl := newTemplate(t, crds.GenericInfrastructureMachineTemplateGVK, ns, "cluster")
	newTemplate(t, crds.GenericBootstrapConfigTemplateGVK, ns, "workers")
	newTemplate(t, crds.GenericInfrastructureMachineTemplateGVK, ns, "workers")
	cc := newClass(ns)
	cc.Spec.Variables = []clusterv1.ClusterClassVariable{{Name: "v", Required: ptr.To(false), Schema: schemaOf(t, `{"type":"string"}`)}}
	create(t, cc)
	got := waitCondition(t, cc, clusterv1.ClusterClassRefVersionsUpToDateCondition, metav1.ConditionTrue, "")
	require.True(t, ownedBy(t, tmpl, got))
	require.Len(t, got.Status.Variables, 1)
}
