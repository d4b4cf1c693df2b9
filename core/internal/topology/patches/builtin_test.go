package patches

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/conversion"
	"capstan.dev/core/internal/topology/desired"
)

// builtinPatch writes the whole builtin variable into spec.template.spec.builtin of the templates
// of kind (apiVersion infraAPI) that match.
func builtinPatch(kind string, match clusterv1.PatchSelectorMatch) clusterv1.PatchDefinition {
	return clusterv1.PatchDefinition{
		Selector:    clusterv1.PatchSelector{APIVersion: infraAPI, Kind: kind, MatchResources: match},
		JSONPatches: []clusterv1.JSONPatch{{Op: "add", Path: "/spec/template/spec/builtin", ValueFrom: &clusterv1.JSONPatchValue{Variable: "builtin"}}},
	}
}

// TestApply_ServesEveryUpstreamBuiltin: builtin.cluster has upstream's metadata (without kubectl's
// last-applied copy and the conversion data) and network; builtin.controlPlane its metadata and
// machineTemplate.infrastructureRef.name; builtin.machineDeployment and builtin.machinePool their
// metadata and the names of what they reference.
func TestApply_ServesEveryUpstreamBuiltin(t *testing.T) {
	c, tpls, names := fixture()
	c.UID = "uid-1"
	c.Labels = map[string]string{"env": "prod"}
	c.Annotations = map[string]string{"owner": "team-a", corev1.LastAppliedConfigAnnotation: "{}", conversion.DataAnnotation: "{}"}
	c.Spec.ClusterNetwork = clusterv1.ClusterNetwork{ServiceDomain: "cluster.local",
		Services: clusterv1.NetworkRanges{CIDRBlocks: []string{"10.96.0.0/12"}}, Pods: clusterv1.NetworkRanges{CIDRBlocks: []string{"10.244.0.0/16", "fd00::/56"}}}
	c.Spec.Topology.ControlPlane.Metadata = clusterv1.ObjectMeta{Labels: map[string]string{"tier": "cp"}}
	c.Spec.Topology.Workers.MachineDeployments[0].Metadata = clusterv1.ObjectMeta{Annotations: map[string]string{"note": "md"}}
	c.Spec.Topology.Workers.MachinePools = []clusterv1.MachinePoolTopology{{Name: "mp-0", Class: "pool"}}
	tpls.MachinePools = map[string]desired.WorkerTemplates{"mp-0": {
		Bootstrap: tmpl("bootstrap.cluster.x-k8s.io/v1beta2", "KubeadmConfigTemplate", "pb"), Infrastructure: tmpl(infraAPI, "DevMachinePoolTemplate", "p")}}
	names.MachinePools = map[string]desired.CurrentWorker{"mp-0": {Name: "c1-mp-0-x", BootstrapName: "c1-mp-0-b", InfrastructureName: "c1-mp-0-i"}}
	cc := classWith(clusterv1.ClusterClassPatch{Name: "builtins", Definitions: []clusterv1.PatchDefinition{
		builtinPatch("DevClusterTemplate", clusterv1.PatchSelectorMatch{InfrastructureCluster: ptr.To(true)}),
		builtinPatch("DevMachineTemplate", clusterv1.PatchSelectorMatch{ControlPlane: ptr.To(true),
			MachineDeploymentClass: &clusterv1.PatchSelectorMatchClasses{Names: []string{"default-worker"}}}),
		builtinPatch("DevMachinePoolTemplate", clusterv1.PatchSelectorMatch{MachinePoolClass: &clusterv1.PatchSelectorMatchClasses{Names: []string{"*"}}}),
	}})
	cc.Spec.ControlPlane.Metadata = clusterv1.ObjectMeta{Labels: map[string]string{"tier": "class", "class-label": "x"}}
	cc.Spec.Workers.MachineDeployments = []clusterv1.MachineDeploymentClass{{Class: "default-worker", Metadata: clusterv1.ObjectMeta{Labels: map[string]string{"gpu": "no"}}}}
	cc.Spec.Workers.MachinePools = []clusterv1.MachinePoolClass{{Class: "pool"}}
	require.NoError(t, Apply(c, cc, tpls, names, desired.Versions{}))

	cluster := map[string]any{"name": "c1", "namespace": "ns", "uid": "uid-1",
		"metadata": map[string]any{"labels": map[string]any{"env": "prod"}, "annotations": map[string]any{"owner": "team-a"}},
		"topology": map[string]any{"version": "v1.37.2", "class": "qs", "classNamespace": "ns", "classRef": map[string]any{"name": "qs", "namespace": "ns"}},
		"network":  map[string]any{"serviceDomain": "cluster.local", "services": []any{"10.96.0.0/12"}, "pods": []any{"10.244.0.0/16", "fd00::/56"}}}
	owned := map[string]any{clusterv1.ClusterNameLabel: "c1", clusterv1.ClusterTopologyOwnedLabel: ""}
	with := func(m map[string]any, extra map[string]any) map[string]any {
		out := map[string]any{}
		for _, src := range []map[string]any{m, extra} {
			for k, v := range src {
				out[k] = v
			}
		}
		return out
	}
	want := map[string]map[string]any{
		"InfrastructureCluster": {"cluster": cluster},
		"ControlPlane machine template": {"cluster": cluster, "controlPlane": map[string]any{
			"name": "c1-cp", "version": "v1.37.2", "replicas": int64(3),
			"metadata": map[string]any{"labels": with(owned, map[string]any{"tier": "cp", "class-label": "x"}),
				"annotations": map[string]any{clusterv1.TemplateClonedFromNameAnnotation: "cp", clusterv1.TemplateClonedFromGroupKindAnnotation: "KubeadmControlPlaneTemplate.controlplane.cluster.x-k8s.io"}},
			"machineTemplate": map[string]any{"infrastructureRef": map[string]any{"name": "c1-cpm"}}}},
		"md-0": {"cluster": cluster, "machineDeployment": map[string]any{
			"name": "c1-md-0-x", "topologyName": "md-0", "class": "default-worker", "version": "v1.37.2", "replicas": int64(2),
			"metadata": map[string]any{"labels": with(owned, map[string]any{"gpu": "no", clusterv1.ClusterTopologyMachineDeploymentNameLabel: "md-0"}),
				"annotations": map[string]any{"note": "md"}},
			"bootstrap": map[string]any{"configRef": map[string]any{"name": "c1-md-0-b"}}, "infrastructureRef": map[string]any{"name": "c1-md-0-i"}}},
		"mp-0": {"cluster": cluster, "machinePool": map[string]any{
			"name": "c1-mp-0-x", "topologyName": "mp-0", "class": "pool", "version": "v1.37.2",
			"metadata":  map[string]any{"labels": with(owned, map[string]any{clusterv1.ClusterTopologyMachinePoolNameLabel: "mp-0"})},
			"bootstrap": map[string]any{"configRef": map[string]any{"name": "c1-mp-0-b"}}, "infrastructureRef": map[string]any{"name": "c1-mp-0-i"}}},
	}
	got := map[string]any{
		"InfrastructureCluster":         get(t, tpls.InfrastructureCluster, "builtin"),
		"ControlPlane machine template": get(t, tpls.ControlPlaneMachineInfrastructure, "builtin"),
		"md-0":                          get(t, tpls.MachineDeployments["md-0"].Infrastructure, "builtin"),
		"mp-0":                          get(t, tpls.MachinePools["mp-0"].Infrastructure, "builtin"),
	}
	for what, w := range want {
		if diff := cmp.Diff(w, got[what]); diff != "" {
			t.Errorf("builtin of the %s template (-want +got):\n%s", what, diff)
		}
	}
}

// TestApply_ATemplateReadingAMissingKeyFailsNamingThePatchAndTheKey: a valueFrom.template reading
// a variable, a builtin or a nested key that is not set fails with the patch's name and the key,
// where upstream would write "<no value>" into the spec; an enabledIf reading an unset variable is
// false, as upstream's.
func TestApply_ATemplateReadingAMissingKeyFailsNamingThePatchAndTheKey(t *testing.T) {
	for _, tc := range []struct{ name, template, key string }{
		{"builtin the Cluster does not set", "{{ .builtin.cluster.network.serviceDomain }}", `reads .builtin.cluster.network.serviceDomain, but key "network" is not set`},
		{"nested key of a variable", "mtu: {{ .net.mtu }}\nproxy: {{ .net.proxy }}", `reads .net.proxy, but key "proxy" is not set`},
		{"variable", "{{ .httpProxy | default \"none\" }}", `reads .httpProxy, but key "httpProxy" is not set`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, tpls, names := fixture()
			cc := classWith(clusterv1.ClusterClassPatch{Name: "proxy", Definitions: []clusterv1.PatchDefinition{machineTemplatePatch([]string{"*"},
				clusterv1.JSONPatch{Op: "add", Path: "/spec/template/spec/x", ValueFrom: &clusterv1.JSONPatchValue{Template: tc.template}})}})
			err := Apply(c, cc, tpls, names, desired.Versions{})
			require.ErrorContains(t, err, `ClusterClass qs patch "proxy" (spec.patches[0]) on MachineDeployment md-0's template DevMachineTemplate w0: `+
				"definitions[0].jsonPatches[0] (add /spec/template/spec/x): valueFrom.template: "+tc.key)
			require.Nil(t, get(t, tpls.MachineDeployments["md-0"].Infrastructure, "x"))
		})
	}

	c, tpls, names := fixture()
	c.Spec.Topology.Variables = append(c.Spec.Topology.Variables, clusterv1.ClusterVariable{Name: "nothing", Value: js(`null`)})
	cc := classWith(clusterv1.ClusterClassPatch{Name: "null", Definitions: []clusterv1.PatchDefinition{machineTemplatePatch([]string{"*"},
		clusterv1.JSONPatch{Op: "add", Path: "/spec/template/spec/x", ValueFrom: &clusterv1.JSONPatchValue{Template: "v: {{ .nothing }}"}})}})
	require.ErrorContains(t, Apply(c, cc, tpls, names, desired.Versions{}), `patch "null"`)

	c, tpls, names = fixture()
	cc = classWith(clusterv1.ClusterClassPatch{Name: "optional", EnabledIf: "{{ if .httpProxy }}true{{ end }}",
		Definitions: []clusterv1.PatchDefinition{machineTemplatePatch([]string{"*"},
			clusterv1.JSONPatch{Op: "add", Path: "/spec/template/spec/x", ValueFrom: &clusterv1.JSONPatchValue{Template: "{{ .httpProxy }}"}})}})
	require.NoError(t, Apply(c, cc, tpls, names, desired.Versions{}), "enabledIf reads an unset variable as empty")
	require.Nil(t, get(t, tpls.MachineDeployments["md-0"].Infrastructure, "x"))
}
