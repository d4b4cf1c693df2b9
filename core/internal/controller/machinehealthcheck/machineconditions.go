package machinehealthcheck

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/conditions"
)

// The field managers of the two Machine conditions this controller writes. Each owns one
// entry of status.conditions (a listType=map keyed by type), so applying it leaves every
// other entry, the Machine controller's and the owner's, untouched. They are separate so
// that writing HealthCheckSucceeded never has to restate OwnerRemediated, which the
// Machine's owner takes over once it starts remediating (omitting it from an apply would
// remove the fields this manager still owns).
const (
	HealthCheckFieldManager     = "capstan-machinehealthcheck"
	OwnerRemediatedFieldManager = "capstan-machinehealthcheck-remediation"
)

// errLostRace marks a condition write that failed because the Machine changed since it
// was read (a guarded apply's Conflict, or a JSON patch whose test no longer holds): a
// retry on a fresh read settles it.
var errLostRace = errors.New("the Machine changed since it was read")

// ownerRemediatedWaitingMessage is OwnerRemediated's message while the owner has not
// picked the Machine up.
const ownerRemediatedWaitingMessage = "Waiting for remediation"

// markMachine brings a target's conditions to what its health calls for, writing nothing
// when they already say it: HealthCheckSucceeded is always set, and markRemediation
// asks for or withdraws remediation.
func (r *Reconciler) markMachine(ctx context.Context, mhc *clusterv1.MachineHealthCheck, t *target, remediationAllowed bool, now time.Time) error {
	m := t.machine
	if err := r.markRemediation(ctx, mhc, t, remediationAllowed, now); err != nil {
		return err
	}
	want := conditions.Stamp(m, t.condition, now)
	if cur := conditions.Get(m, want.Type); cur != nil && conditions.Same(*cur, want) {
		return nil
	}
	ctrl.LoggerFrom(ctx).V(2).Info("Setting condition HealthCheckSucceeded", "Machine", klog.KObj(m), "status", want.Status, "reason", want.Reason)
	return r.applyCondition(ctx, m, want, HealthCheckFieldManager, false)
}

// markRemediation, with remediation.templateRef, hands an unhealthy Machine to the
// external remediation controller through a remediation request and withdraws the
// request once the Machine is healthy again. Without it:
//   - an unhealthy Machine, when remediation is allowed, gets OwnerRemediated=False
//     (WaitingForRemediation) unless it already has OwnerRemediated=False: then its owner
//     is remediating and owns the condition;
//   - a healthy Machine loses OwnerRemediated.
func (r *Reconciler) markRemediation(ctx context.Context, mhc *clusterv1.MachineHealthCheck, t *target, remediationAllowed bool, now time.Time) error {
	m := t.machine
	if mhc.Spec.Remediation.TemplateRef.IsDefined() {
		switch {
		case !t.unhealthy:
			return r.cancelExternalRemediation(ctx, mhc, t)
		case remediationAllowed:
			return r.requestExternalRemediation(ctx, mhc, t, now)
		}
		return nil
	}
	log := ctrl.LoggerFrom(ctx).WithValues("Machine", klog.KObj(m))
	owner := conditions.Get(m, clusterv1.MachineOwnerRemediatedCondition)
	switch {
	case !t.unhealthy && owner != nil:
		log.Info("Removing condition OwnerRemediated from a healthy Machine")
		return r.removeCondition(ctx, m, clusterv1.MachineOwnerRemediatedCondition)
	case t.unhealthy && remediationAllowed && (owner == nil || owner.Status == metav1.ConditionTrue):
		log.Info("Asking the Machine's owner to remediate it", "reason", t.condition.Reason, "message", t.condition.Message)
		c := conditions.Stamp(m, conditions.False(clusterv1.MachineOwnerRemediatedCondition,
			clusterv1.MachineOwnerRemediatedWaitingForRemediationReason, ownerRemediatedWaitingMessage), now)
		// Guarded by the resourceVersion read: the owner may have taken the condition over
		// since, and its word must not be overwritten from a stale read.
		if err := r.applyCondition(ctx, m, c, OwnerRemediatedFieldManager, true); err != nil {
			return err
		}
		r.recordMarkedUnhealthy(mhc, t)
	}
	return nil
}

// applyCondition server-side applies one condition of the Machine's status under
// manager. With guard, the apply carries the resourceVersion read and fails with a
// Conflict when the Machine changed since.
func (r *Reconciler) applyCondition(ctx context.Context, m *clusterv1.Machine, c metav1.Condition, manager string, guard bool) error {
	err := conditions.Apply(ctx, r.Client, m, clusterv1.GroupVersion.String(), "Machine", []metav1.Condition{c},
		conditions.ApplyOptions{FieldManager: manager, Guard: guard})
	if err != nil {
		if apierrors.IsConflict(err) {
			err = fmt.Errorf("%w: %w", errLostRace, err)
		}
		return fmt.Errorf("setting condition %s on Machine %s: %w", c.Type, m.Name, err)
	}
	return nil
}

// removeCondition removes one condition from the Machine's status with a JSON patch that
// first tests that the entry at the index read still has that type, so a list that
// changed in between fails the patch instead of losing someone else's condition.
func (r *Reconciler) removeCondition(ctx context.Context, m *clusterv1.Machine, conditionType string) error {
	idx := -1
	for i, c := range m.Status.Conditions {
		if c.Type == conditionType {
			idx = i
		}
	}
	if idx < 0 {
		return nil
	}
	path := fmt.Sprintf("/status/conditions/%d", idx)
	ops, err := json.Marshal([]map[string]any{
		{"op": "test", "path": path + "/type", "value": conditionType},
		{"op": "remove", "path": path},
	})
	if err != nil {
		return err
	}
	if err := r.Client.Status().Patch(ctx, m.DeepCopy(), client.RawPatch(types.JSONPatchType, ops)); err != nil {
		if apierrors.IsInvalid(err) { // the API server answers a failed test op with 422
			err = fmt.Errorf("%w: %w", errLostRace, err)
		}
		return fmt.Errorf("removing condition %s from Machine %s: %w", conditionType, m.Name, err)
	}
	return nil
}
