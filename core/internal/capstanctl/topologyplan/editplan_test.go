package topologyplan_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"

	"capstan.dev/core/internal/capstanctl/cmd"
	"capstan.dev/core/internal/capstanctl/ctltest"
)

// `capstanctl plan` hands a topology Cluster to this package and plans the MachineDeployments
// the topology changes as edits of their own: a replicas change of a worker adds Machines and
// replaces none. (This suite is the one with the topology controller and the quick-start
// class; the rest of `plan` is tested in package editplan.)
func TestEditPlanCommand_PlansTheMachineDeploymentsATopologyChanges(t *testing.T) {
	_, cluster := generatedQuickStart(t)
	changed := cluster.DeepCopy()
	mds := nested[[]any](t, changed, "spec", "topology", "workers", "machineDeployments")
	mds[0].(map[string]any)["replicas"] = int64(3)
	dir := t.TempDir()
	data, err := yaml.Marshal(changed.Object)
	require.NoError(t, err)
	file := filepath.Join(dir, "cluster.yaml")
	require.NoError(t, os.WriteFile(file, data, 0o600))
	kubeconfig := filepath.Join(dir, "kubeconfig")
	require.NoError(t, os.WriteFile(kubeconfig, env.KubeConfig, 0o600))

	stdout, stderr, code := ctltest.Run(t, cmd.Execute, "plan", "-f", file, "--fail-on-replace", "--kubeconfig", kubeconfig)
	require.Equal(t, 0, code, stderr)
	ns := cluster.GetNamespace()
	require.Contains(t, stdout, "(Cluster "+ns+"/development (topology)): scale\n")
	require.Contains(t, stdout, "Cluster "+ns+"/development (ClusterClass "+ns+"/quick-start, version v1.37.2):\n")
	require.Contains(t, stdout, "  change MachineDeployment "+ns+"/development-")
}
