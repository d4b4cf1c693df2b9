package machineset

import (
	"context"
	"errors"
	"fmt"
	"sort"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/klog/v2"
	ctrl "sigs.k8s.io/controller-runtime"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/conditions"
)

// needsRemediation reports whether a MachineHealthCheck asked the owner to remediate m.
func needsRemediation(m *clusterv1.Machine) bool {
	hc := conditions.Get(m, clusterv1.MachineHealthCheckSucceededCondition)
	or := conditions.Get(m, clusterv1.MachineOwnerRemediatedCondition)
	return hc != nil && hc.Status == metav1.ConditionFalse && or != nil && or.Status == metav1.ConditionFalse
}

// cannotBeRemediated reports whether this controller told the MachineHealthCheck it will not
// remediate m (its MachineSet is an old revision, which the rollout replaces anyway).
func cannotBeRemediated(m *clusterv1.Machine) bool {
	c := conditions.Get(m, clusterv1.MachineOwnerRemediatedCondition)
	return c != nil && c.Reason == clusterv1.MachineSetMachineCannotBeRemediatedReason
}

// remediationInFlight reports whether m is a Machine this controller deleted for remediation and
// that is still going through its deletion.
func remediationInFlight(m *clusterv1.Machine) bool {
	c := conditions.Get(m, clusterv1.MachineOwnerRemediatedCondition)
	return deleting(m) && c != nil && c.Reason == clusterv1.MachineSetMachineRemediationMachineDeletingReason
}

// remediateUnhealthyMachines deletes the Machines a MachineHealthCheck marked, oldest first; the
// replica reconciliation creates their replacements once they are gone.
//
// A MachineDeployment's MachineSet remediates only while it is the current revision (an older
// revision's Machines are replaced by the rollout anyway), and at most
// spec.remediation.maxInFlight of the MachineDeployment's replicas at a time, counting the
// Machines whose remediation is still deleting them.
func (r *Reconciler) remediateUnhealthyMachines(ctx context.Context, s *scope) (ctrl.Result, error) {
	log := ctrl.LoggerFrom(ctx)
	var candidates []*clusterv1.Machine
	inFlight := 0
	for _, m := range s.machines {
		switch {
		case remediationInFlight(m):
			inFlight++
		case !deleting(m) && needsRemediation(m):
			candidates = append(candidates, m)
		}
	}
	if len(candidates) == 0 {
		return ctrl.Result{}, nil
	}

	maxInFlight := len(candidates) + inFlight
	var limitSource string
	if owner := metav1.GetControllerOf(s.ms); owner != nil && owner.Kind == "MachineDeployment" {
		if s.deployment == nil {
			log.Info("Not remediating Machines while the owning MachineDeployment cannot be read")
			return ctrl.Result{}, nil
		}
		if !isCurrentRevision(s.ms, s.deployment) {
			return ctrl.Result{}, r.setConditionOnAll(ctx, candidates, conditions.False(clusterv1.MachineOwnerRemediatedCondition,
				clusterv1.MachineSetMachineCannotBeRemediatedReason,
				"Machine won't be remediated because it is pending removal due to rollout"))
		}
		if mif := s.deployment.Spec.Remediation.MaxInFlight; mif != nil {
			replicas := int(DesiredReplicas(s.deployment.Spec.Replicas, s.deployment.Annotations))
			v, err := intstr.GetScaledValueFromIntOrPercent(mif, replicas, true)
			if err != nil {
				return ctrl.Result{}, fmt.Errorf("spec.remediation.maxInFlight of MachineDeployment %s/%s: %w",
					s.deployment.Namespace, s.deployment.Name, err)
			}
			maxInFlight = v
			limitSource = fmt.Sprintf("spec.remediation.maxInFlight of MachineDeployment %s/%s is %s",
				s.deployment.Namespace, s.deployment.Name, mif.String())
		}
	}

	if held, err := r.holdRemediationForPreflight(ctx, s, candidates); err != nil || held {
		return ctrl.Result{RequeueAfter: preflightFailedRequeue}, err
	}

	sort.SliceStable(candidates, func(i, j int) bool {
		a, b := candidates[i], candidates[j]
		if !a.CreationTimestamp.Equal(&b.CreationTimestamp) {
			return a.CreationTimestamp.Before(&b.CreationTimestamp)
		}
		return a.Name < b.Name
	})
	allowed := max(0, maxInFlight-inFlight)
	remediate := candidates
	if len(remediate) > allowed {
		deferred := remediate[allowed:]
		remediate = remediate[:allowed]
		s.deferredRemediations = len(deferred)
		log.Info("Deferring remediation of Machines: too many remediations in flight",
			"inFlight", inFlight, "maxInFlight", maxInFlight, "deferred", len(deferred))
		if err := r.setConditionOnAll(ctx, deferred, conditions.False(clusterv1.MachineOwnerRemediatedCondition,
			clusterv1.MachineSetMachineRemediationDeferredReason,
			fmt.Sprintf("Waiting because there are already %d remediations in progress (%s)", inFlight+len(remediate), limitSource))); err != nil {
			return ctrl.Result{}, err
		}
	}

	var errs []error
	for _, m := range remediate {
		// The condition goes first: it is how later reconciles count this remediation as in
		// flight while the Machine drains and its infrastructure goes away.
		if err := r.setMachineCondition(ctx, m, conditions.False(clusterv1.MachineOwnerRemediatedCondition,
			clusterv1.MachineSetMachineRemediationMachineDeletingReason,
			"Machine is deleting; its MachineSet creates a replacement once it is gone")); err != nil {
			errs = append(errs, err)
			continue
		}
		log.Info("Deleting unhealthy Machine for remediation", "Machine", klog.KObj(m))
		if err := r.Client.Delete(ctx, m); err != nil && !apierrors.IsNotFound(err) {
			r.recordDelete(s.ms, m, "remediation", err)
			errs = append(errs, fmt.Errorf("deleting unhealthy Machine %s: %w", m.Name, err))
			continue
		}
		r.recordDelete(s.ms, m, "remediation", nil)
		now := metav1.Now()
		m.DeletionTimestamp = &now // counted as deleting by the rest of this reconcile
	}
	return ctrl.Result{}, errors.Join(errs...)
}

// holdRemediationForPreflight runs the preflight checks before unhealthy Machines are
// deleted, as upstream: a replacement could not be created while they fail, so the
// Machines are kept and told why.
func (r *Reconciler) holdRemediationForPreflight(ctx context.Context, s *scope, candidates []*clusterv1.Machine) (bool, error) {
	failed, err := r.runPreflightChecks(ctx, s)
	if err != nil || len(failed) == 0 {
		return false, err
	}
	msg := preflightBlockedMessage(failed)
	ctrl.LoggerFrom(ctx).Info("Not remediating Machines: " + msg)
	return true, r.setConditionOnAll(ctx, candidates, conditions.False(clusterv1.MachineOwnerRemediatedCondition,
		clusterv1.MachineSetMachineRemediationDeferredReason, "Remediation is "+msg))
}

func (r *Reconciler) setConditionOnAll(ctx context.Context, machines []*clusterv1.Machine, c metav1.Condition) error {
	var errs []error
	for _, m := range machines {
		if err := r.setMachineCondition(ctx, m, c); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
