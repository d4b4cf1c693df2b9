package topology

import (
	"context"
	"fmt"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	ctrl "sigs.k8s.io/controller-runtime"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/conditions"
	"capstan.dev/core/internal/topology/clusterstate"
	"capstan.dev/core/internal/topology/variables"
)

func (r *Reconciler) reconcileNormal(ctx context.Context, s *scope) (ctrl.Result, error) {
	if err := r.readClass(ctx, s); err != nil || s.blocked != nil {
		return ctrl.Result{}, err
	}
	if err := r.readTemplates(ctx, s); err != nil {
		return ctrl.Result{}, err
	}
	if err := r.readCurrent(ctx, s); err != nil {
		return ctrl.Result{}, err
	}
	// Nothing is applied for a class whose kinds differ from what the Cluster has: it would
	// create objects the Cluster never references (a second InfrastructureCluster or ControlPlane).
	if errs := clusterstate.CheckCompatible(s.cluster, s.class, s.templates, s.current); len(errs) > 0 {
		s.blocked = &blockedReason{clusterv1.ClusterTopologyReconciledFailedReason, joinErrors(errs)}
		return ctrl.Result{}, nil
	}
	cpContract := s.current.ControlPlaneContract
	if err := r.planUpgrade(ctx, s); err != nil || s.blocked != nil {
		return ctrl.Result{}, err
	}
	if res, err := r.callBeforeClusterCreate(ctx, s); err != nil || s.blocked != nil {
		return res, err
	}
	if err := r.reconcileUpgradeHooks(ctx, s); err != nil {
		return ctrl.Result{}, err
	}
	state, err := clusterstate.Compute(ctx, r.externalPatcher(), s.cluster, s.class, s.definitions, s.templates, s.current, s.versions(), r.Random)
	if err != nil {
		return ctrl.Result{}, err
	}
	if err := r.applyState(ctx, s, state, cpContract); err != nil {
		return ctrl.Result{}, err
	}
	if err := r.deleteRemovedMachineDeployments(ctx, s, state); err != nil {
		return ctrl.Result{}, err
	}
	if err := r.deleteRemovedMachinePools(ctx, s, state); err != nil {
		return ctrl.Result{}, err
	}
	if err := r.deleteUnusedTemplates(ctx, s, state); err != nil {
		return ctrl.Result{}, err
	}
	if err := r.deleteUnusedPoolObjects(ctx, s, state); err != nil {
		return ctrl.Result{}, err
	}
	s.applied = true
	return ctrl.Result{RequeueAfter: s.requeueAfter}, nil
}

// readClass reads the Cluster's ClusterClass and checks the topology against it; a class that is
// missing or not reconciled, or a topology it refuses, blocks the reconcile with a reason.
func (r *Reconciler) readClass(ctx context.Context, s *scope) error {
	c := s.cluster
	key := classKey(c)
	cc := &clusterv1.ClusterClass{}
	if err := r.Client.Get(ctx, key, cc); err != nil {
		if !apierrors.IsNotFound(err) {
			return fmt.Errorf("reading ClusterClass %s: %w", key, err)
		}
		s.blocked = classNotReconciled(fmt.Sprintf("ClusterClass %s does not exist: create it, or fix spec.topology.classRef", key))
		return nil // the ClusterClass watch brings the Cluster back
	}
	ready := conditions.Get(cc, clusterv1.ClusterClassVariablesReadyCondition)
	switch {
	case cc.Status.ObservedGeneration != cc.Generation:
		s.blocked = classNotReconciled(fmt.Sprintf("ClusterClass %s is not reconciled yet (generation %d, observed %d)", key, cc.Generation, cc.Status.ObservedGeneration))
		return nil
	case ready == nil || ready.Status != metav1.ConditionTrue:
		msg := "unknown"
		if ready != nil {
			msg = ready.Message
		}
		s.blocked = classNotReconciled(fmt.Sprintf("ClusterClass %s has VariablesReady not True (%s): fix the ClusterClass", key, msg))
		return nil
	}
	defs, err := variables.Definitions(cc.Status.Variables)
	if err != nil {
		s.blocked = classNotReconciled(fmt.Sprintf("ClusterClass %s: %v", key, err))
		return nil
	}
	if errs := validateTopology(ctx, c, cc, defs); len(errs) > 0 {
		s.blocked = &blockedReason{clusterv1.ClusterTopologyReconciledVariablesInvalidReason, joinErrors(errs)}
		return nil
	}
	s.class, s.definitions = cc, defs
	return nil
}

// joinErrors is a condition message listing errs, each with its field path.
func joinErrors(errs field.ErrorList) string {
	msgs := make([]string, 0, len(errs))
	for _, e := range errs {
		msgs = append(msgs, e.Error())
	}
	return strings.Join(msgs, "; ")
}

func classNotReconciled(msg string) *blockedReason {
	return &blockedReason{clusterv1.ClusterTopologyReconciledClusterClassNotReconciledReason, msg}
}

// readTemplates reads the class's templates the Cluster uses.
func (r *Reconciler) readTemplates(ctx context.Context, s *scope) error {
	var err error
	s.templates, err = clusterstate.ReadTemplates(ctx, r.Client, s.class, s.cluster)
	return err
}

// readCurrent finds what the Cluster has (clusterstate.ReadCurrent).
func (r *Reconciler) readCurrent(ctx context.Context, s *scope) error {
	cur, err := clusterstate.ReadCurrent(ctx, r.Client, s.cluster, s.templates)
	if err != nil {
		return err
	}
	s.current = cur
	if cur.ControlPlane != nil {
		// Its status (versions, replica counts) drives the upgrade: reconcile on its changes.
		return r.watch(ctx, cur.ControlPlane)
	}
	return nil
}

// ownedBy selects the objects the topology generated for c.
var ownedBy = clusterstate.OwnedBy
