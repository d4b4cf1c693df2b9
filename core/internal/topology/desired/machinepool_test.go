package desired

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
)

// withPool adds a MachinePool class (KubeadmConfigTemplate + DevMachinePoolTemplate) to the
// quick-start input and one pool, mp-0, to its topology.
func withPool(in *Input) *Input {
	bootstrap := tmpl("bootstrap.cluster.x-k8s.io/v1beta2", "KubeadmConfigTemplate", "pool-config",
		map[string]any{"template": map[string]any{"spec": map[string]any{"format": "cloud-config"}}})
	infra := tmpl("infrastructure.cluster.x-k8s.io/v1beta2", "DevMachinePoolTemplate", "pool",
		map[string]any{"template": map[string]any{"metadata": map[string]any{"labels": map[string]any{"from-template": "yes"}},
			"spec": map[string]any{"template": map[string]any{"image": "node:v1"}}}})
	in.Class.Spec.Workers.MachinePools = []clusterv1.MachinePoolClass{{
		Class:           "default-worker",
		Metadata:        clusterv1.ObjectMeta{Labels: map[string]string{"tier": "class"}},
		Bootstrap:       clusterv1.WorkerClassBootstrapTemplate{TemplateRef: classRef(bootstrap)},
		Infrastructure:  clusterv1.WorkerClassInfrastructureTemplate{TemplateRef: classRef(infra)},
		FailureDomains:  []string{"class-fd"},
		Deletion:        clusterv1.MachineDeletionSpec{NodeDrainTimeoutSeconds: ptr.To[int32](30), NodeDeletionTimeoutSeconds: ptr.To[int32](10)},
		MinReadySeconds: ptr.To[int32](5),
	}}
	in.Cluster.Spec.Topology.Workers.MachinePools = []clusterv1.MachinePoolTopology{{
		Class: "default-worker", Name: "mp-0", Replicas: ptr.To[int32](3), FailureDomains: []string{"fd-1", "fd-2"},
		Deletion: clusterv1.MachineDeletionSpec{NodeDrainTimeoutSeconds: ptr.To[int32](60)},
		Metadata: clusterv1.ObjectMeta{Labels: map[string]string{"tier": "topology"},
			Annotations: map[string]string{clusterv1.ClusterTopologyHoldUpgradeSequenceAnnotation: "", "note": "x"}},
	}}
	in.Templates.MachinePools = map[string]WorkerTemplates{"default-worker": {Bootstrap: bootstrap, Infrastructure: infra}}
	return in
}

func TestCompute_GeneratesOneMachinePoolWithItsBootstrapConfigAndInfraPoolPerTopologyEntry(t *testing.T) {
	s, err := Compute(withPool(quickStart()))
	require.NoError(t, err)
	require.Len(t, s.MachinePools, 1)
	mps := s.MachinePools[0]
	mp := mps.Object
	// Names: infra cluster r0001, control plane r0002, md-0 r0003, then the pool's three.
	require.Equal(t, "c1-mp-0-r0004", mp.Name, "default naming template: cluster, topology name, random")
	labels := map[string]string{"tier": "topology", clusterv1.ClusterNameLabel: "c1", clusterv1.ClusterTopologyOwnedLabel: "",
		clusterv1.ClusterTopologyMachinePoolNameLabel: "mp-0"}
	require.Equal(t, labels, mp.Labels)
	require.Equal(t, labels, mp.Spec.Template.Labels)
	require.Equal(t, map[string]string{"note": "x"}, mp.Annotations, "the hold-upgrade-sequence annotation is not propagated")
	require.Equal(t, "cluster-uid", string(mp.OwnerReferences[0].UID))
	require.Equal(t, "c1", mp.Spec.ClusterName)
	require.Equal(t, ptr.To[int32](3), mp.Spec.Replicas)
	require.Equal(t, []string{"fd-1", "fd-2"}, mp.Spec.FailureDomains, "the topology's failure domains replace the class's")
	spec := mp.Spec.Template.Spec
	require.Equal(t, "v1.37.2", spec.Version)
	require.Equal(t, ptr.To[int32](5), spec.MinReadySeconds)
	require.Equal(t, clusterv1.MachineDeletionSpec{NodeDrainTimeoutSeconds: ptr.To[int32](60), NodeDeletionTimeoutSeconds: ptr.To[int32](10)}, spec.Deletion)
	require.Equal(t, clusterv1.ContractVersionedObjectReference{APIGroup: "bootstrap.cluster.x-k8s.io", Kind: "KubeadmConfig", Name: "c1-mp-0-r0005"},
		spec.Bootstrap.ConfigRef, "a BootstrapConfig object, not a template")
	require.Equal(t, clusterv1.ContractVersionedObjectReference{APIGroup: "infrastructure.cluster.x-k8s.io", Kind: "DevMachinePool", Name: "c1-mp-0-r0006"},
		spec.InfrastructureRef)

	b := mps.Bootstrap
	require.Equal(t, "KubeadmConfig", b.GetKind())
	require.Equal(t, "team-a", b.GetNamespace())
	require.Equal(t, "cloud-config", nested(t, b, "spec", "format"), "spec comes from the template's spec.template.spec")
	require.Equal(t, "mp-0", b.GetLabels()[clusterv1.ClusterTopologyMachinePoolNameLabel])
	require.Equal(t, "pool-config", b.GetAnnotations()[clusterv1.TemplateClonedFromNameAnnotation])
	i := mps.Infrastructure
	require.Equal(t, "DevMachinePool", i.GetKind())
	require.Equal(t, "node:v1", nested(t, i, "spec", "template", "image"))
	require.Equal(t, map[string]string{"from-template": "yes", clusterv1.ClusterNameLabel: "c1", clusterv1.ClusterTopologyOwnedLabel: "",
		clusterv1.ClusterTopologyMachinePoolNameLabel: "mp-0"}, i.GetLabels())
	require.Equal(t, "cluster-uid", string(i.GetOwnerReferences()[0].UID))
}

func TestCompute_MachinePoolKeepsItsNamesAndUsesTheClassNamingTemplate(t *testing.T) {
	in := withPool(quickStart())
	in.Current.MachinePools = map[string]CurrentWorker{"mp-0": {Name: "pool", BootstrapName: "b", InfrastructureName: "i"}}
	s, err := Compute(in)
	require.NoError(t, err)
	mp := s.MachinePools[0]
	require.Empty(t, cmp.Diff([]string{"pool", "b", "i"}, []string{mp.Object.Name, mp.Bootstrap.GetName(), mp.Infrastructure.GetName()}))

	in = withPool(quickStart())
	in.Class.Spec.Workers.MachinePools[0].Naming.Template = "{{ .machinePool.topologyName }}-in-{{ .cluster.name }}"
	s, err = Compute(in)
	require.NoError(t, err)
	require.Equal(t, "mp-0-in-c1", s.MachinePools[0].Object.Name)

	in.Class.Spec.Workers.MachinePools[0].Naming.Template = "{{ .machineDeployment.topologyName }}"
	_, err = Compute(in)
	require.ErrorContains(t, err, "spec.workers.machinePools[default-worker].naming.template")
}

func TestCompute_RefusesAMachinePoolOfAnUnknownClass(t *testing.T) {
	in := withPool(quickStart())
	in.Cluster.Spec.Topology.Workers.MachinePools[0].Class = "nope"
	_, err := Compute(in)
	require.ErrorContains(t, err, "spec.topology.workers.machinePools[mp-0].class")
}

func TestCompute_MachinePoolVersionFollowsTheUpgradePlanAndPatchesSeeItsCopies(t *testing.T) {
	in := withPool(quickStart())
	in.Cluster.Spec.Topology.Version = "v1.38.0"
	in.Versions = Versions{MachinePools: map[string]string{"mp-0": "v1.37.2"}}
	in.Patch = func(tpls *Templates, names *Names, _ Versions) error {
		require.Equal(t, "c1-mp-0-r0005", names.MachinePools["mp-0"].BootstrapName)
		return unstructured.SetNestedField(tpls.MachinePools["mp-0"].Infrastructure.Object, "node:v2", "spec", "template", "spec", "template", "image")
	}
	s, err := Compute(in)
	require.NoError(t, err)
	require.Equal(t, "v1.37.2", s.MachinePools[0].Object.Spec.Template.Spec.Version)
	require.Equal(t, "node:v2", nested(t, s.MachinePools[0].Infrastructure, "spec", "template", "image"))
	require.Equal(t, "node:v1", nested(t, in.Templates.MachinePools["default-worker"].Infrastructure, "spec", "template", "spec", "template", "image"),
		"the class's template is never patched")
}
