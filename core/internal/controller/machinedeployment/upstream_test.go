package machinedeployment

import (
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/testing/crds"
)

// TestMachineDeployment_UpstreamStyleWithoutLabelsIsDefaultedAndScales applies a MachineDeployment
// written as upstream's Docker example clusters write it: no selector, no template labels, no
// rollout strategy, no replicas and a version without "v". Upstream's defaulting webhook makes it
// valid; here the admission policies must, and the MachineSet they lead to must create Machines.
func TestMachineDeployment_UpstreamStyleWithoutLabelsIsDefaultedAndScales(t *testing.T) {
	f := newFixture(t)
	md := &unstructured.Unstructured{}
	require.NoError(t, yaml.Unmarshal([]byte(`
apiVersion: cluster.x-k8s.io/v1beta2
kind: MachineDeployment
metadata:
  name: upstream-md-0
spec:
  clusterName: `+clusterName+`
  template:
    spec:
      clusterName: `+clusterName+`
      version: 1.37.2
      bootstrap:
        configRef:
          apiGroup: `+crds.BootstrapGroupVersion.Group+`
          kind: `+crds.GenericBootstrapConfigTemplateGVK.Kind+`
          name: bootstrap
      infrastructureRef:
        apiGroup: `+crds.InfrastructureGroupVersion.Group+`
        kind: `+crds.GenericInfrastructureMachineTemplateGVK.Kind+`
        name: infra
`), &md.Object))
	md.SetNamespace(f.ns)
	require.NoError(t, env.Client.Create(f.ctx, md), "an upstream-style MachineDeployment must be accepted")

	got := &clusterv1.MachineDeployment{}
	got.Name, got.Namespace = md.GetName(), f.ns
	f.get(got)
	want := map[string]string{clusterv1.ClusterNameLabel: clusterName, clusterv1.MachineDeploymentNameLabel: "upstream-md-0"}
	require.Equal(t, want, got.Spec.Selector.MatchLabels)
	require.Equal(t, want, got.Spec.Template.Labels)
	require.Equal(t, "v1.37.2", got.Spec.Template.Spec.Version)
	require.Equal(t, int32(1), *got.Spec.Replicas)

	f.update(got, func() { got.Spec.Replicas = ptr.To(int32(2)) })
	_, names := f.waitForAvailable(got, 2)
	for _, name := range names {
		m := f.machines()[name]
		require.Equal(t, clusterName, m.Labels[clusterv1.ClusterNameLabel], "Machine %s", name)
		require.Equal(t, "upstream-md-0", m.Labels[clusterv1.MachineDeploymentNameLabel], "Machine %s", name)
		require.Equal(t, "v1.37.2", m.Spec.Version, "Machine %s", name)
	}
}
