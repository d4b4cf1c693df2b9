package topology

import (
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/envtest"
	"capstan.dev/contracts/testing/crds"
)

// leftover creates what a topology controller stopped (kill -9) right after creating it would
// leave: an object of gvk with the topology's labels (plus extra) and c as owner, that nothing
// references.
func leftover(t *testing.T, gvk schema.GroupVersionKind, c *clusterv1.Cluster, name string, extra map[string]string) {
	t.Helper()
	u := crds.New(gvk, c.Namespace, name)
	labels := map[string]string{clusterv1.ClusterNameLabel: c.Name, clusterv1.ClusterTopologyOwnedLabel: ""}
	for k, v := range extra {
		labels[k] = v
	}
	u.SetLabels(labels)
	u.SetOwnerReferences([]metav1.OwnerReference{{APIVersion: clusterv1.GroupVersion.String(), Kind: "Cluster", Name: c.Name, UID: c.UID}})
	require.NoError(t, unstructured.SetNestedMap(u.Object, map[string]any{}, "spec"))
	require.NoError(t, env.Client.Create(t.Context(), u))
}

// TestTopology_TakesUpOrDeletesWhatAStoppedReconcileCreatedBeforeItsReferrer: the BootstrapConfig
// and InfraMachinePool created for a MachinePool entry before the run stopped short of the
// MachinePool are the ones the MachinePool gets (no second pair); those of an entry that is gone
// are deleted, and so is a MachineDeployment's template copy created before its
// MachineDeployment.
func TestTopology_TakesUpOrDeletesWhatAStoppedReconcileCreatedBeforeItsReferrer(t *testing.T) {
	ns := env.CreateNamespace(t, "topology-orphans")
	withPoolClass(t, quickStart(t, ns))
	c := poolCluster(ns)
	require.NoError(t, env.Client.Create(t.Context(), c))
	pool := func(name string) map[string]string {
		return map[string]string{clusterv1.ClusterTopologyMachinePoolNameLabel: name}
	}
	leftover(t, crds.GenericBootstrapConfigGVK, c, "c1-mp-0-early", pool("mp-0"))
	leftover(t, crds.GenericInfrastructureMachineGVK, c, "c1-mp-0-early", pool("mp-0"))
	leftover(t, crds.GenericBootstrapConfigGVK, c, "c1-mp-gone-early", pool("mp-gone"))
	leftover(t, crds.GenericInfrastructureMachineTemplateGVK, c, "c1-md-0-early", map[string]string{clusterv1.ClusterTopologyMachineDeploymentNameLabel: "md-0"})

	startController(t, nil, nil)
	got := waitCondition(t, c, clusterv1.ClusterTopologyReconciledCondition, metav1.ConditionTrue, "")
	mp := machinePools(t, got)["mp-0"]
	require.NotNil(t, mp)
	require.Equal(t, "c1-mp-0-early", mp.Spec.Template.Spec.Bootstrap.ConfigRef.Name, "the BootstrapConfig created before the MachinePool")
	require.Equal(t, "c1-mp-0-early", mp.Spec.Template.Spec.InfrastructureRef.Name, "the InfraMachinePool created before the MachinePool")
	require.Equal(t, "node:v1", nestedString(t, get(t, crds.GenericInfrastructureMachineGVK, ns, "c1-mp-0-early"), "spec", "image"), "the topology's intent applied to it")
	envtest.WaitFor(t, timeout, "the leftovers nothing will reference to be deleted", func() (bool, error) {
		return get(t, crds.GenericBootstrapConfigGVK, ns, "c1-mp-gone-early") == nil &&
			get(t, crds.GenericInfrastructureMachineTemplateGVK, ns, "c1-md-0-early") == nil, nil
	})
	for _, gvk := range []schema.GroupVersionKind{crds.GenericBootstrapConfigGVK, crds.GenericInfrastructureMachineGVK} {
		list := &unstructured.UnstructuredList{}
		list.SetGroupVersionKind(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
		require.NoError(t, env.Client.List(t.Context(), list, client.InNamespace(ns)))
		require.Len(t, list.Items, 1, "one %s: the MachinePool's", gvk.Kind)
	}
}

// TestTopology_DeletesTemplateCopiesOfKindsTheClassNoLongerUses: the template copies of a removed
// MachineDeployment whose kind no other one uses are deleted once its last MachineSet is gone,
// even when the class has dropped that MachineDeployment class (and so the kind) meanwhile.
func TestTopology_DeletesTemplateCopiesOfKindsTheClassNoLongerUses(t *testing.T) {
	ns := env.CreateNamespace(t, "topology-kinds")
	startController(t, nil, nil)
	cc := quickStart(t, ns)
	newTemplate(t, crds.GenericImmutableInfrastructureMachineTemplateGVK, ns, "immutable", map[string]any{})
	envtest.Update(t, env.Client, cc, func() {
		cc.Spec.Workers.MachineDeployments = append(cc.Spec.Workers.MachineDeployments, clusterv1.MachineDeploymentClass{
			Class:          "immutable-worker",
			Bootstrap:      clusterv1.WorkerClassBootstrapTemplate{TemplateRef: classRef(crds.GenericBootstrapConfigTemplateGVK, "workers")},
			Infrastructure: clusterv1.WorkerClassInfrastructureTemplate{TemplateRef: classRef(crds.GenericImmutableInfrastructureMachineTemplateGVK, "immutable")},
		})
	})
	markReconciled(t, cc)
	c := topologyCluster(ns)
	c.Spec.Topology.Workers.MachineDeployments[1].Class = "immutable-worker"
	require.NoError(t, env.Client.Create(t.Context(), c))
	got := waitCondition(t, c, clusterv1.ClusterTopologyReconciledCondition, metav1.ConditionTrue, "")
	md1 := machineDeployments(t, got)["md-1"]
	copyName := md1.Spec.Template.Spec.InfrastructureRef.Name
	require.NotNil(t, get(t, crds.GenericImmutableInfrastructureMachineTemplateGVK, ns, copyName))
	// Play the MachineDeployment controller: a MachineSet of md-1 uses its copies.
	ms := &clusterv1.MachineSet{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: md1.Name + "-ms", Labels: md1.Spec.Template.Labels},
		Spec:       clusterv1.MachineSetSpec{ClusterName: "c1", Selector: md1.Spec.Selector, Template: md1.Spec.Template},
	}
	require.NoError(t, env.Client.Create(t.Context(), ms))

	envtest.Update(t, env.Client, got, func() {
		got.Spec.Topology.Workers.MachineDeployments = got.Spec.Topology.Workers.MachineDeployments[:1]
	})
	envtest.WaitFor(t, timeout, "md-1 to be deleted", func() (bool, error) { return machineDeployments(t, got)["md-1"] == nil, nil })
	envtest.Update(t, env.Client, cc, func() { cc.Spec.Workers.MachineDeployments = cc.Spec.Workers.MachineDeployments[:1] })
	markReconciled(t, cc)
	waitCondition(t, c, clusterv1.ClusterTopologyReconciledCondition, metav1.ConditionTrue, "")
	require.NotNil(t, get(t, crds.GenericImmutableInfrastructureMachineTemplateGVK, ns, copyName), "its MachineSet still uses the copy")

	require.NoError(t, env.Client.Delete(t.Context(), ms))
	envtest.WaitFor(t, timeout, "the copy of the kind no class uses to be deleted", func() (bool, error) {
		return get(t, crds.GenericImmutableInfrastructureMachineTemplateGVK, ns, copyName) == nil, nil
	})
}
