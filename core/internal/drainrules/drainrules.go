package drainrules

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
)

// MirrorPodAnnotation marks the API-server copies of static pods, which cannot be evicted (the
// kubelet owns them).
const MirrorPodAnnotation = "kubernetes.io/config.mirror"

// SkipWaitForDeleteTimeout is how long a pod on an unreachable Node may have been terminating
// before the drain stops waiting for it: the kubelet that would confirm its end is gone, so it
// never disappears (upstream's SkipWaitForDeleteTimeoutSeconds = 1 in that case).
const SkipWaitForDeleteTimeout = time.Second

// Rule is a MachineDrainRule that selects the Machine being drained, with its pod selectors
// compiled once per drain pass.
type Rule struct {
	Name     string
	Behavior clusterv1.MachineDrainRuleDrainBehavior
	Order    int32
	pods     []podSelector // empty: every Pod
}

// podSelector is one entry of spec.pods: both parts must match.
type podSelector struct {
	pod, namespace labels.Selector
}

// PodDrain is what the drain does with one Pod, and what decided it (a rule, the Pod's label,
// why the drain leaves it, or nothing: the default, Drain in order 0).
type PodDrain struct {
	Pod       *corev1.Pod
	Behavior  clusterv1.MachineDrainRuleDrainBehavior
	Order     int32
	DecidedBy string
	// Left: the drain leaves the Pod whatever rules and labels say (a DaemonSet or static Pod,
	// or one terminating on an unreachable Node); Behavior is then Skip.
	Left bool
}

// MatchingRules reads the MachineDrainRules of the Machine's namespace and keeps those that
// select the Machine, sorted by name: for each Pod the first matching rule decides, as
// upstream. A selector the apiserver accepted but labels cannot parse (a malformed key) is an
// error naming the rule and the field.
func MatchingRules(ctx context.Context, c client.Reader, m *clusterv1.Machine, cluster *clusterv1.Cluster) ([]Rule, error) {
	list := &clusterv1.MachineDrainRuleList{}
	if err := c.List(ctx, list, client.InNamespace(m.Namespace)); err != nil {
		return nil, fmt.Errorf("listing the MachineDrainRules of namespace %s: %w", m.Namespace, err)
	}
	sort.Slice(list.Items, func(i, j int) bool { return list.Items[i].Name < list.Items[j].Name })
	var out []Rule
	for i := range list.Items {
		rule := &list.Items[i]
		applies, err := ruleSelectsMachine(rule, m, cluster)
		if err != nil {
			return nil, err
		}
		if !applies {
			continue
		}
		compiled := Rule{Name: rule.Name, Behavior: rule.Spec.Drain.Behavior}
		if rule.Spec.Drain.Order != nil {
			compiled.Order = *rule.Spec.Drain.Order
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

// ruleSelectsMachine: no spec.machines selects every Machine of the namespace; otherwise one
// entry must match both the Machine's and its Cluster's labels.
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

// needNamespaces reports whether any rule selects Pods by their Namespace's labels, the only
// case in which the workload cluster's Namespaces must be read.
func needNamespaces(rules []Rule) bool {
	for _, r := range rules {
		for _, p := range r.pods {
			if !p.namespace.Empty() {
				return true
			}
		}
	}
	return false
}

// decide applies, in upstream's order, the Pod's cluster.x-k8s.io/drain label ("skip" or
// "wait-completed", case-insensitive; another value is ignored) and then the first rule that
// selects the Pod; without either the Pod is drained in order 0. WaitCompleted is always in
// order 0.
func decide(pod *corev1.Pod, rules []Rule, namespaceLabels map[string]labels.Set) PodDrain {
	if v, ok := pod.Labels[clusterv1.PodDrainLabel]; ok {
		switch {
		case strings.EqualFold(v, "skip"):
			return PodDrain{Pod: pod, Behavior: clusterv1.MachineDrainRuleDrainBehaviorSkip, DecidedBy: "label " + clusterv1.PodDrainLabel + "=" + v}
		case strings.EqualFold(v, "wait-completed"):
			return PodDrain{Pod: pod, Behavior: clusterv1.MachineDrainRuleDrainBehaviorWaitCompleted, DecidedBy: "label " + clusterv1.PodDrainLabel + "=" + v}
		}
	}
	for _, r := range rules {
		if !r.selectsPod(pod, namespaceLabels[pod.Namespace]) {
			continue
		}
		d := PodDrain{Pod: pod, Behavior: r.Behavior, DecidedBy: "MachineDrainRule " + r.Name}
		if r.Behavior == clusterv1.MachineDrainRuleDrainBehaviorDrain {
			d.Order = r.Order
		}
		return d
	}
	return PodDrain{Pod: pod, Behavior: clusterv1.MachineDrainRuleDrainBehaviorDrain}
}

// selectsPod reports whether the rule's spec.pods select the Pod (in a Namespace with
// namespaceLabels); no spec.pods selects every Pod.
func (r Rule) selectsPod(pod *corev1.Pod, namespaceLabels labels.Set) bool {
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

// PodsOnNode lists the Node's Pods that have not finished, each with what the drain does with
// it. The Pods a drain leaves (see leftByDrain) are Skip; so are Pods terminating on an
// unreachable Node for longer than SkipWaitForDeleteTimeout. The Pods are listed by
// spec.nodeName, so c should read the API server, not a cache without that index.
func PodsOnNode(ctx context.Context, c client.Reader, node *corev1.Node, rules []Rule, now time.Time) ([]PodDrain, error) {
	pods := &corev1.PodList{}
	if err := c.List(ctx, pods, client.MatchingFields{"spec.nodeName": node.Name}); err != nil {
		return nil, fmt.Errorf("listing pods on Node %s: %w", node.Name, err)
	}
	var namespaceLabels map[string]labels.Set
	if needNamespaces(rules) {
		namespaces := &corev1.NamespaceList{}
		if err := c.List(ctx, namespaces); err != nil {
			return nil, fmt.Errorf("listing Namespaces for the namespaceSelectors of MachineDrainRules: %w", err)
		}
		namespaceLabels = make(map[string]labels.Set, len(namespaces.Items))
		for _, ns := range namespaces.Items {
			namespaceLabels[ns.Name] = ns.Labels
		}
	}
	unreachable := IsNodeUnreachable(node)
	var out []PodDrain
	for i := range pods.Items {
		pod := &pods.Items[i]
		if pod.Status.Phase == corev1.PodSucceeded || pod.Status.Phase == corev1.PodFailed {
			continue // nothing to move, nothing to wait for: its volumes are released
		}
		why := leftByDrain(pod)
		if why == "" && unreachable && !pod.DeletionTimestamp.IsZero() && now.Sub(pod.DeletionTimestamp.Time) > SkipWaitForDeleteTimeout {
			why = "terminating on an unreachable Node"
		}
		if why != "" {
			out = append(out, PodDrain{Pod: pod, Behavior: clusterv1.MachineDrainRuleDrainBehaviorSkip, DecidedBy: why, Left: true})
			continue
		}
		out = append(out, decide(pod, rules, namespaceLabels))
	}
	return out, nil
}

// IsNodeUnreachable reports whether the Node's Ready condition is Unknown: the node lifecycle
// controller sets that once the kubelet stopped reporting for its grace period, so this already
// means "for longer than a threshold" (upstream's noderefutil.IsNodeUnreachable).
func IsNodeUnreachable(node *corev1.Node) bool {
	for _, c := range node.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionUnknown
		}
	}
	return false
}

// leftByDrain says why a drain leaves a running Pod on the Node whatever the rules say: mirror
// Pods of static Pods (the kubelet owns them) and DaemonSet Pods (their controller would put
// them right back). Empty for any other Pod.
func leftByDrain(pod *corev1.Pod) string {
	if _, ok := pod.Annotations[MirrorPodAnnotation]; ok {
		return "static Pod"
	}
	if ref := metav1.GetControllerOf(pod); ref != nil && ref.Kind == "DaemonSet" {
		return "DaemonSet Pod"
	}
	return ""
}

// Plan is one drain pass: the Pods to evict now (the group of the lowest order among the Pods
// still to go), and the Pods waited for.
type Plan struct {
	EvictNow []PodDrain
	// Terminating: evicted or deleted, still on the Node.
	Terminating []PodDrain
	// WaitCompleted: not evicted, waited for (order 0).
	WaitCompleted []PodDrain
	// Later: to be evicted once the lower groups are gone.
	Later []PodDrain
}

// PlanPass sorts the Pods on the Node (see PodsOnNode) by their drain decision, and keeps for
// eviction now only the group of the lowest order, as upstream: a later group is evicted only
// once every Pod of the lower groups is gone.
func PlanPass(pods []PodDrain) Plan {
	minOrder := int32(math.MaxInt32)
	for _, d := range pods {
		if d.Behavior != clusterv1.MachineDrainRuleDrainBehaviorSkip && d.Order < minOrder {
			minOrder = d.Order
		}
	}
	var plan Plan
	for _, d := range pods {
		switch {
		case d.Behavior == clusterv1.MachineDrainRuleDrainBehaviorSkip:
		case d.Behavior == clusterv1.MachineDrainRuleDrainBehaviorWaitCompleted:
			plan.WaitCompleted = append(plan.WaitCompleted, d)
		case !d.Pod.DeletionTimestamp.IsZero():
			plan.Terminating = append(plan.Terminating, d)
		case d.Order == minOrder:
			plan.EvictNow = append(plan.EvictNow, d)
		default:
			plan.Later = append(plan.Later, d)
		}
	}
	return plan
}

// SelectingPDBs returns the PodDisruptionBudgets of pdbs that select the Pod: those of its
// namespace whose selector matches its labels. An empty or unparsable selector selects nothing
// here (policy/v1 gives an empty selector no Pod).
func SelectingPDBs(pdbs []policyv1.PodDisruptionBudget, pod *corev1.Pod) []*policyv1.PodDisruptionBudget {
	var out []*policyv1.PodDisruptionBudget
	for i := range pdbs {
		pdb := &pdbs[i]
		if pdb.Namespace != pod.Namespace {
			continue
		}
		sel, err := metav1.LabelSelectorAsSelector(pdb.Spec.Selector)
		if err == nil && !sel.Empty() && sel.Matches(labels.Set(pod.Labels)) {
			out = append(out, pdb)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// MaxNamed bounds the objects a message names per list.
const MaxNamed = 5

// DescribePods names the Pods (and what decided their drain), sorted, at most MaxNamed of them.
func DescribePods(pods []PodDrain, withOrder bool) string {
	names := make([]string, 0, len(pods))
	for _, d := range pods {
		names = append(names, DescribePod(d, withOrder))
	}
	return BoundedList(names)
}

// DescribePod is "namespace/name (order 10, MachineDrainRule db-last)": the Pod and what
// decided its drain.
func DescribePod(d PodDrain, withOrder bool) string {
	var why []string
	if withOrder {
		why = append(why, fmt.Sprintf("order %d", d.Order))
	}
	if d.DecidedBy != "" {
		why = append(why, d.DecidedBy)
	}
	name := d.Pod.Namespace + "/" + d.Pod.Name
	if len(why) > 0 {
		name += " (" + strings.Join(why, ", ") + ")"
	}
	return name
}

// BoundedList joins names, sorted, naming at most MaxNamed and counting the rest: a message
// stays readable however many objects a step waits for.
func BoundedList(names []string) string {
	sort.Strings(names)
	if len(names) > MaxNamed {
		return strings.Join(names[:MaxNamed], ", ") + fmt.Sprintf(" and %d more", len(names)-MaxNamed)
	}
	return strings.Join(names, ", ")
}
