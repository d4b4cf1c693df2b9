package machine

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/conditions"
	"capstan.dev/contracts/contract"
	"capstan.dev/contracts/external"
	"capstan.dev/contracts/remote"
)

// defaultNodeDeletionTimeout bounds the attempts to delete the Node when the
// workload cluster cannot be reached, as upstream's default does.
const defaultNodeDeletionTimeout = 10 * time.Second

// reconcileDelete takes a Machine apart in order: pre-drain hooks, drain, volume
// detach, pre-terminate hooks, infrastructure, bootstrap config, Node, finalizer.
// Every step that waits says what it waits for in the Deleting condition.
func (r *Reconciler) reconcileDelete(ctx context.Context, s *scope) (ctrl.Result, error) {
	m := s.machine
	log := ctrl.LoggerFrom(ctx)
	if !controllerutil.ContainsFinalizer(m, clusterv1.MachineFinalizer) {
		return ctrl.Result{}, nil
	}
	if res, err := r.findNodeOfUnreferencedMachine(ctx, s); err != nil || res.RequeueAfter > 0 {
		return res, err
	}
	deleteNode, reason, err := r.isDeleteNodeAllowed(ctx, s)
	if err != nil {
		return ctrl.Result{}, err // without the answer neither skipping nor deleting the Node is safe
	}
	if !deleteNode && m.Status.NodeRef.Name != "" {
		log.Info("Neither draining nor deleting the Node", "Node", m.Status.NodeRef.Name, "reason", reason)
	}

	if hooks := hookNames(m, clusterv1.PreDrainDeleteHookAnnotationPrefix); len(hooks) > 0 {
		s.deleting = deletingStatus{clusterv1.MachineDeletingWaitingForPreDrainHookReason,
			fmt.Sprintf("Waiting for pre-drain hooks to succeed (remove the annotations to proceed): %s", strings.Join(hooks, ", "))}
		return ctrl.Result{}, nil // removing an annotation is an update event
	}

	if deleteNode && m.Status.NodeRef.Name != "" && !drainedBefore(m) {
		if res, done, err := r.drainAndDetach(ctx, s); err != nil || !done {
			return res, err
		}
	}

	if hooks := hookNames(m, clusterv1.PreTerminateDeleteHookAnnotationPrefix); len(hooks) > 0 {
		s.deleting = deletingStatus{clusterv1.MachineDeletingWaitingForPreTerminateHookReason,
			fmt.Sprintf("Waiting for pre-terminate hooks to succeed (remove the annotations to proceed): %s", strings.Join(hooks, ", "))}
		return ctrl.Result{}, nil
	}

	if gone, err := r.tracker.Delete(ctx, r.Client, m.Spec.InfrastructureRef, m.Namespace); err != nil || !gone {
		s.deleting = deletingStatus{clusterv1.MachineDeletingWaitingForInfrastructureDeletionReason,
			fmt.Sprintf("Waiting for %s %s to be deleted", m.Spec.InfrastructureRef.Kind, m.Spec.InfrastructureRef.Name)}
		return ctrl.Result{}, err // its deletion is a watch event
	}
	if ref := m.Spec.Bootstrap.ConfigRef; ref.IsDefined() {
		if gone, err := r.tracker.Delete(ctx, r.Client, ref, m.Namespace); err != nil || !gone {
			s.deleting = deletingStatus{clusterv1.MachineDeletingWaitingForBootstrapDeletionReason,
				fmt.Sprintf("Waiting for %s %s to be deleted", ref.Kind, ref.Name)}
			return ctrl.Result{}, err
		}
	}

	if deleteNode && m.Status.NodeRef.Name != "" {
		if res, err := r.deleteNode(ctx, s); err != nil || res.RequeueAfter > 0 {
			return res, err
		}
	}
	s.deleting = deletingStatus{clusterv1.MachineDeletingDeletionCompletedReason, "Deletion completed"}
	log.Info("Removing finalizer: deletion completed")
	controllerutil.RemoveFinalizer(m, clusterv1.MachineFinalizer)
	return ctrl.Result{}, nil
}

// drainedBefore reports whether an earlier pass finished the drain and the volume detach: the
// Deleting condition it wrote names a later step. Draining again on every pass after that, as
// upstream does, lists the Node's Pods each time through the workload cluster's rate-limited
// client, which a rollout of many Machines of one Cluster waits on. The Node is cordoned by then,
// so only DaemonSet Pods (which a drain leaves anyway) or Pods bound to it by name can have
// arrived since. DeletingNode is not counted: the look-up of a Node by providerID reports it
// before any drain.
func drainedBefore(m *clusterv1.Machine) bool {
	c := conditions.Get(m, clusterv1.MachineDeletingCondition)
	if c == nil || c.Status != metav1.ConditionTrue {
		return false
	}
	switch c.Reason {
	case clusterv1.MachineDeletingWaitingForPreTerminateHookReason,
		clusterv1.MachineDeletingWaitingForInfrastructureDeletionReason,
		clusterv1.MachineDeletingWaitingForBootstrapDeletionReason:
		return true
	}
	return false
}

// isDeleteNodeAllowed says whether the Node is to be drained and deleted, as upstream: not
// when the whole Cluster is going away, not when the Machine never got a Node, not while the
// control plane is being deleted or no control-plane Machine is left (a drain would evict Pods
// that nothing can schedule anew, and a control plane on its way out may not answer), and never
// for the last control-plane Node (that would break the cluster). An error means it could not
// decide.
func (r *Reconciler) isDeleteNodeAllowed(ctx context.Context, s *scope) (bool, string, error) {
	m := s.machine
	switch {
	case s.cluster == nil:
		return false, "the Cluster is gone", nil
	case !s.cluster.DeletionTimestamp.IsZero():
		return false, "the Cluster is being deleted", nil
	case m.Status.NodeRef.Name == "":
		return false, "the Machine has no Node", nil
	}
	reason, err := r.controlPlaneKeepsNode(ctx, s)
	if err != nil {
		return false, "", fmt.Errorf("deciding whether Node %s may be drained and deleted: %w", m.Status.NodeRef.Name, err)
	}
	return reason == "", reason, nil
}

// controlPlaneKeepsNode says why the state of the Cluster's control plane keeps the Machine's
// Node (empty when it does not): the object of spec.controlPlaneRef is being deleted, or no
// active (not deleting) control-plane Machine is left; for a control-plane Machine, no other
// one with a Node. A control plane that reports status.externalManagedControlPlane has no
// Machines to count. A controlPlaneRef whose object is gone is not an answer by itself: the
// Machines are counted, as upstream.
func (r *Reconciler) controlPlaneKeepsNode(ctx context.Context, s *scope) (string, error) {
	m, cluster := s.machine, s.cluster
	if ref := cluster.Spec.ControlPlaneRef; ref.IsDefined() {
		cp, _, err := external.Get(ctx, r.Client, ref, cluster.Namespace)
		switch {
		case apierrors.IsNotFound(err):
		case err != nil:
			return "", err
		case !cp.GetDeletionTimestamp().IsZero():
			return fmt.Sprintf("the control plane %s %s is being deleted", ref.Kind, ref.Name), nil
		default:
			if managed, err := contract.ControlPlane().ExternalManagedControlPlane().Get(cp); err == nil && *managed {
				return "", nil
			}
		}
	}
	list := &clusterv1.MachineList{}
	if err := r.Client.List(ctx, list, client.InNamespace(m.Namespace), client.MatchingLabels{
		clusterv1.ClusterNameLabel: m.Spec.ClusterName, clusterv1.MachineControlPlaneLabel: "",
	}); err != nil {
		return "", fmt.Errorf("listing the control-plane Machines of Cluster %s: %w", m.Spec.ClusterName, err)
	}
	_, isCP := m.Labels[clusterv1.MachineControlPlaneLabel]
	for _, other := range list.Items {
		if other.UID != m.UID && other.DeletionTimestamp.IsZero() && (!isCP || other.Status.NodeRef.Name != "") {
			return "", nil
		}
	}
	if isCP {
		return "it is the last control-plane Node", nil
	}
	return "no control-plane Machine of the Cluster is left", nil
}

// findNodeOfUnreferencedMachine looks up, by spec.providerID, the Node of a
// Machine deleted before status.nodeRef was set (its Node may have registered
// meanwhile), so that the Node is drained and deleted like any other. While the
// workload cluster cannot be reached it waits, at most for the node deletion
// timeout, as deleteNode does.
func (r *Reconciler) findNodeOfUnreferencedMachine(ctx context.Context, s *scope) (ctrl.Result, error) {
	m := s.machine
	if m.Status.NodeRef.Name != "" || m.Spec.ProviderID == "" || s.cluster == nil || !s.cluster.DeletionTimestamp.IsZero() {
		return ctrl.Result{}, nil
	}
	c, err := r.Workload.GetClient(ctx, client.ObjectKeyFromObject(s.cluster))
	var node *corev1.Node
	if err == nil {
		node, err = nodeByProviderID(ctx, c, m.Spec.ProviderID)
	}
	switch {
	case err == nil && node != nil:
		ctrl.LoggerFrom(ctx).Info("Found the Node of a Machine deleted before its status.nodeRef was set", "Node", node.Name)
		m.Status.NodeRef = clusterv1.MachineNodeReference{Name: node.Name}
		return ctrl.Result{}, nil
	case err == nil, nodeDeletionTimedOut(m, time.Now()):
		return ctrl.Result{}, nil
	case errors.Is(err, remote.ErrClusterNotConnected):
		s.deleting = deletingStatus{clusterv1.MachineDeletingDeletingNodeReason,
			fmt.Sprintf("Waiting to look up the Node with spec.providerID %s: %v", m.Spec.ProviderID, err)}
		return ctrl.Result{RequeueAfter: 5 * time.Second}, nil
	}
	return ctrl.Result{}, err
}

// nodeDeletionTimedOut reports whether spec.deletion.nodeDeletionTimeoutSeconds
// (defaultNodeDeletionTimeout when unset, never when 0) passed since deletion began.
func nodeDeletionTimedOut(m *clusterv1.Machine, now time.Time) bool {
	timeout := defaultNodeDeletionTimeout
	if t := m.Spec.Deletion.NodeDeletionTimeoutSeconds; t != nil {
		timeout = time.Duration(*t) * time.Second
	}
	return timeout > 0 && now.Sub(m.DeletionTimestamp.Time) > timeout
}

// deleteNode deletes the Node in the workload cluster, giving up after
// nodeDeletionTimeoutSeconds when the cluster cannot be reached.
func (r *Reconciler) deleteNode(ctx context.Context, s *scope) (ctrl.Result, error) {
	m := s.machine
	s.deleting = deletingStatus{clusterv1.MachineDeletingDeletingNodeReason, fmt.Sprintf("Deleting Node %s", m.Status.NodeRef.Name)}
	c, err := r.Workload.GetClient(ctx, client.ObjectKeyFromObject(s.cluster))
	if err == nil {
		node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: m.Status.NodeRef.Name}}
		ctrl.LoggerFrom(ctx).Info("Deleting Node", "Node", node.Name)
		if err = c.Delete(ctx, node); apierrors.IsNotFound(err) {
			err = nil
		}
	}
	if err == nil {
		return ctrl.Result{}, nil
	}
	if nodeDeletionTimedOut(m, time.Now()) {
		ctrl.LoggerFrom(ctx).Info("Giving up deleting the Node after the node deletion timeout", "Node", m.Status.NodeRef.Name, "error", err.Error())
		return ctrl.Result{}, nil
	}
	if errors.Is(err, remote.ErrClusterNotConnected) {
		s.deleting.message = fmt.Sprintf("Waiting to delete Node %s: %v", m.Status.NodeRef.Name, err)
		return ctrl.Result{RequeueAfter: 5 * time.Second}, nil
	}
	return ctrl.Result{}, fmt.Errorf("deleting Node %s: %w", m.Status.NodeRef.Name, err)
}

// hookNames lists the annotations with the given prefix, sorted.
func hookNames(m *clusterv1.Machine, prefix string) []string {
	var out []string
	for k := range m.Annotations {
		if strings.HasPrefix(k, prefix) {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// timeoutPassed reports whether a wait started at start exceeded seconds (nil or
// zero: never).
func timeoutPassed(start metav1.Time, seconds *int32, now time.Time) bool {
	t := ptr.Deref(seconds, 0)
	return t > 0 && !start.IsZero() && now.Sub(start.Time) > time.Duration(t)*time.Second
}
