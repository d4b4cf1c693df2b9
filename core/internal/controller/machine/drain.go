package machine

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/remote"
)

// skipWaitForDeleteTimeout is how long a pod on an unreachable Node may have been
// terminating before the drain stops waiting for it: the kubelet that would
// confirm its end is gone, so it never disappears (upstream's
// SkipWaitForDeleteTimeoutSeconds = 1 in that case).
const skipWaitForDeleteTimeout = time.Second

// mirrorPodAnnotation marks the API-server copies of static pods, which cannot be
// evicted (the kubelet owns them).
const mirrorPodAnnotation = "kubernetes.io/config.mirror"

// drainAndDetach cordons and drains the Machine's Node by eviction (so
// PodDisruptionBudgets are respected), then waits for volumes to detach. done is
// false while it waits; the Deleting condition then says what for.
func (r *Reconciler) drainAndDetach(ctx context.Context, s *scope) (ctrl.Result, bool, error) {
	m := s.machine
	now := time.Now()
	if m.Status.Deletion == nil {
		m.Status.Deletion = &clusterv1.MachineDeletionStatus{}
	}
	key := client.ObjectKeyFromObject(s.cluster)
	// The Node is read from the cache (its informer runs for reconcileNode anyway), Pods live:
	// every read of the uncached client waits for the workload client's rate limit, shared by
	// all the Cluster's Machines.
	cached, err := r.Workload.GetClient(ctx, key)
	var c client.Client
	if err == nil {
		c, err = r.Workload.GetUncachedClient(ctx, key)
	}
	if err != nil {
		if errors.Is(err, remote.ErrClusterNotConnected) {
			s.deleting = deletingStatus{clusterv1.MachineDeletingDrainingNodeReason,
				fmt.Sprintf("Waiting to drain Node %s: %v", m.Status.NodeRef.Name, err)}
			return ctrl.Result{RequeueAfter: r.drainRequeue()}, false, nil
		}
		return ctrl.Result{}, false, err
	}
	node := &corev1.Node{}
	if err := cached.Get(ctx, client.ObjectKey{Name: m.Status.NodeRef.Name}, node); err != nil {
		if apierrors.IsNotFound(err) {
			return ctrl.Result{}, true, nil // nothing left to drain or detach
		}
		return ctrl.Result{}, false, fmt.Errorf("reading Node %s: %w", m.Status.NodeRef.Name, err)
	}

	if _, skip := m.Annotations[clusterv1.ExcludeNodeDrainingAnnotation]; !skip {
		if m.Status.Deletion.NodeDrainStartTime.IsZero() {
			m.Status.Deletion.NodeDrainStartTime = metav1.NewTime(now)
		}
		if timeoutPassed(m.Status.Deletion.NodeDrainStartTime, m.Spec.Deletion.NodeDrainTimeoutSeconds, now) {
			ctrl.LoggerFrom(ctx).Info("Node drain timed out: continuing the deletion without it", "Node", node.Name)
		} else {
			rules, err := matchingDrainRules(ctx, r.Client, m, s.cluster)
			if err != nil {
				s.deleting = deletingStatus{clusterv1.MachineDeletingDrainingNodeReason, fmt.Sprintf("Cannot drain Node %s: %v", node.Name, err)}
				return ctrl.Result{RequeueAfter: r.drainRequeue()}, false, nil
			}
			evict := newEvictor(func(ctx context.Context) (*rest.Config, error) { return r.Workload.GetRESTConfig(ctx, key) })
			progress, err := drainNode(ctx, c, evict, node, rules, now)
			if err != nil {
				return ctrl.Result{}, false, err
			}
			if progress != "" {
				s.deleting = deletingStatus{clusterv1.MachineDeletingDrainingNodeReason, fmt.Sprintf(
					"Drain not completed yet (started at %s): %s", m.Status.Deletion.NodeDrainStartTime.UTC().Format(time.RFC3339), progress)}
				return ctrl.Result{RequeueAfter: r.drainRequeue()}, false, nil
			}
		}
	}

	// An unreachable Node's volumes are never reported detached: its kubelet is gone.
	if _, skip := m.Annotations[clusterv1.ExcludeWaitForNodeVolumeDetachAnnotation]; !skip && len(node.Status.VolumesAttached) > 0 && !isNodeUnreachable(node) {
		if m.Status.Deletion.WaitForNodeVolumeDetachStartTime.IsZero() {
			m.Status.Deletion.WaitForNodeVolumeDetachStartTime = metav1.NewTime(now)
		}
		if !timeoutPassed(m.Status.Deletion.WaitForNodeVolumeDetachStartTime, m.Spec.Deletion.NodeVolumeDetachTimeoutSeconds, now) {
			var vols []string
			for _, v := range node.Status.VolumesAttached {
				vols = append(vols, string(v.Name))
			}
			sort.Strings(vols)
			s.deleting = deletingStatus{clusterv1.MachineDeletingWaitingForVolumeDetachReason,
				fmt.Sprintf("Waiting for %d volumes to detach from Node %s: %s", len(vols), node.Name, strings.Join(vols, ", "))}
			return ctrl.Result{RequeueAfter: r.drainRequeue()}, false, nil
		}
		ctrl.LoggerFrom(ctx).Info("Volume detach timed out: continuing the deletion", "Node", node.Name)
	}
	return ctrl.Result{}, true, nil
}

// drainNode cordons the Node and runs one drain pass: it evicts the Pods of the
// lowest drain order still on the Node (MachineDrainRules and the Pod label
// cluster.x-k8s.io/drain decide behavior and order) and returns an empty progress
// string once no Pod is left to wait for, otherwise what is left and why. On an
// unreachable Node Pods terminating for longer than skipWaitForDeleteTimeout are not
// waited for.
func drainNode(ctx context.Context, c client.Client, evict evictFunc, node *corev1.Node, rules []drainRule, now time.Time) (string, error) {
	if err := cordon(ctx, c, node); err != nil {
		return "", err
	}
	pods, err := podsToDrain(ctx, c, node, rules, now)
	if err != nil {
		return "", err
	}
	plan := planDrain(pods)
	var blocked []string
	evicted := 0
	for _, d := range plan.evictNow {
		pod := d.pod
		ctrl.LoggerFrom(ctx).Info("Evicting pod", "Node", node.Name, "Pod", client.ObjectKeyFromObject(pod))
		err := evict(ctx, pod)
		switch {
		case err == nil, apierrors.IsNotFound(err):
			evicted++
		case apierrors.IsTooManyRequests(err):
			blocked = append(blocked, fmt.Sprintf("%s/%s (%s)", pod.Namespace, pod.Name, blockingPDBs(ctx, c, pod)))
		default:
			return "", fmt.Errorf("evicting pod %s/%s: %w", pod.Namespace, pod.Name, err)
		}
	}
	return drainProgress(plan, evicted, blocked), nil
}

// drainProgress says what one drain pass did and what it waits for; empty when the
// drain is complete.
func drainProgress(plan drainPlan, evicted int, blocked []string) string {
	var parts []string
	if evicted > 0 {
		parts = append(parts, fmt.Sprintf("evicted %d pods", evicted))
	}
	if len(blocked) > 0 {
		sort.Strings(blocked)
		parts = append(parts, "eviction blocked by PodDisruptionBudget for "+strings.Join(blocked, ", "))
	}
	if len(plan.terminating) > 0 {
		parts = append(parts, fmt.Sprintf("waiting for %d pods to terminate: %s", len(plan.terminating), describePods(plan.terminating, false)))
	}
	if len(plan.waitCompleted) > 0 {
		parts = append(parts, fmt.Sprintf("waiting for %d pods to complete, without evicting them: %s", len(plan.waitCompleted), describePods(plan.waitCompleted, false)))
	}
	if len(plan.later) > 0 {
		parts = append(parts, fmt.Sprintf("after those are gone, evicting %d pods of a higher drain order: %s", len(plan.later), describePods(plan.later, true)))
	}
	return strings.Join(parts, "; ")
}

func cordon(ctx context.Context, c client.Client, node *corev1.Node) error {
	if node.Spec.Unschedulable {
		return nil
	}
	ctrl.LoggerFrom(ctx).Info("Cordoning Node", "Node", node.Name)
	cordoned := node.DeepCopy()
	cordoned.Spec.Unschedulable = true
	if err := c.Patch(ctx, cordoned, client.MergeFrom(node)); err != nil {
		return fmt.Errorf("cordoning Node %s: %w", node.Name, err)
	}
	return nil
}

// podsToDrain lists the Node's Pods that a drain must deal with (see mustEvict) with
// their drain decision; Pods terminating on an unreachable Node for longer than
// skipWaitForDeleteTimeout are left out.
func podsToDrain(ctx context.Context, c client.Client, node *corev1.Node, rules []drainRule, now time.Time) ([]podDrain, error) {
	pods := &corev1.PodList{}
	if err := c.List(ctx, pods, client.MatchingFields{"spec.nodeName": node.Name}); err != nil {
		return nil, fmt.Errorf("listing pods on Node %s: %w", node.Name, err)
	}
	var namespaceLabels map[string]labels.Set
	if rulesNeedNamespaces(rules) {
		namespaces := &corev1.NamespaceList{}
		if err := c.List(ctx, namespaces); err != nil {
			return nil, fmt.Errorf("listing Namespaces for the namespaceSelectors of MachineDrainRules: %w", err)
		}
		namespaceLabels = make(map[string]labels.Set, len(namespaces.Items))
		for _, ns := range namespaces.Items {
			namespaceLabels[ns.Name] = ns.Labels
		}
	}
	unreachable := isNodeUnreachable(node)
	var out []podDrain
	for i := range pods.Items {
		pod := &pods.Items[i]
		if !mustEvict(pod) {
			continue
		}
		if unreachable && !pod.DeletionTimestamp.IsZero() && now.Sub(pod.DeletionTimestamp.Time) > skipWaitForDeleteTimeout {
			continue
		}
		out = append(out, decidePodDrain(pod, rules, namespaceLabels))
	}
	return out, nil
}

// isNodeUnreachable reports whether the Node's Ready condition is Unknown: the node
// lifecycle controller sets that once the kubelet stopped reporting for its grace
// period, so this already means "for longer than a threshold" (upstream's
// noderefutil.IsNodeUnreachable).
func isNodeUnreachable(node *corev1.Node) bool {
	for _, c := range node.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionUnknown
		}
	}
	return false
}

// mustEvict leaves out pods a drain does not move: finished pods, mirror pods of
// static pods, and DaemonSet pods (their controller would put them right back).
func mustEvict(pod *corev1.Pod) bool {
	if pod.Status.Phase == corev1.PodSucceeded || pod.Status.Phase == corev1.PodFailed {
		return false
	}
	if _, ok := pod.Annotations[mirrorPodAnnotation]; ok {
		return false
	}
	if ref := metav1.GetControllerOf(pod); ref != nil && ref.Kind == "DaemonSet" {
		return false
	}
	return true
}

// blockingPDBs names the PodDisruptionBudgets that select the pod.
func blockingPDBs(ctx context.Context, c client.Client, pod *corev1.Pod) string {
	pdbs := &policyv1.PodDisruptionBudgetList{}
	if err := c.List(ctx, pdbs, client.InNamespace(pod.Namespace)); err != nil {
		return "PodDisruptionBudget unknown: " + err.Error()
	}
	var names []string
	for _, pdb := range pdbs.Items {
		sel, err := metav1.LabelSelectorAsSelector(pdb.Spec.Selector)
		if err == nil && !sel.Empty() && sel.Matches(labels.Set(pod.Labels)) {
			names = append(names, "PDB "+pdb.Name)
		}
	}
	if len(names) == 0 {
		return "PodDisruptionBudget"
	}
	return strings.Join(names, ", ")
}

// evictFunc asks the API server to evict a pod.
type evictFunc func(ctx context.Context, pod *corev1.Pod) error

// newEvictor returns an evictFunc that does not retry: client-go would otherwise
// honour the Retry-After of a PodDisruptionBudget refusal and block the reconcile
// for up to ten retries. The drain itself comes back on its own schedule.
//
// The client is built from config on the first eviction: most drains (a Node with nothing left
// to evict) need none.
func newEvictor(config func(context.Context) (*rest.Config, error)) evictFunc {
	var cs kubernetes.Interface
	return func(ctx context.Context, pod *corev1.Pod) error {
		if cs == nil {
			cfg, err := config(ctx)
			if err != nil {
				return err
			}
			if cs, err = kubernetes.NewForConfig(cfg); err != nil {
				return fmt.Errorf("building a client for evictions: %w", err)
			}
		}
		return cs.CoreV1().RESTClient().Post().
			Namespace(pod.Namespace).Resource("pods").Name(pod.Name).SubResource("eviction").
			Body(&policyv1.Eviction{ObjectMeta: metav1.ObjectMeta{Name: pod.Name, Namespace: pod.Namespace}}).
			MaxRetries(0).Do(ctx).Error()
	}
}

func (r *Reconciler) drainRequeue() time.Duration {
	if r.DrainRequeue > 0 {
		return r.DrainRequeue
	}
	return 20 * time.Second
}
