package machinedeployment

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/conditions"
	"capstan.dev/contracts/external"
	"capstan.dev/contracts/owner"
	"capstan.dev/core/internal/controller/machineset"
	"capstan.dev/core/internal/mdrollout"
)

// reconcileNormal reads the MachineDeployment's MachineSets and Machines, plans the next step of
// the rollout (or the scaling, when nothing rolls out) and writes it to the MachineSets.
func (r *Reconciler) reconcileNormal(ctx context.Context, s *scope) (ctrl.Result, error) {
	// No webhook defaults these: a MachineDeployment written without the cluster-name label
	// (as upstream manifests are) must still be found by its Cluster and deleted with it.
	owner.LabelCluster(s.md, s.md.Spec.ClusterName)
	if s.cluster != nil {
		owner.EnsureClusterOwner(s.md, s.cluster)
		if err := r.ownTemplates(ctx, s); err != nil {
			return ctrl.Result{}, err
		}
	}
	if err := r.read(ctx, s); err != nil {
		return ctrl.Result{}, err
	}
	if s.invalidSelector != "" {
		return ctrl.Result{}, nil // nothing is safe to do with MachineSets it would not count; a spec change brings it back
	}
	desired := machineset.DesiredReplicas(s.md.Spec.Replicas, s.md.Annotations)
	if ptr.Deref(s.md.Spec.Paused, false) {
		return ctrl.Result{}, r.scaleOnly(ctx, s, desired)
	}
	if err := r.rollout(ctx, s, desired); err != nil {
		return ctrl.Result{}, err
	}
	if err := r.cleanupOldMachineSets(ctx, s, desired); err != nil {
		return ctrl.Result{}, err
	}
	// A spec.rollout.after in the future needs a wake-up: no event marks its passing.
	if after := s.md.Spec.Rollout.After; !after.IsZero() && after.After(s.now) {
		return ctrl.Result{RequeueAfter: after.Sub(s.now) + time.Second}, nil
	}
	return ctrl.Result{}, nil
}

// ownTemplates makes the Cluster an owner of the templates the MachineDeployment's Machines are
// cloned from, as upstream does, so that they go with the Cluster.
func (r *Reconciler) ownTemplates(ctx context.Context, s *scope) error {
	spec := &s.md.Spec.Template.Spec
	return external.OwnTemplates(ctx, r.Client, s.cluster, s.md.Namespace, spec.InfrastructureRef, spec.Bootstrap.ConfigRef)
}

// read lists the MachineSets (adopting and releasing) and their Machines, and sorts the
// MachineSets into the current one and the old ones.
func (r *Reconciler) read(ctx context.Context, s *scope) error {
	sel, err := selectorFor(s.md)
	if s.invalidSelector = machineset.InvalidSelectorMessage(sel, err, "MachineDeployment", createdLabels(s.md)); s.invalidSelector != "" {
		ctrl.LoggerFrom(ctx).Info("Not reconciling MachineSets: " + s.invalidSelector)
		return nil
	}
	s.selector = sel
	if s.machineSets, err = r.getAndAdoptMachineSets(ctx, s); err != nil {
		return err
	}
	if s.machines, err = r.listMachines(ctx, s.md, s.machineSets); err != nil {
		return err
	}
	s.read = true
	hash := mdrollout.TemplateHash(&s.md.Spec.Template)
	for _, ms := range s.machineSets { // oldest revision first: the last current one wins
		if ms.DeletionTimestamp.IsZero() && mdrollout.IsCurrent(s.md, ms, hash, s.now) {
			s.newMS = ms
		}
	}
	for _, ms := range s.machineSets {
		if ms != s.newMS {
			s.oldMSs = append(s.oldMSs, ms)
		}
	}
	return nil
}

// rollout creates the current MachineSet when there is none, plans the next step with the
// strategy and writes the plan, the revision and the in-place fields to the MachineSets.
func (r *Reconciler) rollout(ctx context.Context, s *scope, desired int32) error {
	md := s.md
	onDelete := md.Spec.Rollout.Strategy.Type == clusterv1.OnDeleteMachineDeploymentStrategyType
	oldStates := make([]mdrollout.MachineSetState, len(s.oldMSs))
	for i, ms := range s.oldMSs {
		oldStates[i] = r.state(s, ms)
	}
	newState := mdrollout.MachineSetState{}
	if s.newMS != nil {
		newState = r.state(s, s.newMS)
	}

	var newReplicas, maxReplicas int32
	var oldReplicas []int32
	if onDelete {
		newReplicas, oldReplicas = mdrollout.PlanOnDelete(desired, oldStates)
		maxReplicas = desired
	} else {
		maxSurge, maxUnavailable, err := mdrollout.RollingUpdateLimits(desired, md.Spec.Rollout.Strategy.RollingUpdate)
		if err != nil {
			return err
		}
		newReplicas, oldReplicas = mdrollout.PlanRollingUpdate(desired, maxSurge, maxUnavailable, newState, oldStates)
		maxReplicas = desired + maxSurge
	}

	var maxOld int64
	for _, ms := range s.oldMSs {
		maxOld = max(maxOld, mdrollout.Revision(ms))
	}
	newRevision := maxOld + 1
	if s.newMS != nil && mdrollout.Revision(s.newMS) > maxOld {
		newRevision = mdrollout.Revision(s.newMS)
	}
	annotations := map[string]string{
		clusterv1.RevisionAnnotation:        strconv.FormatInt(newRevision, 10),
		clusterv1.DesiredReplicasAnnotation: strconv.FormatInt(int64(desired), 10),
		clusterv1.MaxReplicasAnnotation:     strconv.FormatInt(int64(maxReplicas), 10),
	}

	if s.newMS == nil {
		ms := newMachineSet(md, mdrollout.MachineSetSuffix(mdrollout.TemplateHash(&md.Spec.Template), mdrollout.RolloutAfter(md, s.now)), newReplicas)
		r.setCommonFields(md, ms, annotations, false)
		created, err := r.createMachineSet(ctx, s, ms)
		if err != nil || created == nil {
			return err
		}
		s.newMS = created
		s.machineSets = append(s.machineSets, created)
	}

	var errs []error
	desiredNew := s.newMS.DeepCopy()
	desiredNew.Spec.Replicas = ptr.To(newReplicas)
	syncInPlace(md, desiredNew)
	r.setCommonFields(md, desiredNew, annotations, false)
	if err := r.patchMachineSet(ctx, s.md, s.newMS, desiredNew); err != nil {
		errs = append(errs, err)
	}
	for i, ms := range s.oldMSs {
		if !ms.DeletionTimestamp.IsZero() {
			continue
		}
		desiredOld := ms.DeepCopy()
		desiredOld.Spec.Replicas = ptr.To(oldReplicas[i])
		r.setCommonFields(md, desiredOld, map[string]string{
			clusterv1.DesiredReplicasAnnotation: annotations[clusterv1.DesiredReplicasAnnotation],
			clusterv1.MaxReplicasAnnotation:     annotations[clusterv1.MaxReplicasAnnotation],
		}, onDelete)
		if err := r.patchMachineSet(ctx, s.md, ms, desiredOld); err != nil {
			errs = append(errs, err)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}

	if md.Annotations[clusterv1.RevisionAnnotation] != annotations[clusterv1.RevisionAnnotation] {
		if md.Annotations == nil {
			md.Annotations = map[string]string{}
		}
		md.Annotations[clusterv1.RevisionAnnotation] = annotations[clusterv1.RevisionAnnotation]
	}
	if onDelete && len(s.oldMSs) > 0 && s.rolloutBlocked == "" {
		s.rolloutBlocked = "the OnDelete strategy replaces a Machine only after it is deleted: delete the old Machines to continue"
	}
	return nil
}

// setCommonFields sets what every MachineSet of the MachineDeployment carries: the given
// annotations, the deletion order and Machine naming, and, for an old MachineSet under the
// OnDelete strategy, the annotation that stops it from replacing the Machines users delete.
func (r *Reconciler) setCommonFields(md *clusterv1.MachineDeployment, ms *clusterv1.MachineSet, annotations map[string]string, disableCreate bool) {
	if ms.Annotations == nil {
		ms.Annotations = map[string]string{}
	}
	for k, v := range annotations {
		ms.Annotations[k] = v
	}
	if disableCreate {
		ms.Annotations[clusterv1.DisableMachineCreateAnnotation] = "true"
	} else {
		delete(ms.Annotations, clusterv1.DisableMachineCreateAnnotation)
	}
	ms.Spec.Deletion.Order = md.Spec.Deletion.Order
	ms.Spec.MachineNaming = md.Spec.MachineNaming
}

// patchMachineSet writes the difference between ms and desired, with an optimistic lock: a plan
// computed from a MachineSet the cache shows stale must not overwrite a newer spec.replicas.
func (r *Reconciler) patchMachineSet(ctx context.Context, md *clusterv1.MachineDeployment, ms, desired *clusterv1.MachineSet) error {
	if equality.Semantic.DeepEqual(ms.ObjectMeta, desired.ObjectMeta) && equality.Semantic.DeepEqual(ms.Spec, desired.Spec) {
		return nil
	}
	log := ctrl.LoggerFrom(ctx).WithValues("MachineSet", klog.KObj(ms))
	from, to := ptr.Deref(ms.Spec.Replicas, 1), ptr.Deref(desired.Spec.Replicas, 1)
	if from != to {
		log.Info("Scaling MachineSet", "from", from, "to", to)
	} else {
		log.V(4).Info("Updating MachineSet")
	}
	err := r.Client.Patch(ctx, desired, client.MergeFromWithOptions(ms, client.MergeFromWithOptimisticLock{}))
	// A conflict is the stale cache's: the next reconcile plans again, it is no failure to report.
	if from != to && !apierrors.IsConflict(err) {
		r.recordScale(md, ms, from, to, err)
	}
	if err != nil {
		return fmt.Errorf("updating MachineSet %s: %w", ms.Name, err)
	}
	*ms = *desired
	return nil
}

// state is what the planners need to know about ms: its spec.replicas and, in its deletion
// order, whether each of its Machines that is not being deleted is available.
func (r *Reconciler) state(s *scope, ms *clusterv1.MachineSet) mdrollout.MachineSetState {
	var live []*clusterv1.Machine
	for _, m := range s.machines[ms.UID] {
		if m.DeletionTimestamp.IsZero() {
			live = append(live, m)
		}
	}
	// Admission accepts only orders SortForDeletion knows; were one unknown, the MachineSet would
	// refuse to scale down, and the list is left in name order.
	_ = machineset.SortForDeletion(live, ms.Spec.Deletion.Order)
	st := mdrollout.MachineSetState{Replicas: machineset.DesiredReplicas(ms.Spec.Replicas, ms.Annotations)}
	for _, m := range live {
		st.Available = append(st.Available, conditions.IsTrue(m, clusterv1.MachineAvailableCondition))
	}
	return st
}

// scaleOnly is the reconcile while spec.paused is true: no MachineSet is created or replaced;
// the current MachineSet (or the newest one) absorbs replica changes.
func (r *Reconciler) scaleOnly(ctx context.Context, s *scope, desired int32) error {
	s.rolloutBlocked = "the rollout is paused by spec.paused"
	var live []*clusterv1.MachineSet
	for _, ms := range s.machineSets {
		if ms.DeletionTimestamp.IsZero() {
			live = append(live, ms)
		}
	}
	if len(live) == 0 {
		return nil
	}
	active := s.newMS
	if active == nil {
		active = live[len(live)-1]
	}
	var others []*clusterv1.MachineSet
	var otherReplicas []int32
	for _, ms := range live {
		if ms != active {
			others = append(others, ms)
			otherReplicas = append(otherReplicas, machineset.DesiredReplicas(ms.Spec.Replicas, ms.Annotations))
		}
	}
	activeReplicas, otherReplicas := mdrollout.PlanScaleOnly(desired, otherReplicas)
	var errs []error
	for i, ms := range append(others, active) {
		replicas := activeReplicas
		if i < len(others) {
			replicas = otherReplicas[i]
		}
		d := ms.DeepCopy()
		d.Spec.Replicas = ptr.To(replicas)
		if d.Annotations == nil {
			d.Annotations = map[string]string{}
		}
		d.Annotations[clusterv1.DesiredReplicasAnnotation] = strconv.FormatInt(int64(desired), 10)
		if err := r.patchMachineSet(ctx, s.md, ms, d); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// cleanupOldMachineSets deletes the old MachineSets once the rollout is complete: the current
// MachineSet wants all replicas and no old MachineSet wants or still has a Machine.
func (r *Reconciler) cleanupOldMachineSets(ctx context.Context, s *scope, desired int32) error {
	if s.newMS == nil || ptr.Deref(s.newMS.Spec.Replicas, 0) != desired {
		return nil
	}
	for _, ms := range s.oldMSs {
		if ms.DeletionTimestamp.IsZero() && ptr.Deref(ms.Spec.Replicas, 0) != 0 || len(s.machines[ms.UID]) > 0 {
			return nil
		}
	}
	var errs []error
	for _, ms := range s.oldMSs {
		if !ms.DeletionTimestamp.IsZero() {
			continue
		}
		ctrl.LoggerFrom(ctx).Info("Deleting old MachineSet: the rollout is complete", "MachineSet", klog.KObj(ms))
		err := r.Client.Delete(ctx, ms)
		if apierrors.IsNotFound(err) {
			continue
		}
		r.recordDelete(s.md, ms, err)
		if err != nil {
			errs = append(errs, fmt.Errorf("deleting old MachineSet %s: %w", ms.Name, err))
		}
	}
	return errors.Join(errs...)
}
