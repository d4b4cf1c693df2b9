//go:build e2e

package e2e

import (
	"slices"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/test/framework"
)

// workerWaveLabel is the Node label the test's workerWave variable sets on the default-worker
// Nodes (kubelet --node-labels through their KubeadmConfigTemplate): a value seen on a real Node
// proves the variable reached the Machine's bootstrap data.
const workerWaveLabel = "e2e.capstan.dev/wave"

// addWorkerWaveVariable adds to the test's copy of the quick-start class a variable workerWave
// (default "1") and a patch that puts it into the default-worker KubeadmConfigTemplate, and
// sets it to "1" on the Cluster. Upstream's quick-start has no variable that reaches the
// workers' templates; a change of this one must rotate the worker's bootstrap template.
func addWorkerWaveVariable(t *testing.T, objs []*framework.Object) {
	variable := map[string]any{"name": "workerWave", "required": false,
		"schema": map[string]any{"openAPIV3Schema": map[string]any{"type": "string", "default": "1"}}}
	patch := map[string]any{"name": "workerWave", "definitions": []any{map[string]any{
		"selector": map[string]any{"apiVersion": "bootstrap.cluster.x-k8s.io/v1beta2", "kind": "KubeadmConfigTemplate",
			"matchResources": map[string]any{"machineDeploymentClass": map[string]any{"names": []any{"default-worker"}}}},
		"jsonPatches": []any{map[string]any{"op": "add", "path": "/spec/template/spec/joinConfiguration",
			"valueFrom": map[string]any{"template": "nodeRegistration:\n  kubeletExtraArgs:\n  - name: node-labels\n    value: " +
				workerWaveLabel + "={{ .workerWave }}\n"}}},
	}}}
	appendTo := func(o *framework.Object, item any, path ...string) {
		list, _, err := unstructured.NestedSlice(o.Object, path...)
		require.NoError(t, err)
		require.NoError(t, unstructured.SetNestedSlice(o.Object, append(list, item), path...))
	}
	found := 0
	for _, o := range objs {
		switch o.GetKind() {
		case "ClusterClass":
			appendTo(o, variable, "spec", "variables")
			appendTo(o, patch, "spec", "patches")
			found++
		case "Cluster":
			appendTo(o, map[string]any{"name": "workerWave", "value": "1"}, "spec", "topology", "variables")
			found++
		}
	}
	require.Equal(t, 2, found, "the manifest has one ClusterClass and one Cluster")
}

// workerWaveIndex is the position of workerWave in the Cluster's spec.topology.variables.
func (s *suite) workerWaveIndex() string {
	c := &clusterv1.Cluster{}
	require.NoError(s.t, s.mgmt.Get(s.ctx, client.ObjectKey{Namespace: s.ns, Name: s.name}, c))
	i := slices.IndexFunc(c.Spec.Topology.Variables, func(v clusterv1.ClusterVariable) bool { return v.Name == "workerWave" })
	require.GreaterOrEqual(s.t, i, 0, "the Cluster sets workerWave")
	return strconv.Itoa(i)
}

// requireWorkerWave checks the workload cluster has n worker Nodes, each with the workerWave
// label's value wave.
func (s *suite) requireWorkerWave(n int, wave string) {
	nodes := &corev1.NodeList{}
	require.NoError(s.t, s.workload.List(s.ctx, nodes))
	workers := 0
	for _, n := range nodes.Items {
		if _, cp := n.Labels["node-role.kubernetes.io/control-plane"]; cp {
			continue
		}
		workers++
		require.Equal(s.t, wave, n.Labels[workerWaveLabel], "Node %s's %s label", n.Name, workerWaveLabel)
	}
	require.Equal(s.t, n, workers, "worker Nodes")
}

// workerBootstrapTemplate is the KubeadmConfigTemplate the generated MachineDeployment md-0 uses.
func (s *suite) workerBootstrapTemplate() string {
	mds := &clusterv1.MachineDeploymentList{}
	require.NoError(s.t, s.mgmt.List(s.ctx, mds, client.InNamespace(s.ns), client.MatchingLabels{
		clusterv1.ClusterNameLabel: s.name, clusterv1.ClusterTopologyMachineDeploymentNameLabel: "md-0"}))
	require.Len(s.t, mds.Items, 1)
	return mds.Items[0].Spec.Template.Spec.Bootstrap.ConfigRef.Name
}

// workerMachineNames are the names of the Cluster's Machines outside the control plane.
func (s *suite) workerMachineNames() []string {
	ms, err := s.machines(nil)
	require.NoError(s.t, err)
	var names []string
	for _, m := range ms {
		if _, cp := m.Labels[clusterv1.MachineControlPlaneLabel]; !cp {
			names = append(names, m.Name)
		}
	}
	return names
}

// kubeadmConfigTemplate is an empty KubeadmConfigTemplate to read into (the test does not
// import the bootstrap provider's types).
func kubeadmConfigTemplate() *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetAPIVersion("bootstrap.cluster.x-k8s.io/v1beta2")
	u.SetKind("KubeadmConfigTemplate")
	return u
}
