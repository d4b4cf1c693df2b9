package machinehealthcheck

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/klog/v2"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/predicates"
	"capstan.dev/contracts/remote"
)

// conflictRequeue is how soon a Machine whose condition write lost a race is retried.
const conflictRequeue = time.Second

// reconcileNormal judges every target and marks the Machines.
func (r *Reconciler) reconcileNormal(ctx context.Context, s *scope) (ctrl.Result, error) {
	log := ctrl.LoggerFrom(ctx)
	targets, err := r.getTargets(ctx, s)
	if err != nil {
		return ctrl.Result{}, err
	}
	if err := r.readNodes(ctx, s, targets); err != nil {
		if errors.Is(err, remote.ErrClusterNotConnected) {
			// No requeue: the cluster source re-triggers every MachineHealthCheck on connect.
			log.V(2).Info("Waiting for the connection to the workload cluster to check Machines", "reason", err.Error())
			return ctrl.Result{}, nil
		}
		return ctrl.Result{}, err
	}

	now := time.Now()
	var next []time.Duration
	unhealthy := 0
	for _, t := range targets {
		if t.deleting {
			// Not judged and not marked, but not healthy either: as upstream (unhealthy =
			// expected - healthy), a Machine on its way out still counts against the limits
			// until it is gone, so a second wave cannot be remediated past them meanwhile.
			unhealthy++
			continue
		}
		t.unhealthy, t.condition, t.next = health(t, s.mhc, s.cluster, now)
		if t.unhealthy {
			unhealthy++
			log.V(3).Info("Machine failed its health check", "Machine", klog.KObj(t.machine), "reason", t.condition.Reason, "message", t.condition.Message)
		}
		next = append(next, t.next)
	}
	s.targets, s.healthy, s.evaluated = targets, len(targets)-unhealthy, true
	s.remediation = decideRemediation(s.mhc, len(targets), unhealthy)
	if !s.remediation.allowed {
		log.Info("Not remediating unhealthy Machines", "reason", s.remediation.reason, "message", s.remediation.message)
	}
	r.recordRestricted(s, unhealthy)

	var errs []error
	res := ctrl.Result{RequeueAfter: soonest(next)}
	for _, t := range targets {
		if t.deleting {
			continue
		}
		err := r.markMachine(ctx, s.mhc, t, s.remediation.allowed, now)
		if errors.Is(err, errLostRace) {
			log.V(4).Info("Machine changed while its conditions were written, retrying", "Machine", klog.KObj(t.machine), "reason", err.Error())
			res = lowestRequeue(res, ctrl.Result{RequeueAfter: conflictRequeue})
			continue
		}
		errs = append(errs, err)
	}
	if err := errors.Join(errs...); err != nil {
		return ctrl.Result{}, err
	}
	return res, nil
}

// lowestRequeue keeps the sooner of two requeue requests.
func lowestRequeue(a, b ctrl.Result) ctrl.Result {
	switch {
	case a.RequeueAfter == 0:
		return b
	case b.RequeueAfter == 0:
		return a
	case b.RequeueAfter < a.RequeueAfter:
		return b
	}
	return a
}

// getTargets lists the Machines the MachineHealthCheck checks, sorted by name. Machines
// that are paused or annotated to skip remediation are not targets. Machines being deleted are
// targets that are not checked: they only count as not healthy.
func (r *Reconciler) getTargets(ctx context.Context, s *scope) ([]*target, error) {
	sel, err := targetSelector(s.mhc)
	if err != nil {
		return nil, fmt.Errorf("spec.selector of MachineHealthCheck %s: %w", s.mhc.Name, err)
	}
	list := &clusterv1.MachineList{}
	if err := r.Client.List(ctx, list, client.InNamespace(s.mhc.Namespace), client.MatchingLabelsSelector{Selector: sel}); err != nil {
		return nil, fmt.Errorf("listing Machines of MachineHealthCheck %s: %w", s.mhc.Name, err)
	}
	var out []*target
	for i := range list.Items {
		m := &list.Items[i]
		_, skip := m.Annotations[clusterv1.MachineSkipRemediationAnnotation]
		if skip || predicates.HasPausedAnnotation(m) {
			continue
		}
		out = append(out, &target{machine: m, deleting: !m.DeletionTimestamp.IsZero()})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].machine.Name < out[j].machine.Name })
	return out, nil
}

// readNodes reads the Node of every target that has a status.nodeRef, from the
// workload cluster's cache, and makes sure Node events reach this controller.
// Once the control plane is initialized it needs the connection even when no
// target has a nodeRef: a Machine may lack one only because the Machine
// controller cannot see the workload cluster either, and judging it then (node
// startup timeout) would remediate it from missing data.
func (r *Reconciler) readNodes(ctx context.Context, s *scope, targets []*target) error {
	needed := isTrue(s.cluster.Status.Initialization.ControlPlaneInitialized)
	for _, t := range targets {
		needed = needed || (!t.deleting && t.machine.Status.NodeRef.IsDefined())
	}
	if !needed || len(targets) == 0 {
		return nil
	}
	key := client.ObjectKeyFromObject(s.cluster)
	c, err := r.Workload.GetClient(ctx, key)
	if err != nil {
		return fmt.Errorf("reading Nodes of Cluster %s: %w", key, err)
	}
	if err := r.Workload.Watch(ctx, key, remote.WatchInput{
		Name:    "machinehealthcheck-watch-nodes",
		Watcher: r.controller,
		Kind:    &corev1.Node{},
		// The watch is per Cluster: any Node event re-checks that Cluster's MachineHealthChecks.
		EventHandler: handler.EnqueueRequestsFromMapFunc(func(ctx context.Context, _ client.Object) []reconcile.Request {
			return r.clusterKeyToMachineHealthChecks(ctx, key)
		}),
		Predicates: []predicate.TypedPredicate[client.Object]{nodeHealthChanged()},
	}); err != nil {
		return fmt.Errorf("watching Nodes of Cluster %s: %w", key, err)
	}
	for _, t := range targets {
		ref := t.machine.Status.NodeRef
		if t.deleting || !ref.IsDefined() {
			continue
		}
		node := &corev1.Node{}
		if err := c.Get(ctx, client.ObjectKey{Name: ref.Name}, node); err != nil {
			if apierrors.IsNotFound(err) {
				t.nodeMissing = true
				continue
			}
			return fmt.Errorf("reading Node %s of Machine %s: %w", ref.Name, t.machine.Name, err)
		}
		t.node = node
	}
	return nil
}

// nodeHealthChanged passes Node events that can change a health check's outcome: a
// Node appearing or going away, or a change in its conditions' status or transition
// time. Heartbeats (lastHeartbeatTime) and other status churn are dropped.
func nodeHealthChanged() predicate.Funcs {
	return predicate.Funcs{
		UpdateFunc: func(e event.UpdateEvent) bool {
			oldN, ok1 := e.ObjectOld.(*corev1.Node)
			newN, ok2 := e.ObjectNew.(*corev1.Node)
			if !ok1 || !ok2 {
				return true
			}
			if len(oldN.Status.Conditions) != len(newN.Status.Conditions) {
				return true
			}
			for i := range newN.Status.Conditions {
				o := nodeCondition(oldN, newN.Status.Conditions[i].Type)
				n := newN.Status.Conditions[i]
				if o == nil || o.Status != n.Status || !o.LastTransitionTime.Equal(&n.LastTransitionTime) {
					return true
				}
			}
			return false
		},
	}
}
