package topology

import (
	"fmt"
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

// classLike creates, in ns, a copy of cc named name, changed by mutate, and marks it reconciled.
func classLike(t *testing.T, cc *clusterv1.ClusterClass, ns, name string, mutate func(*clusterv1.ClusterClass)) {
	t.Helper()
	out := &clusterv1.ClusterClass{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Spec: *cc.Spec.DeepCopy()}
	mutate(out)
	require.NoError(t, env.Client.Create(t.Context(), out))
	markReconciled(t, out)
}

// never fails the test if an object of gvk ever exists in ns until stop is called.
func never(t *testing.T, gvk schema.GroupVersionKind, ns string) (stop func()) {
	list := &unstructured.UnstructuredList{}
	list.SetGroupVersionKind(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
	return env.Observe(t, list, ns, func(objs map[string]client.Object) error {
		for name := range objs {
			return fmt.Errorf("%s %s was created", gvk.Kind, name)
		}
		return nil
	})
}

// TestTopology_ARebaseToOtherKindsIsRefusedAndACompatibleOneUpdatesWhatTheClusterReferences: a
// spec.topology.classRef change to a class whose InfrastructureCluster and worker machine
// template kinds differ (in another namespace, where admission cannot see it) is refused on
// TopologyReconciled with the field paths, and no object of the new kinds is ever created; a
// class of the same kinds with other templates updates the referenced InfrastructureCluster in
// place and rotates the control plane's machine template, the Cluster's references unchanged.
func TestTopology_ARebaseToOtherKindsIsRefusedAndACompatibleOneUpdatesWhatTheClusterReferences(t *testing.T) {
	ns, other := env.CreateNamespace(t, "topology-rebase"), env.CreateNamespace(t, "topology-rebase-classes")
	startController(t, nil, nil)
	cc := quickStart(t, ns)
	c := topologyCluster(ns)
	require.NoError(t, env.Client.Create(t.Context(), c))
	got := waitCondition(t, c, clusterv1.ClusterTopologyReconciledCondition, metav1.ConditionTrue, "")
	infraRef, cpRef := got.Spec.InfrastructureRef, got.Spec.ControlPlaneRef
	cpMachines := nestedString(t, get(t, crds.GenericControlPlaneGVK, ns, cpRef.Name), "spec", "machineTemplate", "spec", "infrastructureRef", "name")

	for gvk, name := range map[schema.GroupVersionKind]string{crds.GenericRemediationTemplateGVK: "cluster", crds.GenericControlPlaneTemplateGVK: "cp",
		crds.GenericInfrastructureMachineTemplateGVK: "cp-machines", crds.GenericBootstrapConfigTemplateGVK: "workers",
		crds.GenericImmutableInfrastructureMachineTemplateGVK: "workers"} {
		newTemplate(t, gvk, other, name, map[string]any{})
	}
	classLike(t, cc, other, "other-kinds", func(cc *clusterv1.ClusterClass) {
		cc.Spec.Infrastructure.TemplateRef = classRef(crds.GenericRemediationTemplateGVK, "cluster")
		cc.Spec.Workers.MachineDeployments[0].Infrastructure.TemplateRef = classRef(crds.GenericImmutableInfrastructureMachineTemplateGVK, "workers")
	})
	stopInfra := never(t, crds.GenericRemediationGVK, ns)
	stopWorkers := never(t, crds.GenericImmutableInfrastructureMachineTemplateGVK, ns)
	envtest.Update(t, env.Client, got, func() { got.Spec.Topology.ClassRef = clusterv1.ClusterClassRef{Name: "other-kinds", Namespace: other} })
	got = waitCondition(t, c, clusterv1.ClusterTopologyReconciledCondition, metav1.ConditionFalse,
		"spec.topology.classRef: Forbidden: ClusterClass other-kinds would make the InfrastructureCluster (spec.infrastructureRef) a "+
			"GenericRemediation (infrastructure.cluster.x-k8s.io), but it is a GenericInfrastructureCluster (infrastructure.cluster.x-k8s.io)")
	require.Equal(t, clusterv1.ClusterTopologyReconciledFailedReason, conditionReason(got))
	require.Contains(t, conditionMessage(got), "spec.topology.workers.machineDeployments[md-0]: Forbidden: ClusterClass other-kinds would make "+
		"MachineDeployment md-0's infrastructure template a GenericImmutableInfrastructureMachineTemplate (infrastructure.cluster.x-k8s.io), "+
		"but it is a GenericInfrastructureMachineTemplate (infrastructure.cluster.x-k8s.io)")
	require.Equal(t, infraRef, got.Spec.InfrastructureRef)

	newTemplate(t, crds.GenericInfrastructureClusterTemplateGVK, ns, "cluster-2", map[string]any{"network": "other"})
	newTemplate(t, crds.GenericInfrastructureMachineTemplateGVK, ns, "cp-machines-2", map[string]any{"image": "node:cp2"})
	classLike(t, cc, ns, "same-kinds", func(cc *clusterv1.ClusterClass) {
		cc.Spec.Infrastructure.TemplateRef.Name = "cluster-2"
		cc.Spec.ControlPlane.MachineInfrastructure.TemplateRef.Name = "cp-machines-2"
	})
	envtest.Update(t, env.Client, got, func() { got.Spec.Topology.ClassRef = clusterv1.ClusterClassRef{Name: "same-kinds"} })
	envtest.WaitFor(t, timeout, "the InfrastructureCluster updated from the new class", func() (bool, error) {
		return nestedString(t, get(t, crds.GenericInfrastructureClusterGVK, ns, infraRef.Name), "spec", "network") == "other", nil
	})
	got = waitCondition(t, c, clusterv1.ClusterTopologyReconciledCondition, metav1.ConditionTrue, "")
	stopInfra()
	stopWorkers()
	require.Equal(t, infraRef, got.Spec.InfrastructureRef)
	require.Equal(t, cpRef, got.Spec.ControlPlaneRef)
	newMachines := nestedString(t, get(t, crds.GenericControlPlaneGVK, ns, cpRef.Name), "spec", "machineTemplate", "spec", "infrastructureRef", "name")
	require.NotEqual(t, cpMachines, newMachines, "the control plane's machine template is rotated")
	require.Equal(t, "node:cp2", nestedString(t, get(t, crds.GenericInfrastructureMachineTemplateGVK, ns, newMachines), "spec", "template", "spec", "image"))
	list := &unstructured.UnstructuredList{}
	list.SetGroupVersionKind(crds.GenericInfrastructureClusterGVK.GroupVersion().WithKind("GenericInfrastructureClusterList"))
	require.NoError(t, env.Client.List(t.Context(), list, client.InNamespace(ns)))
	require.Len(t, list.Items, 1, "one InfrastructureCluster: the referenced one")
}
