//go:build e2e

package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"time"

	jsonpatch "github.com/evanphx/json-patch/v5"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
)

// objectPlan is the part of `capstanctl plan -o json`'s object plan the e2e checks.
type objectPlan struct {
	Kind     string   `json:"kind"`
	Outcome  string   `json:"outcome"`
	Replaced []string `json:"replaced"`
	Added    int      `json:"added"`
	Steps    []struct {
		Create      int      `json:"create"`
		Delete      []string `json:"delete"`
		EtcdMembers int      `json:"etcdMembers"`
		EtcdQuorum  int      `json:"etcdQuorum"`
	} `json:"steps"`
	Notes []string `json:"notes"`
}

// planControlPlanePatch runs `capstanctl plan -f` on the live KubeadmControlPlane with patch (a
// JSON merge patch) applied, as a user plans an edit before applying it, and returns its plan.
func (s *suite) planControlPlanePatch(patch map[string]any) objectPlan {
	s.t.Helper()
	kcp := &unstructured.Unstructured{}
	kcp.SetGroupVersionKind(controlPlaneGVK)
	require.NoError(s.t, s.mgmt.Get(s.ctx, s.kcpKey(), kcp))
	edited := map[string]any{"apiVersion": kcp.GetAPIVersion(), "kind": kcp.GetKind(),
		"metadata": map[string]any{"namespace": kcp.GetNamespace(), "name": kcp.GetName()}, "spec": kcp.Object["spec"]}
	// The patch as the API server applies mergePatchControlPlane's: a JSON merge patch.
	doc, err := json.Marshal(edited)
	require.NoError(s.t, err)
	body, err := json.Marshal(patch)
	require.NoError(s.t, err)
	merged, err := jsonpatch.MergePatch(doc, body)
	require.NoError(s.t, err)
	data, err := yaml.JSONToYAML(merged)
	require.NoError(s.t, err)
	file := filepath.Join(s.t.TempDir(), "kcp.yaml")
	require.NoError(s.t, os.WriteFile(file, data, 0o600))

	out, err := s.capstanctlOutput(2*time.Minute, "plan", "-f", file, "-o", "json", "--kubeconfig", s.mgmtKubeconfig())
	require.NoError(s.t, err)
	var res struct{ Objects []objectPlan }
	require.NoError(s.t, json.Unmarshal(out, &res))
	require.Len(s.t, res.Objects, 1)
	return res.Objects[0]
}

// controlPlaneMachineNames lists the names of the control plane Machines.
func (s *suite) controlPlaneMachineNames() []string {
	s.t.Helper()
	ms, err := s.machines(client.MatchingLabels{clusterv1.MachineControlPlaneLabel: ""})
	require.NoError(s.t, err)
	var names []string
	for _, m := range ms {
		names = append(names, m.Name)
	}
	return names
}
