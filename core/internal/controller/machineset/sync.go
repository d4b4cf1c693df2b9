package machineset

import (
	"context"
	"errors"
	"fmt"

	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/conditions"
)

// syncMachines propagates the template's in-place fields to the MachineSet's Machines and sets
// their UpToDate condition. In-place fields are those a Machine can change without being
// replaced: labels and annotations (added or overwritten, never removed, since the Machine may
// carry labels of its own), minReadySeconds, readinessGates and the deletion timeouts.
func (r *Reconciler) syncMachines(ctx context.Context, s *scope) (ctrl.Result, error) {
	upToDate := upToDateCondition(s)
	var errs []error
	for _, m := range s.machines {
		if deleting(m) {
			continue
		}
		if err := r.syncInPlaceFields(ctx, s.ms, m); err != nil {
			errs = append(errs, err)
			continue
		}
		// A Machine whose status the Machine controller has not written yet (no phase) gets
		// the condition with that first write: a write of its own here would be one more
		// status write of every new Machine, racing the Machine controller's.
		if upToDate != nil && m.Status.Phase != "" {
			if err := r.setMachineCondition(ctx, m, *upToDate); err != nil {
				errs = append(errs, err)
			}
		}
	}
	return ctrl.Result{}, errors.Join(errs...)
}

func (r *Reconciler) syncInPlaceFields(ctx context.Context, ms *clusterv1.MachineSet, m *clusterv1.Machine) error {
	tmpl := &ms.Spec.Template
	base := m.DeepCopy()
	for k, v := range tmpl.Labels {
		if m.Labels == nil {
			m.Labels = map[string]string{}
		}
		m.Labels[k] = v
	}
	for k, v := range tmpl.Annotations {
		if m.Annotations == nil {
			m.Annotations = map[string]string{}
		}
		m.Annotations[k] = v
	}
	m.Spec.MinReadySeconds = tmpl.Spec.MinReadySeconds
	m.Spec.ReadinessGates = tmpl.Spec.ReadinessGates
	m.Spec.Deletion = tmpl.Spec.Deletion
	m.Spec.Taints = tmpl.Spec.Taints
	if equality.Semantic.DeepEqual(base.Labels, m.Labels) && equality.Semantic.DeepEqual(base.Annotations, m.Annotations) &&
		equality.Semantic.DeepEqual(base.Spec, m.Spec) {
		return nil
	}
	ctrl.LoggerFrom(ctx).Info("Updating in-place fields of Machine from spec.template", "Machine", klog.KObj(m))
	if err := r.Client.Patch(ctx, m, client.MergeFrom(base)); err != nil {
		return fmt.Errorf("updating in-place fields of Machine %s: %w", m.Name, err)
	}
	return nil
}

// upToDateCondition is the UpToDate condition of the MachineSet's Machines (MachineUpToDateCondition).
func upToDateCondition(s *scope) *metav1.Condition {
	return MachineUpToDateCondition(s.ms, s.deployment)
}

// MachineUpToDateCondition is the UpToDate condition of the Machines of ms, whose controlling
// MachineDeployment is md (nil when there is none or it cannot be found): a standalone
// MachineSet's Machines are always up to date (its template cannot roll out); a
// MachineDeployment's are up to date when the MachineSet is the MachineDeployment's current
// revision. Nil means unknown (the owner is gone): the condition is left as it is. The Machine
// controller gives a new Machine this condition with its first status; the MachineSet
// maintains it from then on.
func MachineUpToDateCondition(ms *clusterv1.MachineSet, md *clusterv1.MachineDeployment) *metav1.Condition {
	owner := metav1.GetControllerOf(ms)
	switch {
	case owner == nil || owner.Kind != "MachineDeployment":
		c := conditions.True(clusterv1.MachineUpToDateCondition, clusterv1.MachineUpToDateReason, "")
		return &c
	case md == nil:
		return nil
	case isCurrentRevision(ms, md):
		c := conditions.True(clusterv1.MachineUpToDateCondition, clusterv1.MachineUpToDateReason, "")
		return &c
	default:
		c := conditions.False(clusterv1.MachineUpToDateCondition, clusterv1.MachineNotUpToDateReason,
			fmt.Sprintf("%s is at revision %q and MachineDeployment %s/%s at revision %q: the Machine will be replaced by the rollout",
				describeMS(ms), ms.Annotations[clusterv1.RevisionAnnotation], md.Namespace, md.Name,
				md.Annotations[clusterv1.RevisionAnnotation]))
		return &c
	}
}

// setMachineCondition writes c on m's status unless it already says the same. The patch carries
// an optimistic lock: the Machine controller owns the rest of the status, and a merge patch of a
// stale list would drop its latest conditions.
func (r *Reconciler) setMachineCondition(ctx context.Context, m *clusterv1.Machine, c metav1.Condition) error {
	if cur := conditions.Get(m, c.Type); cur != nil && cur.Status == c.Status && cur.Reason == c.Reason && cur.Message == c.Message {
		return nil
	}
	base := m.DeepCopy()
	conditions.Set(m, c)
	if err := r.Client.Status().Patch(ctx, m, client.MergeFromWithOptions(base, client.MergeFromWithOptimisticLock{})); err != nil {
		return fmt.Errorf("setting condition %s on Machine %s: %w", c.Type, m.Name, err)
	}
	return nil
}
