package machine

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/conditions"
	"capstan.dev/contracts/envtest"
	"capstan.dev/core/internal/coretest"
	"capstan.dev/core/internal/drainrules"
)

func createDrainRule(t *testing.T, ns, name string, behavior clusterv1.MachineDrainRuleDrainBehavior, order *int32,
	machines []clusterv1.MachineDrainRuleMachineSelector, pods ...clusterv1.MachineDrainRulePodSelector) {
	t.Helper()
	require.NoError(t, env.Client.Create(context.Background(), &clusterv1.MachineDrainRule{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: clusterv1.MachineDrainRuleSpec{Drain: clusterv1.MachineDrainRuleDrainConfig{Behavior: behavior, Order: order},
			Machines: machines, Pods: pods},
	}))
}

func createPodOn(t *testing.T, node, ns, name string, podLabels map[string]string, mutate ...func(*corev1.Pod)) *corev1.Pod {
	t.Helper()
	return coretest.PodOn(t, env.Client, node, ns, name, podLabels, mutate...)
}

func podsLeft(t *testing.T, namespaces ...string) []string {
	t.Helper()
	var left []string
	for _, ns := range namespaces {
		pods := &corev1.PodList{}
		require.NoError(t, env.Client.List(context.Background(), pods, client.InNamespace(ns)))
		for _, p := range pods.Items {
			left = append(left, p.Name)
		}
	}
	return left
}

func selectPods(l map[string]string) clusterv1.MachineDrainRulePodSelector {
	return clusterv1.MachineDrainRulePodSelector{Selector: &clusterv1.LabelSelector{MatchLabels: l}}
}

// TestDrainNode_AppliesMachineDrainRulesAsUpstream drains a Node pass by pass under rules
// of every behavior, against the real apiserver: the group of the lowest order is evicted
// first, WaitCompleted Pods are waited for and never evicted, Skip Pods (by rule, by
// namespaceSelector, or by the cluster.x-k8s.io/drain label) are left alone, and a rule
// whose machines selector does not select the Machine has no effect.
func TestDrainNode_AppliesMachineDrainRulesAsUpstream(t *testing.T) {
	ctx := context.Background()
	ns := env.CreateNamespace(t, "drainrules")
	infraNS := env.CreateNamespace(t, "drainrules-infra")
	nsObj := &corev1.Namespace{}
	require.NoError(t, env.Client.Get(ctx, client.ObjectKey{Name: infraNS}, nsObj))
	envtest.Update(t, env.Client, nsObj, func() { nsObj.Labels["team"] = "infra" })
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: ns + "-n"}}
	require.NoError(t, env.Client.Create(ctx, node))
	t.Cleanup(func() { _ = env.Client.Delete(context.Background(), node) })

	// First by name, but for other Machines only: if it applied, nothing would be drained.
	createDrainRule(t, ns, "aaa-other-machines", clusterv1.MachineDrainRuleDrainBehaviorSkip, nil,
		[]clusterv1.MachineDrainRuleMachineSelector{{Selector: &clusterv1.LabelSelector{MatchLabels: map[string]string{"role": "other"}}}})
	createDrainRule(t, ns, "db-last", clusterv1.MachineDrainRuleDrainBehaviorDrain, ptr.To[int32](10),
		[]clusterv1.MachineDrainRuleMachineSelector{{ClusterSelector: &clusterv1.LabelSelector{MatchLabels: map[string]string{"stage": "prod"}}}},
		selectPods(map[string]string{"app": "db"}))
	createDrainRule(t, ns, "jobs-wait", clusterv1.MachineDrainRuleDrainBehaviorWaitCompleted, nil, nil, selectPods(map[string]string{"app": "job"}))
	createDrainRule(t, ns, "infra-skip", clusterv1.MachineDrainRuleDrainBehaviorSkip, nil, nil,
		clusterv1.MachineDrainRulePodSelector{NamespaceSelector: &clusterv1.LabelSelector{MatchLabels: map[string]string{"team": "infra"}}})

	createPodOn(t, node.Name, ns, "web", map[string]string{"app": "web"})
	createPodOn(t, node.Name, ns, "db", map[string]string{"app": "db"})
	job := createPodOn(t, node.Name, ns, "job", map[string]string{"app": "job"})
	createPodOn(t, node.Name, ns, "pinned", map[string]string{"app": "web", clusterv1.PodDrainLabel: "Skip"})
	createPodOn(t, node.Name, infraNS, "agent", map[string]string{"app": "web"})

	m := &clusterv1.Machine{ObjectMeta: metav1.ObjectMeta{Name: "m", Namespace: ns, Labels: map[string]string{"role": "worker"}}}
	cluster := &clusterv1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: "c", Namespace: ns, Labels: map[string]string{"stage": "prod"}}}
	rules, err := drainrules.MatchingRules(ctx, env.Client, m, cluster)
	require.NoError(t, err)
	evict := newEvictor(func(context.Context) (*rest.Config, error) { return env.Config, nil })
	pass := func() string {
		t.Helper()
		progress, err := drainNode(ctx, env.Client, evict, node, rules, time.Now())
		require.NoError(t, err)
		return progress
	}

	waitJob := "waiting for 1 pods to complete, without evicting them: " + ns + "/job (MachineDrainRule jobs-wait)"
	dbLater := "after those are gone, evicting 1 pods of a higher drain order: " + ns + "/db (order 10, MachineDrainRule db-last)"
	require.Equal(t, "evicted 1 pods; "+waitJob+"; "+dbLater, pass())
	require.ElementsMatch(t, []string{"db", "job", "pinned", "agent"}, podsLeft(t, ns, infraNS))
	require.Equal(t, waitJob+"; "+dbLater, pass(), "the db group waits for the job, which is never evicted")
	require.ElementsMatch(t, []string{"db", "job", "pinned", "agent"}, podsLeft(t, ns, infraNS))

	envtest.UpdateStatus(t, env.Client, job, func() { job.Status.Phase = corev1.PodSucceeded })
	require.Equal(t, "evicted 1 pods", pass())
	require.Equal(t, "", pass(), "the skipped pods do not hold the drain")
	require.ElementsMatch(t, []string{"job", "pinned", "agent"}, podsLeft(t, ns, infraNS))
}

// TestMatchingDrainRules_NamesTheRuleAndFieldOfAnUnparsableSelector: the schema bounds
// selectors but not the syntax of their keys; such a rule stops the drain with an error
// naming it, instead of being ignored.
func TestMatchingDrainRules_NamesTheRuleAndFieldOfAnUnparsableSelector(t *testing.T) {
	ns := env.CreateNamespace(t, "drainrules-bad")
	createDrainRule(t, ns, "bad", clusterv1.MachineDrainRuleDrainBehaviorSkip, nil, nil,
		selectPods(map[string]string{"not a key!": "x"}))
	m := &clusterv1.Machine{ObjectMeta: metav1.ObjectMeta{Name: "m", Namespace: ns}}
	_, err := drainrules.MatchingRules(context.Background(), env.Client, m, &clusterv1.Cluster{})
	require.ErrorContains(t, err, "MachineDrainRule bad: spec.pods[0].selector is invalid")
}

// TestMachine_DeletingConditionNamesThePodAndRuleTheDrainWaitsFor deletes a Machine whose
// Node runs a Pod under a WaitCompleted rule: the Deleting condition names the Pod and the
// rule while the Pod runs, and the deletion completes once the Pod is gone.
func TestMachine_DeletingConditionNamesThePodAndRuleTheDrainWaitsFor(t *testing.T) {
	startController(t)
	f := newFixture(t)
	ctx := context.Background()
	m, node := f.runningMachine(t, "waits")
	createDrainRule(t, f.ns, "batch", clusterv1.MachineDrainRuleDrainBehaviorWaitCompleted, nil, nil, selectPods(map[string]string{"app": "batch"}))
	pod := createPodOn(t, node.Name, f.ns, "nightly", map[string]string{"app": "batch"})

	require.NoError(t, env.Client.Delete(ctx, m))
	want := "waiting for 1 pods to complete, without evicting them: " + f.ns + "/nightly (MachineDrainRule batch)"
	envtest.WaitFor(t, 30*time.Second, "the Deleting condition to name the pod and the rule", func() (bool, error) {
		got, err := getMachine(t, m)
		if err != nil {
			return false, err
		}
		c := conditions.Get(got, clusterv1.MachineDeletingCondition)
		return c != nil && c.Reason == clusterv1.MachineDeletingDrainingNodeReason && strings.Contains(c.Message, want), nil
	})
	require.NoError(t, env.Client.Delete(ctx, pod))
	waitMachineGone(t, m, 30*time.Second)
}
