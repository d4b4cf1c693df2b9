package patches

import (
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/utils/ptr"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/core/internal/topology/desired"
)

// TestApply_MachinePoolClassSelectsPoolTemplatesWithPoolBuiltinsAndOverrides: a definition with
// matchResources.machinePoolClass patches the pools' templates (not the MachineDeployments'),
// with the pool's overrides and builtin.machinePool.
func TestApply_MachinePoolClassSelectsPoolTemplatesWithPoolBuiltinsAndOverrides(t *testing.T) {
	c, tpls, names := fixture()
	c.Spec.Topology.Workers.MachinePools = []clusterv1.MachinePoolTopology{
		{Name: "mp-0", Class: "default-worker", Replicas: ptr.To[int32](4),
			Variables: clusterv1.TopologyVariables{Overrides: []clusterv1.ClusterVariable{{Name: "image", Value: js(`"node:pool"`)}}}},
		{Name: "mp-1", Class: "other"},
	}
	tpls.MachinePools = map[string]desired.WorkerTemplates{
		"mp-0": {Bootstrap: tmpl("bootstrap.cluster.x-k8s.io/v1beta2", "KubeadmConfigTemplate", "pb0"), Infrastructure: tmpl(infraAPI, "DevMachinePoolTemplate", "p0")},
		"mp-1": {Bootstrap: tmpl("bootstrap.cluster.x-k8s.io/v1beta2", "KubeadmConfigTemplate", "pb1"), Infrastructure: tmpl(infraAPI, "DevMachinePoolTemplate", "p1")},
	}
	names.MachinePools = map[string]desired.CurrentWorker{"mp-0": {Name: "c1-mp-0-x", BootstrapName: "c1-mp-0-b", InfrastructureName: "c1-mp-0-i"}}
	pools := &clusterv1.PatchSelectorMatchClasses{Names: []string{"default-*"}}
	cc := classWith(clusterv1.ClusterClassPatch{Name: "pool", Definitions: []clusterv1.PatchDefinition{
		{Selector: clusterv1.PatchSelector{APIVersion: infraAPI, Kind: "DevMachinePoolTemplate", MatchResources: clusterv1.PatchSelectorMatch{MachinePoolClass: pools}},
			JSONPatches: []clusterv1.JSONPatch{
				{Op: "add", Path: "/spec/template/spec/image", ValueFrom: &clusterv1.JSONPatchValue{Variable: "image"}},
				{Op: "add", Path: "/spec/template/spec/mp", ValueFrom: &clusterv1.JSONPatchValue{Variable: "builtin.machinePool"}},
			}},
		// A MachineDeployment selector never picks a pool's template, even of the same kind.
		{Selector: clusterv1.PatchSelector{APIVersion: infraAPI, Kind: "DevMachinePoolTemplate",
			MatchResources: clusterv1.PatchSelectorMatch{MachineDeploymentClass: &clusterv1.PatchSelectorMatchClasses{Names: []string{"*"}}}},
			JSONPatches: []clusterv1.JSONPatch{{Op: "add", Path: "/spec/template/spec/md", Value: ptr.To(js(`true`))}}},
	}})
	require.NoError(t, Apply(c, cc, tpls, names, desired.Versions{MachinePools: map[string]string{"mp-0": "v1.37.1"}}))

	p0, p1 := tpls.MachinePools["mp-0"].Infrastructure, tpls.MachinePools["mp-1"].Infrastructure
	require.Equal(t, "node:pool", get(t, p0, "image"), "mp-0 overrides the variable")
	require.Equal(t, map[string]any{"version": "v1.37.1", "class": "default-worker", "name": "c1-mp-0-x", "topologyName": "mp-0", "replicas": int64(4),
		"bootstrap": map[string]any{"configRef": map[string]any{"name": "c1-mp-0-b"}}, "infrastructureRef": map[string]any{"name": "c1-mp-0-i"}},
		get(t, p0, "mp"))
	require.Nil(t, get(t, p1, "image"), "class other is not selected by default-*")
	require.Nil(t, get(t, p0, "md"), "machineDeploymentClass does not select pool templates")
	require.Nil(t, get(t, tpls.MachineDeployments["md-0"].Infrastructure, "mp"))
}
