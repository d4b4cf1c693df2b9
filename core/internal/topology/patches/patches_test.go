package patches

import (
	"testing"

	"github.com/stretchr/testify/require"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/core/internal/topology/desired"
)

func tmpl(apiVersion, kind, name string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{"template": map[string]any{"spec": map[string]any{}}}}}
	u.SetAPIVersion(apiVersion)
	u.SetKind(kind)
	u.SetName(name)
	return u
}

func js(s string) apiextensionsv1.JSON { return apiextensionsv1.JSON{Raw: []byte(s)} }

const (
	infraAPI = "infrastructure.cluster.x-k8s.io/v1beta2"
	cpAPI    = "controlplane.cluster.x-k8s.io/v1beta2"
)

// fixture is a Cluster with two MachineDeployments of two classes, and template copies.
func fixture() (*clusterv1.Cluster, *desired.Templates, *desired.Names) {
	c := &clusterv1.Cluster{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "c1"},
		Spec: clusterv1.ClusterSpec{Topology: clusterv1.Topology{
			ClassRef:     clusterv1.ClusterClassRef{Name: "qs"},
			Version:      "v1.37.2",
			ControlPlane: clusterv1.ControlPlaneTopology{Replicas: ptr.To[int32](3)},
			Variables: []clusterv1.ClusterVariable{
				{Name: "image", Value: js(`"node:v1"`)},
				{Name: "net", Value: js(`{"cidrs":["10.0.0.0/16","10.1.0.0/16"],"mtu":1500}`)},
			},
			Workers: clusterv1.WorkersTopology{MachineDeployments: []clusterv1.MachineDeploymentTopology{
				{Name: "md-0", Class: "default-worker", Replicas: ptr.To[int32](2),
					Variables: clusterv1.TopologyVariables{Overrides: []clusterv1.ClusterVariable{{Name: "image", Value: js(`"node:gpu"`)}}}},
				{Name: "md-1", Class: "other"},
			}},
		}},
	}
	tpls := &desired.Templates{
		InfrastructureCluster:             tmpl(infraAPI, "DevClusterTemplate", "ic"),
		ControlPlane:                      tmpl(cpAPI, "KubeadmControlPlaneTemplate", "cp"),
		ControlPlaneMachineInfrastructure: tmpl(infraAPI, "DevMachineTemplate", "cpm"),
		MachineDeployments: map[string]desired.WorkerTemplates{
			"md-0": {Bootstrap: tmpl("bootstrap.cluster.x-k8s.io/v1beta2", "KubeadmConfigTemplate", "b0"), Infrastructure: tmpl(infraAPI, "DevMachineTemplate", "w0")},
			"md-1": {Bootstrap: tmpl("bootstrap.cluster.x-k8s.io/v1beta2", "KubeadmConfigTemplate", "b1"), Infrastructure: tmpl(infraAPI, "DevMachineTemplate", "w1")},
		},
	}
	names := &desired.Names{InfrastructureCluster: "c1-ic", ControlPlane: "c1-cp", ControlPlaneMachineInfrastructure: "c1-cpm",
		MachineDeployments: map[string]desired.CurrentWorker{
			"md-0": {Name: "c1-md-0-x", BootstrapName: "c1-md-0-b", InfrastructureName: "c1-md-0-i"},
			"md-1": {Name: "c1-md-1-y", BootstrapName: "c1-md-1-b", InfrastructureName: "c1-md-1-i"}}}
	return c, tpls, names
}

func classWith(patches ...clusterv1.ClusterClassPatch) *clusterv1.ClusterClass {
	return &clusterv1.ClusterClass{ObjectMeta: metav1.ObjectMeta{Name: "qs"}, Spec: clusterv1.ClusterClassSpec{Patches: patches}}
}

func get(t *testing.T, u *unstructured.Unstructured, path ...string) any {
	t.Helper()
	v, _, err := unstructured.NestedFieldNoCopy(u.Object, append([]string{"spec", "template", "spec"}, path...)...)
	require.NoError(t, err)
	return v
}

func machineTemplatePatch(names []string, patches ...clusterv1.JSONPatch) clusterv1.PatchDefinition {
	return clusterv1.PatchDefinition{
		Selector: clusterv1.PatchSelector{APIVersion: infraAPI, Kind: "DevMachineTemplate",
			MatchResources: clusterv1.PatchSelectorMatch{MachineDeploymentClass: &clusterv1.PatchSelectorMatchClasses{Names: names}}},
		JSONPatches: patches,
	}
}

func TestApply_SelectsTemplatesAndUsesOverridesAndBuiltins(t *testing.T) {
	c, tpls, names := fixture()
	cc := classWith(
		clusterv1.ClusterClassPatch{Name: "image", Definitions: []clusterv1.PatchDefinition{
			machineTemplatePatch([]string{"default-*"},
				clusterv1.JSONPatch{Op: "add", Path: "/spec/template/spec/image", ValueFrom: &clusterv1.JSONPatchValue{Variable: "image"}},
				clusterv1.JSONPatch{Op: "add", Path: "/spec/template/spec/md", ValueFrom: &clusterv1.JSONPatchValue{Variable: "builtin.machineDeployment"}}),
			{Selector: clusterv1.PatchSelector{APIVersion: infraAPI, Kind: "DevMachineTemplate",
				MatchResources: clusterv1.PatchSelectorMatch{ControlPlane: ptr.To(true)}},
				JSONPatches: []clusterv1.JSONPatch{{Op: "add", Path: "/spec/template/spec/cp", ValueFrom: &clusterv1.JSONPatchValue{
					Template: "name: {{ .builtin.controlPlane.name }}\nreplicas: {{ .builtin.controlPlane.replicas }}\nversion: {{ .builtin.controlPlane.version | quote }}"}}}},
			{Selector: clusterv1.PatchSelector{APIVersion: infraAPI, Kind: "DevClusterTemplate",
				MatchResources: clusterv1.PatchSelectorMatch{InfrastructureCluster: ptr.To(true)}},
				JSONPatches: []clusterv1.JSONPatch{
					{Op: "add", Path: "/spec/template/spec/cidr", ValueFrom: &clusterv1.JSONPatchValue{Variable: "net.cidrs[1]"}},
					{Op: "add", Path: "/spec/template/spec/cluster", ValueFrom: &clusterv1.JSONPatchValue{
						Template: "{{ .builtin.cluster.name }}-{{ .builtin.cluster.namespace }}-{{ .builtin.cluster.topology.class }}-{{ .builtin.cluster.topology.version }}"}},
					{Op: "add", Path: "/spec/template/spec/mtu", Value: &apiextensionsv1.JSON{Raw: []byte(`9000`)}},
				}},
		}},
	)
	require.NoError(t, Apply(c, cc, tpls, names, desired.Versions{}))

	w0, w1 := tpls.MachineDeployments["md-0"].Infrastructure, tpls.MachineDeployments["md-1"].Infrastructure
	require.Equal(t, "node:gpu", get(t, w0, "image"), "md-0 overrides the variable")
	require.Equal(t, map[string]any{"version": "v1.37.2", "class": "default-worker", "name": "c1-md-0-x", "topologyName": "md-0", "replicas": int64(2),
		"bootstrap": map[string]any{"configRef": map[string]any{"name": "c1-md-0-b"}}, "infrastructureRef": map[string]any{"name": "c1-md-0-i"}},
		get(t, w0, "md"))
	require.Nil(t, get(t, w1, "image"), "class other is not selected by default-*")
	require.Nil(t, get(t, tpls.MachineDeployments["md-0"].Bootstrap, "image"), "the bootstrap template's kind is not selected")

	require.Equal(t, map[string]any{"name": "c1-cp", "replicas": int64(3), "version": "v1.37.2"}, get(t, tpls.ControlPlaneMachineInfrastructure, "cp"))
	require.Equal(t, "10.1.0.0/16", get(t, tpls.InfrastructureCluster, "cidr"))
	require.Equal(t, "c1-ns-qs-v1.37.2", get(t, tpls.InfrastructureCluster, "cluster"))
	require.Equal(t, int64(9000), get(t, tpls.InfrastructureCluster, "mtu"))
}

func TestApply_RunsPatchesInOrderHonouringEnabledIf(t *testing.T) {
	c, tpls, names := fixture()
	add := func(v string) clusterv1.JSONPatch {
		return clusterv1.JSONPatch{Op: "add", Path: "/spec/template/spec/image", Value: &apiextensionsv1.JSON{Raw: []byte(v)}}
	}
	cc := classWith(
		clusterv1.ClusterClassPatch{Name: "first", Definitions: []clusterv1.PatchDefinition{machineTemplatePatch([]string{"*"}, add(`"a"`))}},
		clusterv1.ClusterClassPatch{Name: "gpu-only", EnabledIf: `{{ eq .image "node:gpu" }}`,
			Definitions: []clusterv1.PatchDefinition{machineTemplatePatch([]string{"*"},
				clusterv1.JSONPatch{Op: "replace", Path: "/spec/template/spec/image", Value: &apiextensionsv1.JSON{Raw: []byte(`"b"`)}})}},
		clusterv1.ClusterClassPatch{Name: "never", EnabledIf: `false`, Definitions: []clusterv1.PatchDefinition{machineTemplatePatch([]string{"*"}, add(`"c"`))}},
		clusterv1.ClusterClassPatch{Name: "remove", EnabledIf: `{{ if eq .builtin.machineDeployment.topologyName "md-1" }}true{{ end }}`,
			Definitions: []clusterv1.PatchDefinition{machineTemplatePatch([]string{"other"}, clusterv1.JSONPatch{Op: "remove", Path: "/spec/template/spec/image"})}},
	)
	require.NoError(t, Apply(c, cc, tpls, names, desired.Versions{}))
	require.Equal(t, "b", get(t, tpls.MachineDeployments["md-0"].Infrastructure, "image"), "a later patch sees an earlier one's result")
	require.Nil(t, get(t, tpls.MachineDeployments["md-1"].Infrastructure, "image"), "md-1 (no gpu override) had a, then remove")
}

func TestApply_ErrorsNameThePatchThePathAndTheTemplate(t *testing.T) {
	for _, tc := range []struct {
		name  string
		patch clusterv1.JSONPatch
		want  []string
	}{
		{"missing variable", clusterv1.JSONPatch{Op: "add", Path: "/spec/template/spec/x", ValueFrom: &clusterv1.JSONPatchValue{Variable: "net.nope"}},
			[]string{`patch "broken"`, "definitions[0].jsonPatches[0] (add /spec/template/spec/x)", "net.nope is not set", "DevMachineTemplate w0"}},
		{"index out of range", clusterv1.JSONPatch{Op: "add", Path: "/spec/template/spec/x", ValueFrom: &clusterv1.JSONPatchValue{Variable: "net.cidrs[5]"}},
			[]string{"net.cidrs has no item 5"}},
		{"missing parent", clusterv1.JSONPatch{Op: "add", Path: "/spec/template/spec/a/b", Value: &apiextensionsv1.JSON{Raw: []byte(`1`)}},
			[]string{"(add /spec/template/spec/a/b)"}},
		{"outside spec", clusterv1.JSONPatch{Op: "add", Path: "/metadata/name", Value: &apiextensionsv1.JSON{Raw: []byte(`"x"`)}},
			[]string{"path must start with /spec"}},
		{"bad template", clusterv1.JSONPatch{Op: "add", Path: "/spec/template/spec/x", ValueFrom: &clusterv1.JSONPatchValue{Template: "{{ .nope.deeper }"}},
			[]string{"valueFrom.template"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, tpls, names := fixture()
			cc := classWith(clusterv1.ClusterClassPatch{Name: "broken", Definitions: []clusterv1.PatchDefinition{machineTemplatePatch([]string{"default-worker"}, tc.patch)}})
			err := Apply(c, cc, tpls, names, desired.Versions{})
			require.Error(t, err)
			for _, w := range tc.want {
				require.Contains(t, err.Error(), w)
			}
		})
	}
	c, tpls, names := fixture()
	err := Apply(c, classWith(clusterv1.ClusterClassPatch{Name: "ext", External: &clusterv1.ExternalPatchDefinition{}}), tpls, names, desired.Versions{})
	require.ErrorContains(t, err, `patch "ext" (spec.patches[0]) is external, and nothing here can call Runtime Extensions`)
}

func TestLookup_WalksNestedPaths(t *testing.T) {
	vars := map[string]any{"a": map[string]any{"b": []any{[]any{"x", "y"}}}, "s": "v"}
	v, err := lookup(vars, "a.b[0][1]")
	require.NoError(t, err)
	require.Equal(t, "y", v)
	_, err = lookup(vars, "s.t")
	require.ErrorContains(t, err, "s is not an object")
	_, err = lookup(vars, "a..b")
	require.ErrorContains(t, err, "is not a name")
}

// TestApply_BuiltinVersionsAreTheObjectsVersions: during an upgrade builtin.controlPlane.version
// and builtin.machineDeployment.version are the versions the objects get, not the topology's.
func TestApply_BuiltinVersionsAreTheObjectsVersions(t *testing.T) {
	c, tpls, names := fixture()
	c.Spec.Topology.Version = "v1.38.0"
	cc := classWith(clusterv1.ClusterClassPatch{Name: "versions", Definitions: []clusterv1.PatchDefinition{
		machineTemplatePatch([]string{"*"}, clusterv1.JSONPatch{Op: "add", Path: "/spec/template/spec/version",
			ValueFrom: &clusterv1.JSONPatchValue{Variable: "builtin.machineDeployment.version"}}),
		{Selector: clusterv1.PatchSelector{APIVersion: infraAPI, Kind: "DevMachineTemplate", MatchResources: clusterv1.PatchSelectorMatch{ControlPlane: ptr.To(true)}},
			JSONPatches: []clusterv1.JSONPatch{{Op: "add", Path: "/spec/template/spec/version", ValueFrom: &clusterv1.JSONPatchValue{Variable: "builtin.controlPlane.version"}}}},
	}})
	require.NoError(t, Apply(c, cc, tpls, names, desired.Versions{ControlPlane: "v1.38.0", MachineDeployments: map[string]string{"md-0": "v1.37.2"}}))
	require.Equal(t, "v1.38.0", get(t, tpls.ControlPlaneMachineInfrastructure, "version"))
	require.Equal(t, "v1.37.2", get(t, tpls.MachineDeployments["md-0"].Infrastructure, "version"))
	require.Equal(t, "v1.38.0", get(t, tpls.MachineDeployments["md-1"].Infrastructure, "version"), "no plan entry: the topology's version")
}
