package describe

import (
	"bytes"
	"encoding/json"
	"flag"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

var now = time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)

func ago(d time.Duration) metav1.Time { return metav1.NewTime(now.Add(-d)) }

func cond(t string, s metav1.ConditionStatus, reason, msg string, age time.Duration) metav1.Condition {
	return metav1.Condition{Type: t, Status: s, Reason: reason, Message: msg, LastTransitionTime: ago(age)}
}

func machine(name string, labels map[string]string, conds ...metav1.Condition) clusterv1.Machine {
	return clusterv1.Machine{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns", Labels: labels},
		Spec:       clusterv1.MachineSpec{ClusterName: "c1"},
		Status:     clusterv1.MachineStatus{Conditions: conds},
	}
}

func provider(kind, name string, conds ...map[string]any) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetAPIVersion("infrastructure.cluster.x-k8s.io/v1beta2")
	u.SetKind(kind)
	u.SetNamespace("ns")
	u.SetName(name)
	if len(conds) > 0 {
		list := make([]any, 0, len(conds))
		for _, c := range conds {
			list = append(list, c)
		}
		_ = unstructured.SetNestedSlice(u.Object, list, "status", "conditions")
	}
	return u
}

var (
	readyTrue = cond(clusterv1.ReadyCondition, metav1.ConditionTrue, "Ready", "", 5*time.Minute)
	cpLabels  = map[string]string{clusterv1.MachineControlPlaneLabel: "", clusterv1.MachineControlPlaneNameLabel: "c1-cp"}
	mdLabels  = map[string]string{clusterv1.MachineDeploymentNameLabel: "c1-md-0"}
)

// sample is a Cluster with every part: infrastructure, a control plane with two
// Machines in different states, a MachineDeployment with three equal Machines and
// one that differs, an empty MachinePool, a pool Machine and a loose Machine.
func sample() Objects {
	return Objects{
		Cluster: &clusterv1.Cluster{
			ObjectMeta: metav1.ObjectMeta{Name: "c1", Namespace: "ns"},
			Status: clusterv1.ClusterStatus{Conditions: []metav1.Condition{
				cond(clusterv1.AvailableCondition, metav1.ConditionFalse, "NotAvailable", "* WorkersAvailable: 1 of 4 Machines not ready\n* more", 2*time.Minute+30*time.Second),
				cond(clusterv1.ClusterInfrastructureReadyCondition, metav1.ConditionTrue, "Ready", "", 10*time.Minute),
			}},
		},
		Infrastructure: &External{
			Ref: clusterv1.ContractVersionedObjectReference{APIGroup: "infrastructure.cluster.x-k8s.io", Kind: "DockerCluster", Name: "c1"},
			Object: provider("DockerCluster", "c1", map[string]any{
				"type": "Ready", "status": "True", "reason": "Ready", "lastTransitionTime": ago(10 * time.Minute).UTC().Format(time.RFC3339)}),
		},
		ControlPlane: &External{
			Ref: clusterv1.ContractVersionedObjectReference{APIGroup: "controlplane.cluster.x-k8s.io", Kind: "KubeadmControlPlane", Name: "c1-cp"},
			Object: provider("KubeadmControlPlane", "c1-cp", map[string]any{
				"type": "Available", "status": "True", "reason": "Available", "lastTransitionTime": ago(5 * time.Hour).UTC().Format(time.RFC3339)}),
		},
		MachineDeployments: []clusterv1.MachineDeployment{{
			ObjectMeta: metav1.ObjectMeta{Name: "c1-md-0", Namespace: "ns"},
			Spec:       clusterv1.MachineDeploymentSpec{ClusterName: "c1"},
			Status: clusterv1.MachineDeploymentStatus{Conditions: []metav1.Condition{
				cond(clusterv1.AvailableCondition, metav1.ConditionTrue, "Available", "", time.Hour)}},
		}},
		MachinePools: []clusterv1.MachinePool{{
			ObjectMeta: metav1.ObjectMeta{Name: "c1-mp-0", Namespace: "ns"},
			Spec:       clusterv1.MachinePoolSpec{ClusterName: "c1"},
		}},
		Machines: []clusterv1.Machine{
			machine("c1-md-0-d", mdLabels, cond(clusterv1.ReadyCondition, metav1.ConditionFalse, "NotReady", "NodeHealthy: Node not ready", time.Minute)),
			machine("c1-md-0-c", mdLabels, readyTrue),
			machine("c1-md-0-a", mdLabels, cond(clusterv1.ReadyCondition, metav1.ConditionTrue, "Ready", "", 7*time.Minute)),
			machine("c1-md-0-b", mdLabels, cond(clusterv1.ReadyCondition, metav1.ConditionTrue, "Ready", "", 3*time.Minute)),
			machine("c1-cp-y", cpLabels, cond(clusterv1.ReadyCondition, metav1.ConditionUnknown, "NodeInspectionFailed", "cannot reach the workload cluster", 30*time.Second)),
			machine("c1-cp-x", cpLabels, readyTrue,
				cond(clusterv1.AvailableCondition, metav1.ConditionFalse, "NotAvailable", "must not be used: Ready wins", time.Second)),
			machine("c1-mp-0-i0", map[string]string{clusterv1.MachinePoolNameLabel: "c1-mp-0"}, readyTrue),
			machine("loose", nil, readyTrue),
		},
	}
}

// shape renders a tree compactly: one line per node, indented by depth.
func shape(n *Node) string {
	var b strings.Builder
	var walk func(n *Node, depth int)
	walk = func(n *Node, depth int) {
		b.WriteString(strings.Repeat("  ", depth))
		if n.Role != "" {
			b.WriteString(n.Role + ":")
		}
		if len(n.GroupedNames) > 0 {
			b.WriteString(n.Kind + "[" + strings.Join(n.GroupedNames, ",") + "]")
		} else if n.Kind != "" {
			b.WriteString(n.Kind + "/" + n.Name)
		}
		b.WriteString(" " + string(n.Ready) + "\n")
		for _, c := range n.Children {
			walk(c, depth+1)
		}
	}
	walk(n, 0)
	return b.String()
}

func TestBuild_PlacesEveryObjectAndGroupsEqualMachines(t *testing.T) {
	got := shape(Build(sample(), Options{Grouping: true}))
	want := `Cluster/c1 False
  ClusterInfrastructure:DockerCluster/c1 True
  ControlPlane:KubeadmControlPlane/c1-cp True
    Machine/c1-cp-x True
    Machine/c1-cp-y Unknown
  Workers: 
    MachineDeployment/c1-md-0 True
      Machine[c1-md-0-a,c1-md-0-b,c1-md-0-c] True
      Machine/c1-md-0-d False
    MachinePool/c1-mp-0 
      Machine/c1-mp-0-i0 True
    Machine/loose True
`
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("tree mismatch (-want +got):\n%s", d)
	}
}

func TestBuild_WithoutGroupingKeepsEveryMachine(t *testing.T) {
	got := shape(Build(sample(), Options{Grouping: false}))
	require.Contains(t, got, "      Machine/c1-md-0-a True\n      Machine/c1-md-0-b True\n      Machine/c1-md-0-c True\n      Machine/c1-md-0-d False\n")
	require.NotContains(t, got, "[")
}

func TestBuild_IsIndependentOfInputOrder(t *testing.T) {
	want := Build(sample(), Options{Grouping: true})
	for i := range 20 {
		objs := sample()
		r := rand.New(rand.NewPCG(uint64(i), 7))
		r.Shuffle(len(objs.Machines), func(a, b int) { objs.Machines[a], objs.Machines[b] = objs.Machines[b], objs.Machines[a] })
		if d := cmp.Diff(want, Build(objs, Options{Grouping: true})); d != "" {
			t.Fatalf("shuffle %d changed the tree (-want +got):\n%s", i, d)
		}
	}
}

func TestBuild_ReadyIsReadyElseAvailable(t *testing.T) {
	root := Build(sample(), Options{})
	require.Equal(t, clusterv1.AvailableCondition, root.ReadyCondition, "Cluster has no Ready condition")
	require.Equal(t, metav1.ConditionFalse, root.Ready)
	require.Equal(t, "NotAvailable", root.Reason)
	cp := root.Children[1]
	require.Equal(t, clusterv1.AvailableCondition, cp.ReadyCondition)
	cpx := cp.Children[0]
	require.Equal(t, "c1-cp-x", cpx.Name)
	require.Equal(t, clusterv1.ReadyCondition, cpx.ReadyCondition, "Ready wins over Available")
	require.Equal(t, metav1.ConditionTrue, cpx.Ready)
	pool := root.Children[2].Children[1]
	require.Equal(t, "MachinePool", pool.Kind)
	require.Empty(t, pool.ReadyCondition, "neither Ready nor Available")
	require.Empty(t, pool.Ready)
}

func TestBuild_GroupsOnlyMachinesInTheSameStateAndKeepsTheNewestSince(t *testing.T) {
	objs := sample()
	objs.Machines = []clusterv1.Machine{
		machine("m-1", mdLabels, cond("Ready", metav1.ConditionFalse, "NotReady", "drain: 3 pods left", 9*time.Minute)),
		machine("m-2", mdLabels, cond("Ready", metav1.ConditionFalse, "NotReady", "drain: 3 pods left", 2*time.Minute)),
		machine("m-3", mdLabels, cond("Ready", metav1.ConditionFalse, "NotReady", "drain: 1 pod left", time.Minute)),
		machine("m-4", mdLabels, cond("Ready", metav1.ConditionFalse, "NotReady", "drain: 3 pods left", 4*time.Minute)),
	}
	objs.Machines[3].DeletionTimestamp = ptrTime(ago(time.Minute))
	md := Build(objs, Options{Grouping: true}).Children[2].Children[0]
	require.Len(t, md.Children, 3)
	g := md.Children[0]
	require.Equal(t, []string{"m-1", "m-2"}, g.GroupedNames, "m-3 differs by message, m-4 by deleting")
	require.Empty(t, g.Name)
	require.Equal(t, ago(2*time.Minute).Time, g.Since.Time, "newest transition of the group")
	require.Equal(t, "m-3", md.Children[1].Name)
	require.Equal(t, "m-4", md.Children[2].Name)
	require.True(t, md.Children[2].Deleting)
}

func ptrTime(t metav1.Time) *metav1.Time { return &t }

func TestBuild_ShowConditionsListsThemSortedAndStopsGrouping(t *testing.T) {
	f, err := ParseConditionFilter("machine, KubeadmControlPlane/c1-cp")
	require.NoError(t, err)
	root := Build(sample(), Options{Grouping: true, ShowConditions: f})
	require.Nil(t, root.Conditions, "Cluster not selected")
	cp := root.Children[1]
	require.Len(t, cp.Conditions, 1)
	require.Equal(t, "Available", cp.Conditions[0].Type)
	require.Equal(t, metav1.ConditionTrue, cp.Conditions[0].Status)
	require.True(t, cp.Conditions[0].Since.Equal(ptrTime(ago(5*time.Hour))), "since is %v", cp.Conditions[0].Since)
	require.Equal(t, []string{"Available", "Ready"}, []string{cp.Children[0].Conditions[0].Type, cp.Children[0].Conditions[1].Type})
	md := root.Children[2].Children[0]
	require.Len(t, md.Children, 4, "Machines whose conditions are shown are not grouped")

	all, err := ParseConditionFilter("all")
	require.NoError(t, err)
	root = Build(sample(), Options{ShowConditions: all})
	require.Len(t, root.Conditions, 2)
	require.Equal(t, "Available", root.Conditions[0].Type)
}

func TestParseConditionFilter(t *testing.T) {
	for _, bad := range []string{"Machine/", "/name", "a/b/c", "Cluster,,Machine"} {
		_, err := ParseConditionFilter(bad)
		require.ErrorContains(t, err, "Kind/name", bad)
	}
	f, err := ParseConditionFilter("Machine/m1")
	require.NoError(t, err)
	require.True(t, f.Matches("Machine", "m1"))
	require.False(t, f.Matches("Machine", "m2"))
	require.False(t, ConditionFilter{}.Matches("Cluster", "c"))
}

func TestBuild_UnreadableProviderObjectSaysWhy(t *testing.T) {
	objs := sample()
	objs.Infrastructure = &External{Ref: objs.Infrastructure.Ref, Err: "CRD dockerclusters.infrastructure.cluster.x-k8s.io for kind DockerCluster not found: is the provider that serves it installed?"}
	objs.ControlPlane = nil
	objs.Machines = objs.Machines[:5]
	root := Build(objs, Options{Grouping: true})
	infra := root.Children[0]
	require.Equal(t, "DockerCluster", infra.Kind)
	require.Empty(t, infra.Ready)
	require.Contains(t, infra.Message, "is the provider that serves it installed?")
	cp := root.Children[1]
	require.Equal(t, RoleControlPlane, cp.Role, "control plane Machines without controlPlaneRef get a ControlPlane group")
	require.Empty(t, cp.Kind)
	require.Len(t, cp.Children, 1)
	require.Equal(t, "c1-cp-y", cp.Children[0].Name)
}

func TestBuild_MalformedProviderConditionsAreReportedNotPanicked(t *testing.T) {
	objs := sample()
	_ = unstructured.SetNestedField(objs.ControlPlane.Object.Object, "oops", "status", "conditions")
	cp := Build(objs, Options{}).Children[1]
	require.Contains(t, cp.Message, "status.conditions")
}

func TestPrintTable_Golden(t *testing.T) {
	f, err := ParseConditionFilter("Machine/c1-cp-y")
	require.NoError(t, err)
	var buf bytes.Buffer
	require.NoError(t, PrintTable(&buf, Build(sample(), Options{Grouping: true, ShowConditions: f}), now))
	golden(t, "tree.txt", buf.Bytes())
}

func TestNode_DataOutputKeepsNamesTimesAndWholeMessages(t *testing.T) {
	b, err := json.MarshalIndent(Build(sample(), Options{Grouping: true}), "", "  ")
	require.NoError(t, err)
	golden(t, "tree.json", append(b, '\n'))
	s := string(b)
	require.Contains(t, s, `"since": "2026-05-01T11:57:30Z"`)
	require.Contains(t, s, `"groupedNames": [`)
	require.Contains(t, s, `"message": "* WorkersAvailable: 1 of 4 Machines not ready\n* more"`)
}

func TestShorten(t *testing.T) {
	require.Equal(t, "one ...", shorten("one\ntwo"))
	require.Equal(t, "one", shorten("one\n\n"))
	require.Equal(t, "a b", shorten("a\tb"))
	long := strings.Repeat("x", 150)
	got := shorten(long)
	require.Len(t, got, maxMessage)
	require.True(t, strings.HasSuffix(got, "..."))
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		require.NoError(t, os.WriteFile(path, got, 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "run go test -update to create %s", path)
	if d := cmp.Diff(string(want), string(got)); d != "" {
		t.Errorf("%s mismatch (-want +got), rerun with -update if intended:\n%s", path, d)
	}
}

// A Cluster built from a ClusterClass shows the class and the topology version, in the table's
// first line and in the data output; other Clusters show neither.
func TestBuild_TopologyClusterShowsItsClassAndVersion(t *testing.T) {
	objs := sample()
	require.Nil(t, Build(objs, Options{}).Topology)

	objs.Cluster = objs.Cluster.DeepCopy()
	objs.Cluster.Spec.Topology = clusterv1.Topology{ClassRef: clusterv1.ClusterClassRef{Name: "quick-start"}, Version: "v1.37.2"}
	root := Build(objs, Options{})
	require.Equal(t, &Topology{Class: "ns/quick-start", Version: "v1.37.2"}, root.Topology)

	objs.Cluster.Spec.Topology.ClassRef.Namespace = "classes"
	root = Build(objs, Options{})
	require.Equal(t, "classes/quick-start", root.Topology.Class)
	var buf bytes.Buffer
	require.NoError(t, PrintTable(&buf, root, now))
	first, _, _ := strings.Cut(buf.String(), "\n")
	require.Equal(t, "ClusterClass: classes/quick-start, topology version: v1.37.2", first)
	b, err := json.Marshal(root)
	require.NoError(t, err)
	require.Contains(t, string(b), `"topology":{"class":"classes/quick-start","version":"v1.37.2"}`)

	// During a chained upgrade, the plans follow on the second line.
	objs.Cluster.Spec.Topology.Version = "v1.39.1"
	objs.Cluster.Status.ControlPlane = &clusterv1.ClusterControlPlaneStatus{UpgradePlan: []string{"v1.39.1"}}
	objs.Cluster.Status.Workers = &clusterv1.WorkersStatus{UpgradePlan: []string{"v1.38.3", "v1.39.1"}}
	buf.Reset()
	require.NoError(t, PrintTable(&buf, Build(objs, Options{}), now))
	lines := strings.SplitN(buf.String(), "\n", 3)
	require.Equal(t, "Upgrade plan: control plane v1.39.1; workers v1.38.3 → v1.39.1", lines[1])
}
