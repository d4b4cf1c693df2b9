package editplan_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/envtest"
	"capstan.dev/core/internal/capstanctl/editplan"
)

func newVersion(md *clusterv1.MachineDeployment) { md.Spec.Template.Spec.Version = "v1.37.3" }

func TestPlan_VersionChangeWithSurgeCreatesFirstThenReplacesOneAtATime(t *testing.T) {
	md := rolledOut(t, rollingUpdate(1, 0))
	file := editedFile(t, md, newVersion)

	res := planJSON(t, file)
	require.Len(t, res.Objects, 1)
	p := res.Objects[0]
	require.Equal(t, editplan.Replace, p.Outcome)
	require.Equal(t, []string{"md-a", "md-b", "md-c"}, p.Replaced)
	require.Equal(t, []editplan.Step{
		{Create: 1, Surge: 1},
		{Create: 1, Surge: 1, Delete: []string{"md-a"}},
		{Create: 1, Surge: 1, Delete: []string{"md-b"}},
		{Delete: []string{"md-c"}},
	}, p.Steps)

	r := run(t, "plan", "-f", file, "--fail-on-replace")
	require.Equal(t, 3, r.code, "a replacement fails the plan with its own exit code: %s", r.stderr)
	require.Contains(t, r.stdout, "strategy: RollingUpdate (maxSurge 1, maxUnavailable 0, of 3 replicas)")
	require.Contains(t, r.stdout, "replaces 3 Machines, in this order: md-a, md-b, md-c")
	require.Contains(t, r.stdout, "step 1: create 1 (1 surge)")
	require.Contains(t, r.stdout, "step 2, once the new Machines are available: delete md-a, create 1 (1 surge)")
	require.Contains(t, r.stdout, "Plan: 3 Machines replaced, 0 added, 0 removed\n")
	require.Contains(t, r.stderr, "--fail-on-replace")
}

func TestPlan_VersionChangeWithoutSurgeDeletesBeforeCreating(t *testing.T) {
	md := rolledOut(t, rollingUpdate(0, 1))
	p := planJSON(t, editedFile(t, md, newVersion)).Objects[0]
	require.Equal(t, editplan.Replace, p.Outcome)
	require.Equal(t, []string{"md-a", "md-b", "md-c"}, p.Replaced)
	require.Equal(t, []editplan.Step{
		{Create: 1, Delete: []string{"md-a"}},
		{Create: 1, Delete: []string{"md-b"}},
		{Create: 1, Delete: []string{"md-c"}},
	}, p.Steps)
}

func TestPlan_OnDeleteReplacesOnlyWhatTheUserDeletes(t *testing.T) {
	md := rolledOut(t, clusterv1.MachineDeploymentRolloutStrategy{Type: clusterv1.OnDeleteMachineDeploymentStrategyType})
	p := planJSON(t, editedFile(t, md, newVersion)).Objects[0]
	require.Equal(t, editplan.Replace, p.Outcome)
	require.Equal(t, []string{"md-a", "md-b", "md-c"}, p.Replaced)
	require.Empty(t, p.Steps, "nothing happens until a Machine is deleted")
	require.Contains(t, p.Notes[len(p.Notes)-1], "OnDelete strategy replaces nothing until you delete Machines")
}

func TestPlan_LabelOnlyChangeIsInPlaceAndPassesFailOnReplace(t *testing.T) {
	md := rolledOut(t, rollingUpdate(1, 0))
	file := editedFile(t, md, func(md *clusterv1.MachineDeployment) { md.Spec.Template.Labels["team"] = "storage" })

	r := run(t, "plan", "-f", file, "--fail-on-replace")
	require.Equal(t, 0, r.code, r.stderr)
	require.Contains(t, r.stdout, "MachineDeployment "+md.Namespace+"/md ("+file+", object 1): in-place")
	require.Contains(t, r.stdout, "in place (no Machine replaced): spec.template.metadata.labels")
	require.NotContains(t, r.stdout, "replaces")

	p := planJSON(t, file).Objects[0]
	require.Equal(t, editplan.InPlace, p.Outcome)
	require.Empty(t, p.Replaced)
	require.Empty(t, p.Steps)
}

func TestPlan_ReplicasChangeListsAddedAndRemovedMachines(t *testing.T) {
	md := rolledOut(t, rollingUpdate(1, 0))

	up := planJSON(t, editedFile(t, md, func(md *clusterv1.MachineDeployment) { md.Spec.Replicas = ptr.To[int32](5) })).Objects[0]
	require.Equal(t, editplan.Scale, up.Outcome)
	require.Equal(t, 2, up.Added)
	require.Empty(t, up.Replaced)
	require.Empty(t, up.Removed)

	marked := &clusterv1.Machine{}
	require.NoError(t, env.Client.Get(context.Background(), client.ObjectKey{Namespace: md.Namespace, Name: "md-c"}, marked))
	envtest.Update(t, env.Client, marked, func() { marked.Annotations = map[string]string{clusterv1.DeleteMachineAnnotation: ""} })
	down := planJSON(t, editedFile(t, md, func(md *clusterv1.MachineDeployment) { md.Spec.Replicas = ptr.To[int32](1) })).Objects[0]
	require.Equal(t, editplan.Scale, down.Outcome)
	require.Equal(t, []string{"md-c", "md-a"}, down.Removed, "the MachineSet's deletion order: the Machine marked for deletion, then by name")
	require.Empty(t, down.Replaced)
}

func TestPlan_RefusedEditReportsTheAPIServersMessage(t *testing.T) {
	md := rolledOut(t, rollingUpdate(1, 0))
	file := editedFile(t, md, func(md *clusterv1.MachineDeployment) {
		md.Spec.ClusterName = "other"
		md.Spec.Template.Spec.ClusterName = "other"
	})
	r := run(t, "plan", "-f", file)
	require.Equal(t, 1, r.code)
	require.Contains(t, r.stderr, file+", object 1: the management cluster refuses the edit of MachineDeployment "+md.Namespace+"/md")
	require.Contains(t, r.stderr, "clusterName is immutable")
}

func TestPlan_DryRunLeavesTheObjectUnchanged(t *testing.T) {
	md := rolledOut(t, rollingUpdate(1, 0))
	before := md.ResourceVersion
	r := run(t, "plan", "-f", editedFile(t, md, newVersion))
	require.Equal(t, 0, r.code, r.stderr)
	after := &clusterv1.MachineDeployment{}
	require.NoError(t, env.Client.Get(context.Background(), client.ObjectKeyFromObject(md), after))
	require.Equal(t, before, after.ResourceVersion)
	require.Equal(t, "v1.37.2", after.Spec.Template.Spec.Version)
}

func TestPlan_MissingObjectIsCreatedByApplyAndReplacesNothing(t *testing.T) {
	md := rolledOut(t, rollingUpdate(1, 0))
	r := run(t, "plan", "-f", editedFile(t, md, func(md *clusterv1.MachineDeployment) { md.Name = "md-new" }), "--fail-on-replace")
	require.Equal(t, 0, r.code, r.stderr)
	require.Contains(t, r.stdout, "/md-new")
	require.Contains(t, r.stdout, "not found: `kubectl apply` creates it; no existing Machine is replaced")
}

func TestPlan_UnknownKindAndBadFieldsNameTheDocument(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		path := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(path, []byte(content), 0o600))
		return path
	}
	cm := write("cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n")
	r := run(t, "plan", "-f", cm)
	require.Equal(t, 1, r.code)
	require.Contains(t, r.stderr, cm+", object 1: ConfigMap default/x (v1) is not planned")

	bad := write("bad.yaml", "apiVersion: cluster.x-k8s.io/v1beta2\nkind: MachineDeployment\nmetadata:\n  name: x\nspec:\n  replicaz: 3\n")
	r = run(t, "plan", "-f", bad)
	require.Equal(t, 1, r.code)
	require.Contains(t, r.stderr, bad+", object 1: MachineDeployment default/x")
	require.Contains(t, r.stderr, "replicaz")

	kcp := write("kcp.yaml", "apiVersion: controlplane.cluster.x-k8s.io/v1beta2\nkind: KubeadmControlPlane\nmetadata:\n  name: cp\n")
	r = run(t, "plan", "-f", kcp, "--fail-on-replace")
	require.Equal(t, 0, r.code, r.stderr)
	require.Contains(t, r.stdout, "KubeadmControlPlane default/cp (")
	require.Contains(t, r.stdout, "not found: `kubectl apply` creates it")
}

func TestPlan_MachineSetReplicasChangeRemovesInItsDeletionOrder(t *testing.T) {
	md := rolledOut(t, rollingUpdate(1, 0))
	sets := &clusterv1.MachineSetList{}
	require.NoError(t, env.Client.List(context.Background(), sets, client.InNamespace(md.Namespace)))
	require.Len(t, sets.Items, 1)
	ms := sets.Items[0]
	edited := &clusterv1.MachineSet{
		TypeMeta:   metav1.TypeMeta{APIVersion: clusterv1.GroupVersion.String(), Kind: "MachineSet"},
		ObjectMeta: metav1.ObjectMeta{Namespace: ms.Namespace, Name: ms.Name},
		Spec:       *ms.Spec.DeepCopy(),
	}
	edited.Spec.Replicas = ptr.To[int32](2)
	data, err := yaml.Marshal(edited)
	require.NoError(t, err)
	file := filepath.Join(t.TempDir(), "ms.yaml")
	require.NoError(t, os.WriteFile(file, data, 0o600))

	p := planJSON(t, file).Objects[0]
	require.Equal(t, editplan.Scale, p.Outcome)
	require.Equal(t, []string{"md-a"}, p.Removed)
	require.Empty(t, p.Replaced)
	require.Contains(t, p.Notes[0], "controlled by MachineDeployment md")
}

// TestPlan_EditPlansWhatTheEditorSaved: --edit opens the live MachineDeployment in $KUBE_EDITOR,
// as kubectl edit does, and plans what was saved without applying it; saving no change plans
// nothing; a missing object or a malformed argument is named.
func TestPlan_EditPlansWhatTheEditorSaved(t *testing.T) {
	md := rolledOut(t, rollingUpdate(1, 0))
	t.Setenv("KUBE_EDITOR", "sed -i s/v1.37.2/v1.37.3/")
	r := run(t, "plan", "--edit", "machinedeployment/"+md.Name, "-n", md.Namespace)
	require.Equal(t, 0, r.code, r.stderr)
	require.Contains(t, r.stdout, "replaces 3 Machines, in this order: md-a, md-b, md-c")
	live := md.DeepCopy()
	require.NoError(t, env.Client.Get(context.Background(), client.ObjectKeyFromObject(md), live))
	require.Equal(t, "v1.37.2", live.Spec.Template.Spec.Version, "planned, not applied")
	require.Equal(t, md.ResourceVersion, live.ResourceVersion)

	t.Setenv("KUBE_EDITOR", "true")
	r = run(t, "plan", "--edit", "machinedeployments.cluster.x-k8s.io/"+md.Name, "-n", md.Namespace)
	require.Equal(t, 0, r.code, r.stderr)
	require.Equal(t, "No change saved to machinedeployments.cluster.x-k8s.io/"+md.Name+": nothing to plan\n", r.stdout)

	r = run(t, "plan", "--edit", "machinedeployment/nope", "-n", md.Namespace)
	require.Equal(t, 1, r.code)
	require.Contains(t, r.stderr, "reading MachineDeployment "+md.Namespace+"/nope")
	r = run(t, "plan", "--edit", "md.yaml")
	require.Equal(t, 1, r.code)
	require.Contains(t, r.stderr, `--edit "md.yaml": give KIND/NAME, such as machinedeployment/md-0`)
	r = run(t, "plan", "--edit", "machinedeployment/"+md.Name, "-f", "md.yaml")
	require.Contains(t, r.stderr, "takes -f or --edit, not both")
}
