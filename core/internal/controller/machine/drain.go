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
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/remote"
	"capstan.dev/core/internal/drainrules"
)

// evictionPassTimeout bounds the time one drain pass spends evicting (upstream's 10s).
const evictionPassTimeout = 10 * time.Second

// drainAndDetach cordons and drains the Machine's Node by eviction (so
// PodDisruptionBudgets are respected), then waits for volumes to detach. done is
// false while it waits; the Deleting condition then says what for.
func (r *Reconciler) drainAndDetach(ctx context.Context, s *scope) (ctrl.Result, bool, error) {
	m := s.machine
	if m.Status.Deletion == nil {
		m.Status.Deletion = &clusterv1.MachineDeletionStatus{}
	}
	key := client.ObjectKeyFromObject(s.cluster)
	// The Node is read from the cache (its informer runs for reconcileNode anyway), Pods,
	// VolumeAttachments and PersistentVolumes live: every read of the uncached client waits for
	// the workload client's rate limit, shared by all the Cluster's Machines.
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
	now := time.Now()
	if res, done, err := r.drain(ctx, s, c, node, now); err != nil || !done {
		return res, done, err
	}
	return r.waitForVolumeDetach(ctx, s, c, node, now)
}

// drain runs one drain pass unless the Machine excludes the drain or its
// nodeDrainTimeoutSeconds passed; done once no Pod is left to wait for.
func (r *Reconciler) drain(ctx context.Context, s *scope, c client.Client, node *corev1.Node, now time.Time) (ctrl.Result, bool, error) {
	m := s.machine
	if _, skip := m.Annotations[clusterv1.ExcludeNodeDrainingAnnotation]; skip {
		return ctrl.Result{}, true, nil
	}
	if m.Status.Deletion.NodeDrainStartTime.IsZero() {
		m.Status.Deletion.NodeDrainStartTime = metav1.NewTime(now)
		r.recordDrain(m, ReasonStartedDrainNode, "Draining Node %s", node.Name)
	}
	if timeoutPassed(m.Status.Deletion.NodeDrainStartTime, m.Spec.Deletion.NodeDrainTimeoutSeconds, now) {
		ctrl.LoggerFrom(ctx).Info("Node drain timed out: continuing the deletion without it", "Node", node.Name)
		if drainFinishing(m) {
			r.recordDrain(m, ReasonTimedOutDrainNode, "Drain of Node %s timed out after %ds: continuing the deletion without it",
				node.Name, *m.Spec.Deletion.NodeDrainTimeoutSeconds)
		}
		return ctrl.Result{}, true, nil
	}
	rules, err := drainrules.MatchingRules(ctx, r.Client, m, s.cluster)
	if err != nil {
		s.deleting = deletingStatus{clusterv1.MachineDeletingDrainingNodeReason, fmt.Sprintf("Cannot drain Node %s: %v", node.Name, err)}
		return ctrl.Result{RequeueAfter: r.drainRequeue()}, false, nil
	}
	key := client.ObjectKeyFromObject(s.cluster)
	evict := newEvictor(func(ctx context.Context) (*rest.Config, error) { return r.Workload.GetRESTConfig(ctx, key) })
	progress, err := drainNode(ctx, c, evict, node, rules, now)
	if err != nil {
		r.recordDrain(m, ReasonFailedDrainNode, "Draining Node %s failed: %v", node.Name, err)
		return ctrl.Result{}, false, err
	}
	if progress != "" {
		s.deleting = deletingStatus{clusterv1.MachineDeletingDrainingNodeReason, fmt.Sprintf(
			"Drain not completed yet (started at %s): %s", m.Status.Deletion.NodeDrainStartTime.UTC().Format(time.RFC3339), progress)}
		return ctrl.Result{RequeueAfter: r.drainRequeue()}, false, nil
	}
	if drainFinishing(m) {
		r.recordDrain(m, ReasonSuccessfulDrainNode, "Drained Node %s", node.Name)
	}
	return ctrl.Result{}, true, nil
}

// drainNode cordons the Node and runs one drain pass: it evicts the Pods of the
// lowest drain order still on the Node (MachineDrainRules and the Pod label
// cluster.x-k8s.io/drain decide behavior and order) and returns an empty progress
// string once no Pod is left to wait for, otherwise what is left and why. A Pod whose
// eviction fails does not stop the pass: the others are still evicted, and the progress
// names each Pod that could not be evicted with the reason. On an unreachable Node Pods
// terminating for longer than drainrules.SkipWaitForDeleteTimeout are not waited for.
func drainNode(ctx context.Context, c client.Client, evict evictFunc, node *corev1.Node, rules []drainrules.Rule, now time.Time) (string, error) {
	if err := cordon(ctx, c, node); err != nil {
		return "", err
	}
	pods, err := drainrules.PodsOnNode(ctx, c, node, rules, now)
	if err != nil {
		return "", err
	}
	plan := drainrules.PlanPass(pods)
	return drainProgress(plan, evictPods(ctx, c, evict, node, plan.EvictNow)), nil
}

// evictionResult is what the evictions of one drain pass did.
type evictionResult struct {
	evicted int
	// failed groups the Pods whose eviction failed by the reason.
	failed map[string][]drainrules.PodDrain
}

// evictPods evicts each Pod in turn; a failure is recorded with its reason and the next Pod
// is evicted all the same, as upstream: one Pod a PodDisruptionBudget protects, or one in a
// terminating Namespace, must not keep the rest of the Node from being drained.
//
// The evictions of one pass take at most evictionPassTimeout, as upstream's: the Pods not
// reached by then are named and evicted by the next pass.
func evictPods(ctx context.Context, c client.Client, evict evictFunc, node *corev1.Node, pods []drainrules.PodDrain) evictionResult {
	log := ctrl.LoggerFrom(ctx)
	res := evictionResult{failed: map[string][]drainrules.PodDrain{}}
	passCtx, cancel := context.WithTimeout(ctx, evictionPassTimeout)
	defer cancel()
	for _, d := range pods {
		if passCtx.Err() != nil {
			reason := fmt.Sprintf("not reached within this pass's %s for evictions; the next pass evicts it", evictionPassTimeout)
			res.failed[reason] = append(res.failed[reason], d)
			continue
		}
		key := client.ObjectKeyFromObject(d.Pod)
		log.Info("Evicting pod", "Node", node.Name, "Pod", key)
		err := evict(passCtx, d.Pod)
		if err == nil || apierrors.IsNotFound(err) {
			res.evicted++
			continue
		}
		reason := evictionFailure(ctx, c, d.Pod, err)
		log.Info("Eviction failed: evicting the other pods", "Node", node.Name, "Pod", key, "reason", reason)
		res.failed[reason] = append(res.failed[reason], d)
	}
	return res
}

// evictionFailure says why an eviction failed, in words a user can act on.
func evictionFailure(ctx context.Context, c client.Client, pod *corev1.Pod, err error) string {
	// A refusal by a PodDisruptionBudget (429) needs no more words: its causes name the
	// budget and why it allows no disruption now.
	switch {
	case apierrors.IsForbidden(err) && apierrors.HasStatusCause(err, corev1.NamespaceTerminatingCause):
		return "Namespace " + pod.Namespace + " is being deleted and refuses evictions; the namespace controller deletes the Pod"
	case apierrors.IsInternalError(err):
		// The eviction API refuses a Pod that more than one budget selects with a 500:
		// name them, so the user knows which to merge.
		if pdbs := selectingPDBNames(ctx, c, pod); len(pdbs) > 1 {
			return statusWithCauses(err) + " (PodDisruptionBudgets " + strings.Join(pdbs, ", ") + ")"
		}
	}
	return statusWithCauses(err)
}

// statusWithCauses is the message of an API error with the causes the API server gave.
func statusWithCauses(err error) string {
	var status apierrors.APIStatus
	if !errors.As(err, &status) {
		return err.Error()
	}
	msg := status.Status().Message
	if d := status.Status().Details; d != nil {
		for _, cause := range d.Causes {
			if !strings.Contains(msg, cause.Message) {
				msg += " " + cause.Message
			}
		}
	}
	return msg
}

// maxEvictionFailures bounds the distinct eviction failures a condition message names.
const maxEvictionFailures = 5

// drainProgress says what one drain pass did and what it waits for; empty when the
// drain is complete.
func drainProgress(plan drainrules.Plan, res evictionResult) string {
	var parts []string
	if res.evicted > 0 {
		parts = append(parts, fmt.Sprintf("evicted %d pods", res.evicted))
	}
	parts = append(parts, describeEvictionFailures(res.failed)...)
	if len(plan.Terminating) > 0 {
		parts = append(parts, fmt.Sprintf("waiting for %d pods to terminate: %s", len(plan.Terminating), drainrules.DescribePods(plan.Terminating, false)))
	}
	if len(plan.WaitCompleted) > 0 {
		parts = append(parts, fmt.Sprintf("waiting for %d pods to complete, without evicting them: %s", len(plan.WaitCompleted), drainrules.DescribePods(plan.WaitCompleted, false)))
	}
	if len(plan.Later) > 0 {
		parts = append(parts, fmt.Sprintf("after those are gone, evicting %d pods of a higher drain order: %s", len(plan.Later), drainrules.DescribePods(plan.Later, true)))
	}
	return strings.Join(parts, "; ")
}

// describeEvictionFailures names, for each reason (sorted, at most maxEvictionFailures), the
// Pods whose eviction failed for it; the rest are counted.
func describeEvictionFailures(failed map[string][]drainrules.PodDrain) []string {
	reasons := make([]string, 0, len(failed))
	for reason := range failed {
		reasons = append(reasons, reason)
	}
	sort.Strings(reasons)
	var parts []string
	for i, reason := range reasons {
		if i == maxEvictionFailures {
			pods := 0
			for _, r := range reasons[i:] {
				pods += len(failed[r])
			}
			parts = append(parts, fmt.Sprintf("%d more eviction errors for %d pods", len(reasons)-i, pods))
			break
		}
		parts = append(parts, fmt.Sprintf("cannot evict %s: %s", drainrules.DescribePods(failed[reason], false), reason))
	}
	return parts
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

// selectingPDBNames names the PodDisruptionBudgets that select the pod; nothing when they
// cannot be listed (the caller's message stands without them).
func selectingPDBNames(ctx context.Context, c client.Client, pod *corev1.Pod) []string {
	pdbs := &policyv1.PodDisruptionBudgetList{}
	if err := c.List(ctx, pdbs, client.InNamespace(pod.Namespace)); err != nil {
		return nil
	}
	var names []string
	for _, pdb := range drainrules.SelectingPDBs(pdbs.Items, pod) {
		names = append(names, pdb.Name)
	}
	return names
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
