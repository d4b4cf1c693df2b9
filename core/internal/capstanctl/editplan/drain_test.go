package editplan_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/envtest"
	"capstan.dev/core/internal/capstanctl/editplan"
	"capstan.dev/core/internal/coretest"
	"capstan.dev/core/internal/drainrules"
)

// onNode gives the Machine named name of md's namespace a Node, created in the workload
// cluster (the envtest API server itself), and returns the Node's name.
func onNode(t *testing.T, md *clusterv1.MachineDeployment, name string) string {
	t.Helper()
	ctx := context.Background()
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: md.Namespace + "-" + name}}
	require.NoError(t, env.Client.Create(ctx, node))
	t.Cleanup(func() { _ = env.Client.Delete(context.Background(), node) })
	m := &clusterv1.Machine{}
	require.NoError(t, env.Client.Get(ctx, client.ObjectKey{Namespace: md.Namespace, Name: name}, m))
	envtest.UpdateStatus(t, env.Client, m, func() { m.Status.NodeRef = clusterv1.MachineNodeReference{Name: node.Name} })
	return node.Name
}

// runningPod creates a running Pod on the Node.
func runningPod(t *testing.T, node, ns, name string, labels map[string]string, mutate ...func(*corev1.Pod)) {
	t.Helper()
	p := coretest.PodOn(t, env.Client, node, ns, name, labels, mutate...)
	envtest.UpdateStatus(t, env.Client, p, func() { p.Status.Phase = corev1.PodRunning })
}

// pdb creates a PodDisruptionBudget selecting app and writes allowed as its
// status.disruptionsAllowed, as the disruption controller would.
func pdb(t *testing.T, ns, name, app string, allowed int32) {
	t.Helper()
	minAvailable := intstr.FromInt32(1)
	b := &policyv1.PodDisruptionBudget{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: policyv1.PodDisruptionBudgetSpec{MinAvailable: &minAvailable,
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": app}}},
	}
	require.NoError(t, env.Client.Create(context.Background(), b))
	envtest.UpdateStatus(t, env.Client, b, func() {
		b.Status.DisruptionsAllowed, b.Status.CurrentHealthy, b.Status.DesiredHealthy, b.Status.ExpectedPods = allowed, 1+allowed, 1, 1+allowed
		b.Status.ObservedGeneration = b.Generation
	})
}

func drainRule(t *testing.T, ns, name string, behavior clusterv1.MachineDrainRuleDrainBehavior, order *int32, app string) {
	t.Helper()
	require.NoError(t, env.Client.Create(context.Background(), &clusterv1.MachineDrainRule{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: clusterv1.MachineDrainRuleSpec{Drain: clusterv1.MachineDrainRuleDrainConfig{Behavior: behavior, Order: order},
			Pods: []clusterv1.MachineDrainRulePodSelector{{Selector: &clusterv1.LabelSelector{MatchLabels: map[string]string{"app": app}}}}},
	}))
}

// TestPlan_NamesWhatHoldsTheDrainsOfTheReplacedMachines: the envtest API server is also the
// workload cluster. The plan names, for each replaced Machine with a Node, the Pods a
// WaitCompleted rule or label waits for, the Pod a later order group evicts, the Pod the
// drain label skips and the evictions a PodDisruptionBudget allowing no disruption refuses;
// not a budget that allows one, nor a Pod not running yet, nor the DaemonSet and static Pods a
// drain always leaves, and nothing for a Machine without a Node.
func TestPlan_NamesWhatHoldsTheDrainsOfTheReplacedMachines(t *testing.T) {
	md := rolledOut(t, rollingUpdate(1, 0))
	ns := md.Namespace
	cl := &clusterv1.Cluster{}
	require.NoError(t, env.Client.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: md.Spec.ClusterName}, cl))
	env.CreateKubeconfigSecret(t, cl)
	nodeA, nodeB := onNode(t, md, "md-a"), onNode(t, md, "md-b")

	drainRule(t, ns, "jobs-wait", clusterv1.MachineDrainRuleDrainBehaviorWaitCompleted, nil, "job")
	drainRule(t, ns, "db-last", clusterv1.MachineDrainRuleDrainBehaviorDrain, ptr.To[int32](10), "db")
	pdb(t, ns, "web-pdb", "web", 0)
	pdb(t, ns, "api-pdb", "api", 1)
	pdb(t, ns, "db-pdb", "db", 0)
	runningPod(t, nodeA, ns, "web", map[string]string{"app": "web"})
	runningPod(t, nodeA, ns, "api", map[string]string{"app": "api"})
	runningPod(t, nodeA, ns, "job", map[string]string{"app": "job"})
	runningPod(t, nodeA, ns, "pinned", map[string]string{clusterv1.PodDrainLabel: "skip"})
	runningPod(t, nodeA, ns, "agent", map[string]string{"app": "web"}, coretest.ControlledBy("DaemonSet", "agent"))
	runningPod(t, nodeA, ns, "static", map[string]string{"app": "web"}, func(p *corev1.Pod) {
		p.Annotations = map[string]string{drainrules.MirrorPodAnnotation: "x"}
	})
	// Not running yet: the eviction API evicts it whatever web-pdb says.
	coretest.PodOn(t, env.Client, nodeA, ns, "pending", map[string]string{"app": "web"})
	runningPod(t, nodeB, ns, "db", map[string]string{"app": "db"})
	runningPod(t, nodeB, ns, "cache", map[string]string{clusterv1.PodDrainLabel: "wait-completed"})
	file := editedFile(t, md, newVersion)

	p := planJSON(t, file).Objects[0]
	require.Equal(t, []string{"md-c", "md-a", "md-b"}, p.Replaced, "the Machine without a Node goes first")
	require.Equal(t, map[string][]string{
		"md-a": {
			ns + "/job (MachineDrainRule jobs-wait): waited for until it completes, never evicted",
			ns + "/pinned (label cluster.x-k8s.io/drain=skip): skipped, left running on the Node",
			ns + "/web: eviction refused until PodDisruptionBudget web-pdb allows a disruption (status.disruptionsAllowed is 0 now)",
		},
		"md-b": {
			ns + "/cache (label cluster.x-k8s.io/drain=wait-completed): waited for until it completes, never evicted",
			ns + "/db (order 10, MachineDrainRule db-last): evicted only once the Pods of lower drain orders are gone",
			ns + "/db: eviction refused until PodDisruptionBudget db-pdb allows a disruption (status.disruptionsAllowed is 0 now)",
		},
	}, p.DrainHolds)
	require.NotContains(t, strings.Join(p.Notes, "\n"), "workload cluster")

	r := run(t, "plan", "-f", file)
	require.Equal(t, 0, r.code, r.stderr)
	require.Contains(t, r.stdout, "  step 4, once the new Machines are available: delete md-b\n"+
		"  the drain of md-a is held by:\n"+
		"    "+ns+"/job (MachineDrainRule jobs-wait): waited for until it completes, never evicted\n"+
		"    "+ns+"/pinned (label cluster.x-k8s.io/drain=skip): skipped, left running on the Node\n"+
		"    "+ns+"/web: eviction refused until PodDisruptionBudget web-pdb allows a disruption (status.disruptionsAllowed is 0 now)\n"+
		"  the drain of md-b is held by:\n"+
		"    "+ns+"/cache (label cluster.x-k8s.io/drain=wait-completed): waited for until it completes, never evicted\n")
	require.NotContains(t, r.stdout, "md-c is held")
}

// TestPlan_UnreadableWorkloadClusterIsANoteNotAFailure: without the kubeconfig Secret the plan
// still plans the rollout and says, naming the Cluster and the error, that the drains are not
// known.
func TestPlan_UnreadableWorkloadClusterIsANoteNotAFailure(t *testing.T) {
	md := rolledOut(t, rollingUpdate(1, 0))
	onNode(t, md, "md-a")
	file := editedFile(t, md, newVersion)

	r := run(t, "plan", "-f", file)
	require.Equal(t, 0, r.code, r.stderr)
	require.Contains(t, r.stdout, "replaces 3 Machines, in this order: ")
	require.Contains(t, r.stdout, "  what holds the drains of the Machines of Cluster "+md.Namespace+"/"+md.Spec.ClusterName+
		" is not known: its workload cluster cannot be read: reading Secret "+md.Namespace+"/"+md.Spec.ClusterName+"-kubeconfig")
	p := planJSON(t, file).Objects[0]
	require.Empty(t, p.DrainHolds)
}

// TestObjectPlan_DeletedNamesEachExistingMachineOnce: with OnDelete a scale down removes Machines
// the plan also counts as replaced; their drains are planned and printed once, and a Machine the
// plan creates has no drain.
func TestObjectPlan_DeletedNamesEachExistingMachineOnce(t *testing.T) {
	p := editplan.ObjectPlan{Replaced: []string{"md-a", "md-b"}, Removed: []string{"md-b", "(a new Machine)", "md-c"}}
	require.Equal(t, []string{"md-a", "md-b", "md-c"}, p.Deleted())
}
