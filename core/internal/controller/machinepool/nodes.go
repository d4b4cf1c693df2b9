package machinepool

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/remote"
	"capstan.dev/core/internal/nodetaints"
)

// reconcileNodes deletes the Nodes whose providerID left spec.providerIDList, then
// matches the listed provider IDs to Nodes: status.nodeRefs and the replica counts.
func (r *Reconciler) reconcileNodes(ctx context.Context, s *scope) (ctrl.Result, error) {
	mp := s.pool
	if s.cluster == nil || (len(mp.Spec.ProviderIDList) == 0 && len(mp.Status.NodeRefs) == 0) {
		return ctrl.Result{}, nil // no Node to look for; the InfraMachinePool's watch brings us back
	}
	c, err := r.workloadClient(ctx, s.cluster)
	if err != nil {
		if errors.Is(err, remote.ErrClusterNotConnected) {
			// No requeue: the cluster source re-triggers every pool on connect.
			s.nodeErr = err
			return ctrl.Result{}, nil
		}
		return ctrl.Result{}, err
	}
	if s.providerIDListRead {
		if err := deleteRetiredNodes(ctx, c, mp.Status.NodeRefs, mp.Spec.ProviderIDList); err != nil {
			return ctrl.Result{}, err
		}
	}

	nodes := make([]*corev1.Node, 0, len(mp.Spec.ProviderIDList))
	var ambiguous []string
	for _, id := range mp.Spec.ProviderIDList {
		if id == "" {
			continue
		}
		found, err := remote.ListNodesByProviderID(ctx, c, id)
		if err != nil {
			s.nodeErr = err
			return ctrl.Result{}, err
		}
		switch len(found) {
		case 0: // not registered yet: the Node watch brings us back
		case 1:
			nodes = append(nodes, &found[0])
		default:
			names := make([]string, 0, len(found))
			for _, n := range found {
				names = append(names, n.Name)
			}
			ambiguous = append(ambiguous, fmt.Sprintf("%s (%s)", id, strings.Join(names, ", ")))
		}
	}
	if len(ambiguous) > 0 {
		// Guessing would record, and later delete, a Node that is not the pool's.
		s.nodeErr = fmt.Errorf("several Nodes claim the same providerID: %s; each instance must match exactly one Node",
			strings.Join(ambiguous, "; "))
		return ctrl.Result{}, s.nodeErr
	}
	now := time.Now()
	counts := countNodes(nodes, ptr.Deref(mp.Spec.Template.Spec.MinReadySeconds, 0), mp.Spec.Template.Spec.Version, now)
	mp.Status.NodeRefs = nodeRefs(nodes)
	mp.Status.ReadyReplicas = ptr.To(counts.ready)
	mp.Status.AvailableReplicas = ptr.To(counts.available)
	mp.Status.UpToDateReplicas = ptr.To(counts.upToDate)
	if err := syncNodeTaints(ctx, c, mp.Spec.Template.Spec.Taints, nodes); err != nil {
		return ctrl.Result{}, err
	}
	return ctrl.Result{RequeueAfter: counts.nextAvailable}, nil
}

// syncNodeTaints removes the uninitialized taint from the pool's Nodes (the bootstrap provider
// registers every worker with it, and a pool's Node has no Machine whose controller would) and
// propagates the template's spec.taints, as the Machine controller does for a Machine's Node.
// Nothing is written when nothing changes; a write is guarded by the Node's resourceVersion,
// since taints are one atomic list other controllers write too (a conflict is retried).
func syncNodeTaints(ctx context.Context, c client.Client, taints []clusterv1.MachineTaint, nodes []*corev1.Node) error {
	var errs []error
	for _, node := range nodes {
		updated := node.DeepCopy()
		nodetaints.RemoveUninitialized(updated)
		nodetaints.Sync(taints, updated)
		if nodetaints.Equal(node, updated) {
			continue
		}
		ctrl.LoggerFrom(ctx).Info("Updating Node taints", "Node", klog.KObj(node))
		if err := c.Patch(ctx, updated, client.MergeFromWithOptions(node, client.MergeFromWithOptimisticLock{})); err != nil {
			errs = append(errs, fmt.Errorf("updating the taints of Node %s: %w", node.Name, err))
		}
	}
	return errors.Join(errs...)
}

// workloadClient returns the cached client of the Cluster's workload cluster and makes
// sure this controller hears of its Nodes.
func (r *Reconciler) workloadClient(ctx context.Context, cluster *clusterv1.Cluster) (client.Client, error) {
	key := client.ObjectKeyFromObject(cluster)
	c, err := r.Workload.GetClient(ctx, key)
	if err != nil {
		return nil, fmt.Errorf("reaching the workload cluster of Cluster %s: %w", key, err)
	}
	if err := r.Workload.Watch(ctx, key, remote.WatchInput{
		Name:    "machinepool-watch-nodes",
		Watcher: r.controller,
		Kind:    &corev1.Node{},
		EventHandler: handler.EnqueueRequestsFromMapFunc(func(ctx context.Context, o client.Object) []reconcile.Request {
			return r.nodeToMachinePools(ctx, key, o)
		}),
		Predicates: []predicate.TypedPredicate[client.Object]{nodeChangedForPools()},
	}); err != nil {
		return nil, fmt.Errorf("watching Nodes of Cluster %s: %w", key, err)
	}
	return c, nil
}

// deleteRetiredNodes deletes the Nodes recorded in status.nodeRefs whose providerID is
// no longer in providerIDs: the infrastructure provider removed the instance. Only
// recorded Nodes are considered, and only while they still have the recorded UID.
func deleteRetiredNodes(ctx context.Context, c client.Client, refs []corev1.ObjectReference, providerIDs []string) error {
	listed := sets.New(providerIDs...)
	var errs []error
	for _, ref := range refs {
		node := &corev1.Node{}
		if err := c.Get(ctx, client.ObjectKey{Name: ref.Name}, node); err != nil {
			if !apierrors.IsNotFound(err) {
				errs = append(errs, fmt.Errorf("reading Node %s: %w", ref.Name, err))
			}
			continue
		}
		if !isRetired(ref, node, listed) {
			continue
		}
		if err := deleteNode(ctx, c, ref, "its providerID "+node.Spec.ProviderID+" left spec.providerIDList"); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// isRetired says whether a recorded Node is to be deleted: it is still the Node that
// was recorded (same UID), it has a providerID, and that providerID is no longer listed.
func isRetired(ref corev1.ObjectReference, node *corev1.Node, listed sets.Set[string]) bool {
	return node.UID == ref.UID && node.Spec.ProviderID != "" && !listed.Has(node.Spec.ProviderID)
}

// deleteNode deletes a recorded Node, on the condition that it still has the recorded
// UID, so a new Node that reuses the name is never deleted in its place.
func deleteNode(ctx context.Context, c client.Client, ref corev1.ObjectReference, why string) error {
	ctrl.LoggerFrom(ctx).Info("Deleting Node", "Node", klog.KRef("", ref.Name), "reason", why)
	node := &corev1.Node{}
	node.Name = ref.Name
	if err := c.Delete(ctx, node, client.Preconditions{UID: &ref.UID}); err != nil && !apierrors.IsNotFound(err) {
		if apierrors.IsConflict(err) {
			return nil // the precondition failed: the name now belongs to another Node
		}
		return fmt.Errorf("deleting Node %s: %w", ref.Name, err)
	}
	return nil
}

func nodeRefs(nodes []*corev1.Node) []corev1.ObjectReference {
	if len(nodes) == 0 {
		return nil
	}
	out := make([]corev1.ObjectReference, 0, len(nodes))
	for _, n := range nodes {
		out = append(out, corev1.ObjectReference{
			APIVersion: corev1.SchemeGroupVersion.String(), Kind: "Node", Name: n.Name, UID: n.UID,
		})
	}
	return out
}

// nodeCounts are the replica counts read off the matched Nodes.
type nodeCounts struct {
	ready, available, upToDate int32
	// nextAvailable is when the next Ready Node becomes available; 0 when none waits.
	nextAvailable time.Duration
}

// countNodes counts the Nodes that are Ready, Ready for at least minReadySeconds, and
// running version (every Node, when version is empty).
func countNodes(nodes []*corev1.Node, minReadySeconds int32, version string, now time.Time) nodeCounts {
	var out nodeCounts
	minReady := time.Duration(minReadySeconds) * time.Second
	for _, n := range nodes {
		if version == "" || n.Status.NodeInfo.KubeletVersion == version {
			out.upToDate++
		}
		ready := readyCondition(n)
		if ready == nil || ready.Status != corev1.ConditionTrue {
			continue
		}
		out.ready++
		wait := ready.LastTransitionTime.Add(minReady).Sub(now)
		if wait <= 0 {
			out.available++
			continue
		}
		if out.nextAvailable == 0 || wait < out.nextAvailable {
			out.nextAvailable = wait
		}
	}
	return out
}

func readyCondition(n *corev1.Node) *corev1.NodeCondition {
	for i := range n.Status.Conditions {
		if n.Status.Conditions[i].Type == corev1.NodeReady {
			return &n.Status.Conditions[i]
		}
	}
	return nil
}

// nodeChangedForPools passes Node events that can change a pool's status or need its
// taints synced: a Node appearing or going, its providerID, its Ready condition, its
// kubelet version or its taints changing. Heartbeats and other status churn are dropped.
func nodeChangedForPools() predicate.Funcs {
	return predicate.Funcs{
		UpdateFunc: func(e event.UpdateEvent) bool {
			oldN, ok1 := e.ObjectOld.(*corev1.Node)
			newN, ok2 := e.ObjectNew.(*corev1.Node)
			if !ok1 || !ok2 {
				return true
			}
			oldR, newR := readyCondition(oldN), readyCondition(newN)
			readyChanged := (oldR == nil) != (newR == nil) ||
				oldR != nil && (oldR.Status != newR.Status || !oldR.LastTransitionTime.Equal(&newR.LastTransitionTime))
			taintsChanged := !nodetaints.Equal(oldN, newN)
			return readyChanged || taintsChanged || oldN.Spec.ProviderID != newN.Spec.ProviderID ||
				oldN.Status.NodeInfo.KubeletVersion != newN.Status.NodeInfo.KubeletVersion ||
				!newN.DeletionTimestamp.IsZero()
		},
	}
}
