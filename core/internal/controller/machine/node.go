package machine

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/util/sets"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/remote"
	"capstan.dev/core/internal/nodetaints"
)

// reconcileNode finds the Machine's Node by providerID, records it in
// status.nodeRef and keeps the Machine's managed labels on it.
func (r *Reconciler) reconcileNode(ctx context.Context, s *scope) (ctrl.Result, error) {
	m := s.machine
	if m.Spec.ProviderID == "" || s.cluster == nil || !(controlPlaneInitialized(s.cluster) || initializesControlPlane(s.cluster, m)) {
		return ctrl.Result{}, nil // nothing to look for yet; Cluster and infra watches bring us back
	}
	key := client.ObjectKeyFromObject(s.cluster)
	c, err := r.Workload.GetClient(ctx, key)
	if err != nil {
		if errors.Is(err, remote.ErrClusterNotConnected) {
			// The cluster source re-triggers every Machine on connect; the requeue
			// only turns the kept Node conditions Unknown once the grace period ends.
			s.nodeErr = err
			s.connection = r.Workload.GetHealthCheckingState(key)
			return ctrl.Result{RequeueAfter: graceLeft(s, time.Now())}, nil
		}
		return ctrl.Result{}, err
	}
	if err := r.Workload.Watch(ctx, key, remote.WatchInput{
		Name:         "machine-watch-nodes",
		Watcher:      r.controller,
		Kind:         &corev1.Node{},
		EventHandler: handler.EnqueueRequestsFromMapFunc(r.nodeToMachines),
	}); err != nil {
		return ctrl.Result{}, fmt.Errorf("watching Nodes of Cluster %s: %w", key, err)
	}
	node, err := nodeByProviderID(ctx, c, m.Spec.ProviderID)
	if err != nil {
		s.nodeErr = err
		return ctrl.Result{}, err
	}
	if node == nil {
		s.nodeGone = m.Status.NodeRef.Name != ""
		return ctrl.Result{}, nil // the Node watch brings us back when it registers
	}
	s.node = node
	m.Status.NodeRef = clusterv1.MachineNodeReference{Name: node.Name}
	info := node.Status.NodeInfo
	m.Status.NodeInfo = &info
	return ctrl.Result{}, syncNode(ctx, c, m, node, desiredNodeMetadata(m, node, interruptible(s), r.AdditionalSync))
}

func nodeByProviderID(ctx context.Context, c client.Client, providerID string) (*corev1.Node, error) {
	nodes := &corev1.NodeList{}
	if err := c.List(ctx, nodes, client.MatchingFields{remote.NodeProviderIDIndex: providerID}); err != nil {
		return nil, fmt.Errorf("listing Nodes with spec.providerID %s: %w", providerID, err)
	}
	switch len(nodes.Items) {
	case 0:
		return nil, nil
	case 1:
		return &nodes.Items[0], nil
	}
	names := make([]string, 0, len(nodes.Items))
	for _, n := range nodes.Items {
		names = append(names, n.Name)
	}
	return nil, fmt.Errorf("%d Nodes have spec.providerID %s (%s): each Machine must match exactly one Node",
		len(nodes.Items), providerID, strings.Join(names, ", "))
}

// syncNode puts the Machine's labels and annotations (want) on the Node, removing those it put
// there before and the Machine no longer has (listed in LabelsFromMachineAnnotation and
// AnnotationsFromMachineAnnotation), removes the uninitialized taint a bootstrap provider may
// have set and propagates the Machine's spec.taints (nodetaints). Nothing is written when
// nothing changes; a write is guarded by the Node's resourceVersion, since taints are one
// atomic list other controllers write too.
func syncNode(ctx context.Context, c client.Client, m *clusterv1.Machine, node *corev1.Node, want nodeMetadata) error {
	updated := node.DeepCopy()
	if updated.Labels == nil {
		updated.Labels = map[string]string{}
	}
	if updated.Annotations == nil {
		updated.Annotations = map[string]string{}
	}
	labelKeys := applyTracked(updated.Labels, want.labels, trackedOn(node, clusterv1.LabelsFromMachineAnnotation))
	previous := trackedOn(node, clusterv1.AnnotationsFromMachineAnnotation).Insert(commonNodeAnnotations...)
	annotationKeys := applyTracked(updated.Annotations, want.annotations, previous)
	updated.Annotations[clusterv1.LabelsFromMachineAnnotation] = strings.Join(labelKeys, ",")
	updated.Annotations[clusterv1.AnnotationsFromMachineAnnotation] = strings.Join(
		sets.List(sets.New(annotationKeys...).Delete(commonNodeAnnotations...)), ",")
	nodetaints.RemoveUninitialized(updated)
	nodetaints.Sync(m.Spec.Taints, updated)

	if equalNode(node, updated) {
		return nil
	}
	ctrl.LoggerFrom(ctx).Info("Updating Node labels, annotations and taints", "Node", node.Name)
	if err := c.Patch(ctx, updated, client.MergeFromWithOptions(node, client.MergeFromWithOptimisticLock{})); err != nil {
		return fmt.Errorf("updating Node %s: %w", node.Name, err)
	}
	return nil
}

// applyTracked sets want on current and deletes the keys of previous that want no longer has;
// it returns want's keys, sorted.
func applyTracked(current, want map[string]string, previous sets.Set[string]) []string {
	for k := range previous {
		if _, keep := want[k]; !keep {
			delete(current, k)
		}
	}
	for k, v := range want {
		current[k] = v
	}
	return sets.List(sets.KeySet(want))
}

// trackedOn reads the comma-separated keys a tracking annotation lists on the Node.
func trackedOn(node *corev1.Node, annotation string) sets.Set[string] {
	out := sets.New[string]()
	for _, k := range strings.Split(node.Annotations[annotation], ",") {
		if k != "" {
			out.Insert(k)
		}
	}
	return out
}

func equalNode(a, b *corev1.Node) bool {
	return equality.Semantic.DeepEqual(a.Labels, b.Labels) &&
		equality.Semantic.DeepEqual(a.Annotations, b.Annotations) &&
		nodetaints.Equal(a, b)
}

// nodeToMachines maps a workload Node to the Machines with its providerID.
func (r *Reconciler) nodeToMachines(ctx context.Context, o client.Object) []reconcile.Request {
	node, ok := o.(*corev1.Node)
	if !ok || node.Spec.ProviderID == "" {
		return nil
	}
	list := &clusterv1.MachineList{}
	if err := r.Client.List(ctx, list, client.MatchingFields{MachineProviderIDIndex: node.Spec.ProviderID}); err != nil {
		return nil
	}
	out := make([]reconcile.Request, 0, len(list.Items))
	for i := range list.Items {
		out = append(out, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(&list.Items[i])})
	}
	return out
}

// initializesControlPlane reports whether m is a control-plane Machine of a Cluster without a
// control-plane provider: as upstream, such a Cluster's control plane is initialized by the
// first of them with a nodeRef, so their Nodes are looked for before the Cluster says so
// (waiting for it would wait forever).
func initializesControlPlane(c *clusterv1.Cluster, m *clusterv1.Machine) bool {
	_, controlPlane := m.Labels[clusterv1.MachineControlPlaneLabel]
	return controlPlane && !c.Spec.ControlPlaneRef.IsDefined()
}

func controlPlaneInitialized(c *clusterv1.Cluster) bool {
	return c.Status.Initialization.ControlPlaneInitialized != nil && *c.Status.Initialization.ControlPlaneInitialized
}
