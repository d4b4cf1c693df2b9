package topologyplan_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/envtest"
	"capstan.dev/core/internal/capstanctl/cmd"
	"capstan.dev/core/internal/capstanctl/ctltest"
	"capstan.dev/core/internal/capstanctl/topologyplan"
)

// actions lists a plan's changes as "<action> <Kind>".
func actions(p topologyplan.ClusterPlan) []string {
	out := make([]string, 0, len(p.Changes))
	for _, ch := range p.Changes {
		out = append(out, string(ch.Action)+" "+ch.Object.GetKind())
	}
	return out
}

func setTopology(t *testing.T, cluster *unstructured.Unstructured, value any, path ...string) {
	t.Helper()
	require.NoError(t, unstructured.SetNestedField(cluster.Object, value, append([]string{"spec", "topology"}, path...)...))
}

// A Cluster that does not exist yet, with its class only in the files: the plan lists every
// object the controller would create, patched as the controller patches them, and writes nothing.
func TestPlan_NewClusterListsWhatTheControllerWouldCreate(t *testing.T) {
	ns := env.CreateNamespace(t, "plan")
	class, cluster := quickStart(t, ns)
	plans, err := topologyplan.Plan(context.Background(), env.Client, append(class, cluster))
	require.NoError(t, err)
	require.Len(t, plans, 1)
	p := plans[0]
	require.Equal(t, ns+"/development", p.Cluster)
	require.Equal(t, ns+"/quick-start", p.Class)
	require.Equal(t, []string{"create DockerCluster", "create DockerMachineTemplate", "create KubeadmControlPlane",
		"create MachineHealthCheck", "create KubeadmConfigTemplate", "create DockerMachineTemplate",
		"create MachineDeployment", "create MachineHealthCheck"}, actions(p))
	kcp := p.Changes[2].Object
	require.Equal(t, "capstan/node:v1.37.2", nested[string](t, p.Changes[1].Object, "spec", "template", "spec", "customImage"))
	require.Len(t, nested[[]any](t, kcp, "spec", "kubeadmConfigSpec", "files"), 1, "the podSecurityStandard patch")

	for _, l := range []client.ObjectList{&clusterv1.ClusterList{}, &clusterv1.ClusterClassList{}, &clusterv1.MachineDeploymentList{}} {
		require.NoError(t, env.Client.List(context.Background(), l, client.InNamespace(ns)))
		items, err := apimeta.ExtractList(l)
		require.NoError(t, err)
		require.Empty(t, items, "the plan wrote nothing (%T)", l)
	}
}

// Once the controller has generated the Cluster: the unchanged file plans nothing; a changed
// variable and replica count show as changes with their diffs; a renamed MachineDeployment entry
// creates the new MachineDeployment and deletes the old one with its health check.
func TestPlan_ChangesAndDeletionsOfAGeneratedCluster(t *testing.T) {
	_, cluster := generatedQuickStart(t)
	ctx := context.Background()

	plans, err := topologyplan.Plan(ctx, env.Client, []*unstructured.Unstructured{cluster})
	require.NoError(t, err)
	require.Empty(t, plans[0].Changes, "the class and templates come from the management cluster; nothing differs")

	changed := cluster.DeepCopy()
	setTopology(t, changed, int64(3), "controlPlane", "replicas")
	vars := nested[[]any](t, changed, "spec", "topology", "variables")
	vars[3].(map[string]any)["value"].(map[string]any)["enforce"] = "restricted"
	plans, err = topologyplan.Plan(ctx, env.Client, []*unstructured.Unstructured{changed})
	require.NoError(t, err)
	require.Equal(t, []string{"change KubeadmControlPlane"}, actions(plans[0]))
	diff := plans[0].Changes[0].Diff
	require.Contains(t, diff, "-  replicas: 1\n")
	require.Contains(t, diff, "+  replicas: 3\n")
	require.True(t, slices.ContainsFunc(strings.Split(diff, "\n"), func(l string) bool {
		return strings.HasPrefix(l, "+") && strings.Contains(l, "restricted") && strings.Contains(l, "enforce")
	}), "the diff shows the new enforce level:\n%s", diff)

	// A version change: the plan is the controller's upgrade orchestration. The control plane (no
	// provider here reports a status.version: still provisioning) cannot move yet, and nothing else
	// reaches it or the MachineDeployment while their upgrade waits, not even the replica count.
	upgraded := changed.DeepCopy()
	setTopology(t, upgraded, "v1.38.0", "version")
	plans, err = topologyplan.Plan(ctx, env.Client, []*unstructured.Unstructured{upgraded})
	require.NoError(t, err)
	require.Empty(t, actions(plans[0]))
	require.Equal(t, []string{"Control plane upgrade from v1.37.2 to v1.38.0 pending: control plane is provisioning",
		"MachineDeployment md-0 upgrade to v1.38.0 deferred: control plane upgrade pending"}, plans[0].Upgrade)

	// A renamed entry: the new MachineDeployment waits for the control plane to be stable
	// (upstream's pending create), the old one goes.
	renamed := cluster.DeepCopy()
	mds := nested[[]any](t, renamed, "spec", "topology", "workers", "machineDeployments")
	mds[0].(map[string]any)["name"] = "md-1"
	plans, err = topologyplan.Plan(ctx, env.Client, []*unstructured.Unstructured{renamed})
	require.NoError(t, err)
	require.Equal(t, []string{"delete MachineHealthCheck", "delete MachineDeployment"}, actions(plans[0]))
	require.Equal(t, []string{"MachineDeployment md-1 creation deferred: control plane provisioning"}, plans[0].Upgrade)
	// Once the control plane reports its version on all its (1) replicas, md-1 is created.
	cl := &clusterv1.Cluster{}
	require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(cluster), cl))
	kcp := &unstructured.Unstructured{}
	kcp.SetGroupVersionKind(cl.Spec.ControlPlaneRef.GroupKind().WithVersion("v1beta2"))
	kcp.SetNamespace(cl.Namespace)
	kcp.SetName(cl.Spec.ControlPlaneRef.Name)
	envtest.UpdateStatus(t, env.Client, kcp, func() {
		require.NoError(t, unstructured.SetNestedMap(kcp.Object, map[string]any{
			"version": "v1.37.2", "replicas": int64(1), "upToDateReplicas": int64(1), "availableReplicas": int64(1)}, "status"))
	})
	plans, err = topologyplan.Plan(ctx, env.Client, []*unstructured.Unstructured{renamed})
	require.NoError(t, err)
	require.Equal(t, []string{"create KubeadmConfigTemplate", "create DockerMachineTemplate", "create MachineDeployment",
		"create MachineHealthCheck", "delete MachineHealthCheck", "delete MachineDeployment"}, actions(plans[0]))
	old := &clusterv1.MachineDeploymentList{}
	require.NoError(t, env.Client.List(ctx, old, client.InNamespace(cluster.GetNamespace())))
	require.Len(t, old.Items, 1)
	require.Equal(t, old.Items[0].Name, plans[0].Changes[5].Object.GetName())
	require.Contains(t, plans[0].Changes[2].Object.GetName(), "md-1")
}

// A variable value the class's schema refuses fails the plan with the field path.
func TestPlan_InvalidVariableFailsWithTheFieldPath(t *testing.T) {
	ns := env.CreateNamespace(t, "plan")
	class, cluster := quickStart(t, ns)
	vars := nested[[]any](t, cluster, "spec", "topology", "variables")
	vars[3].(map[string]any)["value"].(map[string]any)["enabled"] = "yes"
	_, err := topologyplan.Plan(context.Background(), env.Client, append(class, cluster))
	require.ErrorContains(t, err, "Cluster "+ns+"/development: invalid topology for ClusterClass "+ns+"/quick-start")
	require.ErrorContains(t, err, "spec.topology.variables[podSecurityStandard].value.enabled")

	_, err = topologyplan.Plan(context.Background(), env.Client, []*unstructured.Unstructured{cluster})
	require.ErrorContains(t, err, "ClusterClass "+ns+"/quick-start (spec.topology.classRef) is neither in the files nor in the management cluster")
}

// The command reads the files (objects without a namespace go to -n's), prints one line per
// object and the counts, and -o yaml prints the plan as data.
func TestPlanCommand_PrintsTheChangesAsTextAndYAML(t *testing.T) {
	ns := env.CreateNamespace(t, "plan")
	dir := t.TempDir()
	kubeconfig := filepath.Join(dir, "kubeconfig")
	require.NoError(t, os.WriteFile(kubeconfig, env.KubeConfig, 0o600))
	for _, f := range []string{"clusterclass-quick-start.yaml", "cluster-development.yaml"} {
		var docs []string
		for _, o := range example(t, f, "") {
			unstructured.RemoveNestedField(o.Object, "metadata", "namespace")
			b, err := yaml.Marshal(o.Object)
			require.NoError(t, err)
			docs = append(docs, string(b))
		}
		require.NoError(t, os.WriteFile(filepath.Join(dir, f), []byte(strings.Join(docs, "---\n")), 0o600))
	}
	args := []string{"topology", "plan", "--kubeconfig", kubeconfig, "-n", ns,
		"-f", filepath.Join(dir, "cluster-development.yaml"), "-f", filepath.Join(dir, "clusterclass-quick-start.yaml")}
	stdout, stderr, code := ctltest.Run(t, cmd.Execute, args...)
	require.Equal(t, 0, code, stderr)
	require.Contains(t, stdout, "Cluster "+ns+"/development (ClusterClass "+ns+"/quick-start, version v1.37.2):\n")
	require.Contains(t, stdout, "  create KubeadmControlPlane "+ns+"/development-")
	require.Contains(t, stdout, "Plan: 8 to create, 0 to change, 0 to delete\n")

	stdout, stderr, code = ctltest.Run(t, cmd.Execute, append(args, "-o", "yaml")...)
	require.Equal(t, 0, code, stderr)
	var data []topologyplan.ClusterPlan
	require.NoError(t, yaml.Unmarshal([]byte(stdout), &data))
	require.Len(t, data, 1)
	require.Len(t, data[0].Changes, 8)
	require.Equal(t, topologyplan.Create, data[0].Changes[0].Action)

	_, stderr, code = ctltest.Run(t, cmd.Execute, "topology", "plan", "--kubeconfig", kubeconfig)
	require.Equal(t, 1, code)
	require.Contains(t, stderr, "needs the topology Cluster's file: -f cluster.yaml")
}

// A change of the class's worker machine template reaches the DockerMachineTemplate copy, whose
// spec the Docker provider's CRD keeps immutable (it refuses even the dry run the plan compares
// with): the plan shows the change as a template rotation instead of failing.
func TestPlan_AnImmutableTemplateChangeIsARotation(t *testing.T) {
	class, cluster := generatedQuickStart(t)
	ns := cluster.GetNamespace()

	var workerTemplate *unstructured.Unstructured
	for _, o := range class {
		if o.GetKind() == "DockerMachineTemplate" && o.GetName() == "quick-start-default-worker-machinetemplate" {
			workerTemplate = get(t, o.GetAPIVersion(), o.GetKind(), ns, o.GetName())
		}
	}
	require.NotNil(t, workerTemplate)
	require.NoError(t, unstructured.SetNestedSlice(workerTemplate.Object, []any{map[string]any{"containerPath": "/data", "hostPath": "/srv/data"}},
		"spec", "template", "spec", "extraMounts"))
	plans, err := topologyplan.Plan(context.Background(), env.Client, []*unstructured.Unstructured{workerTemplate, cluster})
	require.NoError(t, err)
	require.Equal(t, []string{"change DockerMachineTemplate"}, actions(plans[0]))
	require.Contains(t, plans[0].Changes[0].Note, "template rotation")
	require.Contains(t, plans[0].Changes[0].Diff, "/srv/data")
}

// generatedQuickStart runs the controllers on the quick-start class and its development Cluster,
// created in a new namespace, until the topology is reconciled.
func generatedQuickStart(t *testing.T) (class []*unstructured.Unstructured, cluster *unstructured.Unstructured) {
	t.Helper()
	startControllers(t)
	class, cluster = quickStart(t, env.CreateNamespace(t, "plan"))
	create(t, class...)
	create(t, cluster)
	waitTopologyReconciled(t, cluster.GetNamespace(), cluster.GetName())
	return class, cluster
}
