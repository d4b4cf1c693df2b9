package machine

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
)

// drainRule is a MachineDrainRule that selects the Machine being drained, with its pod
// selectors compiled once per drain pass.
type drainRule struct {
	name     string
	behavior clusterv1.MachineDrainRuleDrainBehavior
	order    int32
	pods     []podSelector // empty: every Pod
}

// podSelector is one entry of spec.pods: both parts must match.
type podSelector struct {
	pod, namespace labels.Selector
}

// podDrain is what the drain does with one Pod, and what decided it (a rule, the Pod's
// label, or nothing: the default, Drain in order 0).
type podDrain struct {
	pod       *corev1.Pod
	behavior  clusterv1.MachineDrainRuleDrainBehavior
	order     int32
	decidedBy string
}

// matchingDrainRules reads the MachineDrainRules of the Machine's namespace and keeps
// those that select the Machine, sorted by name: for each Pod the first matching rule
// decides, as upstream. A selector the apiserver accepted but labels cannot parse (a
// malformed key) is an error naming the rule and the field.
func matchingDrainRules(ctx context.Context, c client.Client, m *clusterv1.Machine, cluster *clusterv1.Cluster) ([]drainRule, error) {
	list := &clusterv1.MachineDrainRuleList{}
	if err := c.List(ctx, list, client.InNamespace(m.Namespace)); err != nil {
		return nil, fmt.Errorf("listing the MachineDrainRules of namespace %s: %w", m.Namespace, err)
	}
	sort.Slice(list.Items, func(i, j int) bool { return list.Items[i].Name < list.Items[j].Name })
	var out []drainRule
	for i := range list.Items {
		rule := &list.Items[i]
		applies, err := ruleSelectsMachine(rule, m, cluster)
		if err != nil {
			return nil, err
		}
		if !applies {
			continue
		}
		compiled := drainRule{name: rule.Name, behavior: rule.Spec.Drain.Behavior}
		if rule.Spec.Drain.Order != nil {
			compiled.order = *rule.Spec.Drain.Order
		}
		for j, p := range rule.Spec.Pods {
			path := fmt.Sprintf("spec.pods[%d]", j)
			podSel, err := compileSelector(rule.Name, path+".selector", p.Selector)
			if err != nil {
				return nil, err
			}
			nsSel, err := compileSelector(rule.Name, path+".namespaceSelector", p.NamespaceSelector)
			if err != nil {
				return nil, err
			}
			compiled.pods = append(compiled.pods, podSelector{pod: podSel, namespace: nsSel})
		}
		out = append(out, compiled)
	}
	return out, nil
}

// ruleSelectsMachine: no spec.machines selects every Machine of the namespace; otherwise
// one entry must match both the Machine's and its Cluster's labels.
func ruleSelectsMachine(rule *clusterv1.MachineDrainRule, m *clusterv1.Machine, cluster *clusterv1.Cluster) (bool, error) {
	if len(rule.Spec.Machines) == 0 {
		return true, nil
	}
	for j, sel := range rule.Spec.Machines {
		path := fmt.Sprintf("spec.machines[%d]", j)
		machineSel, err := compileSelector(rule.Name, path+".selector", sel.Selector)
		if err != nil {
			return false, err
		}
		clusterSel, err := compileSelector(rule.Name, path+".clusterSelector", sel.ClusterSelector)
		if err != nil {
			return false, err
		}
		if machineSel.Matches(labels.Set(m.Labels)) && clusterSel.Matches(labels.Set(cluster.Labels)) {
			return true, nil
		}
	}
	return false, nil
}

// compileSelector turns an omitted or empty selector into one that selects everything.
func compileSelector(rule, path string, s *clusterv1.LabelSelector) (labels.Selector, error) {
	if s == nil || s.IsEmpty() {
		return labels.Everything(), nil
	}
	sel, err := metav1.LabelSelectorAsSelector(s.ToMetav1())
	if err != nil {
		return nil, fmt.Errorf("MachineDrainRule %s: %s is invalid: %w; fix or delete the rule", rule, path, err)
	}
	return sel, nil
}

// rulesNeedNamespaces reports whether any rule selects Pods by their Namespace's labels,
// the only case in which the workload cluster's Namespaces must be read.
func rulesNeedNamespaces(rules []drainRule) bool {
	for _, r := range rules {
		for _, p := range r.pods {
			if !p.namespace.Empty() {
				return true
			}
		}
	}
	return false
}

// decidePodDrain applies, in upstream's order, the Pod's cluster.x-k8s.io/drain label
// ("skip" or "wait-completed", case-insensitive; another value is ignored) and then the
// first rule that selects the Pod; without either the Pod is drained in order 0.
// WaitCompleted is always in order 0.
func decidePodDrain(pod *corev1.Pod, rules []drainRule, namespaceLabels map[string]labels.Set) podDrain {
	if v, ok := pod.Labels[clusterv1.PodDrainLabel]; ok {
		switch {
		case strings.EqualFold(v, "skip"):
			return podDrain{pod: pod, behavior: clusterv1.MachineDrainRuleDrainBehaviorSkip, decidedBy: "label " + clusterv1.PodDrainLabel + "=" + v}
		case strings.EqualFold(v, "wait-completed"):
			return podDrain{pod: pod, behavior: clusterv1.MachineDrainRuleDrainBehaviorWaitCompleted, decidedBy: "label " + clusterv1.PodDrainLabel + "=" + v}
		}
	}
	for _, r := range rules {
		if !r.selectsPod(pod, namespaceLabels[pod.Namespace]) {
			continue
		}
		d := podDrain{pod: pod, behavior: r.behavior, decidedBy: "MachineDrainRule " + r.name}
		if r.behavior == clusterv1.MachineDrainRuleDrainBehaviorDrain {
			d.order = r.order
		}
		return d
	}
	return podDrain{pod: pod, behavior: clusterv1.MachineDrainRuleDrainBehaviorDrain}
}

func (r drainRule) selectsPod(pod *corev1.Pod, namespaceLabels labels.Set) bool {
	if len(r.pods) == 0 {
		return true
	}
	for _, p := range r.pods {
		if p.pod.Matches(labels.Set(pod.Labels)) && p.namespace.Matches(namespaceLabels) {
			return true
		}
	}
	return false
}

// drainPlan is one drain pass: the Pods to evict now (the group of the lowest order
// among the Pods still to go), and the Pods waited for.
type drainPlan struct {
	evictNow []podDrain
	// terminating: evicted or deleted, still on the Node.
	terminating []podDrain
	// waitCompleted: not evicted, waited for (order 0).
	waitCompleted []podDrain
	// later: to be evicted once the lower groups are gone.
	later []podDrain
}

// planDrain sorts the Pods on the Node (see podsOnNode) by their drain decision, and
// keeps for eviction now only the group of the lowest order, as upstream: a later group
// is evicted only once every Pod of the lower groups is gone.
func planDrain(pods []podDrain) drainPlan {
	minOrder := int32(math.MaxInt32)
	for _, d := range pods {
		if d.behavior != clusterv1.MachineDrainRuleDrainBehaviorSkip && d.order < minOrder {
			minOrder = d.order
		}
	}
	var plan drainPlan
	for _, d := range pods {
		switch {
		case d.behavior == clusterv1.MachineDrainRuleDrainBehaviorSkip:
		case d.behavior == clusterv1.MachineDrainRuleDrainBehaviorWaitCompleted:
			plan.waitCompleted = append(plan.waitCompleted, d)
		case !d.pod.DeletionTimestamp.IsZero():
			plan.terminating = append(plan.terminating, d)
		case d.order == minOrder:
			plan.evictNow = append(plan.evictNow, d)
		default:
			plan.later = append(plan.later, d)
		}
	}
	return plan
}

// maxPodsNamed bounds the objects a condition message names per list.
const maxPodsNamed = 5

// describePods names the Pods (and what decided their drain), sorted, at most
// maxPodsNamed of them.
func describePods(pods []podDrain, withOrder bool) string {
	names := make([]string, 0, len(pods))
	for _, d := range pods {
		var why []string
		if withOrder {
			why = append(why, fmt.Sprintf("order %d", d.order))
		}
		if d.decidedBy != "" {
			why = append(why, d.decidedBy)
		}
		name := d.pod.Namespace + "/" + d.pod.Name
		if len(why) > 0 {
			name += " (" + strings.Join(why, ", ") + ")"
		}
		names = append(names, name)
	}
	return boundedList(names)
}

// boundedList joins names, sorted, naming at most maxPodsNamed and counting the rest: a
// condition message stays readable however many objects a step waits for.
func boundedList(names []string) string {
	sort.Strings(names)
	if len(names) > maxPodsNamed {
		return strings.Join(names[:maxPodsNamed], ", ") + fmt.Sprintf(" and %d more", len(names)-maxPodsNamed)
	}
	return strings.Join(names, ", ")
}
