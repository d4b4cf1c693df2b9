package machinehealthcheck

import (
	"context"
	"fmt"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/klog/v2"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/conditions"
	"capstan.dev/contracts/external"
	"capstan.dev/contracts/owner"
)

// ExternalRemediationFieldManager owns the ExternallyRemediated condition this controller
// writes, apart from the other two (see HealthCheckFieldManager).
const ExternalRemediationFieldManager = "capstan-machinehealthcheck-external-remediation"

// remediationRequest returns the identity of the Machine's external remediation
// request, as upstream names it: the template's kind without the Template suffix, in
// the template's group/version, named like the Machine, in its namespace.
func remediationRequest(mhc *clusterv1.MachineHealthCheck, m *clusterv1.Machine) (*unstructured.Unstructured, schema.GroupVersion, error) {
	ref := mhc.Spec.Remediation.TemplateRef
	gv, err := schema.ParseGroupVersion(ref.APIVersion)
	if err != nil {
		return nil, gv, fmt.Errorf("spec.remediation.templateRef.apiVersion %q of MachineHealthCheck %s: %w", ref.APIVersion, mhc.Name, err)
	}
	req := &unstructured.Unstructured{}
	req.SetGroupVersionKind(gv.WithKind(strings.TrimSuffix(ref.Kind, clusterv1.TemplateSuffix)))
	req.SetNamespace(m.Namespace)
	req.SetName(m.Name)
	return req, gv, nil
}

// requestExternalRemediation makes sure an unhealthy Machine has its remediation request,
// cloned from the MachineHealthCheck's remediation.templateRef and owned by the Machine
// (so it goes with it), and that ExternallyRemediated says the Machine waits for it. An
// ExternallyRemediated=False the external controller already set is left to it.
func (r *Reconciler) requestExternalRemediation(ctx context.Context, mhc *clusterv1.MachineHealthCheck, t *target, now time.Time) error {
	m := t.machine
	req, gv, err := remediationRequest(mhc, m)
	if err != nil {
		return err
	}
	err = r.Client.Get(ctx, client.ObjectKeyFromObject(req), req.DeepCopy())
	if apierrors.IsNotFound(err) {
		var reason, msg string
		reason, msg, err = r.createRemediationRequest(ctx, mhc, m, gv)
		if reason != "" {
			c := conditions.Stamp(m, conditions.False(clusterv1.MachineExternallyRemediatedCondition, reason, msg), now)
			if cur := conditions.Get(m, c.Type); cur == nil || !conditions.Same(*cur, c) {
				if applyErr := r.applyCondition(ctx, m, c, ExternalRemediationFieldManager, false); applyErr != nil {
					return applyErr
				}
			}
			return err
		}
	}
	if err != nil {
		return err
	}
	if cur := conditions.Get(m, clusterv1.MachineExternallyRemediatedCondition); cur != nil && cur.Status == metav1.ConditionFalse &&
		cur.Reason != clusterv1.MachineExternallyRemediatedRemediationTemplateNotFoundReason &&
		cur.Reason != clusterv1.MachineExternallyRemediatedRemediationRequestCreationFailedReason {
		return nil
	}
	c := conditions.Stamp(m, conditions.False(clusterv1.MachineExternallyRemediatedCondition,
		clusterv1.MachineExternallyRemediatedWaitingForRemediationReason, ownerRemediatedWaitingMessage), now)
	if err := r.applyCondition(ctx, m, c, ExternalRemediationFieldManager, true); err != nil {
		return err
	}
	r.recordMarkedUnhealthy(mhc, t)
	return nil
}

// createRemediationRequest clones the template into the Machine's remediation request. A
// reason is returned when the user must act (template missing) or the creation failed.
func (r *Reconciler) createRemediationRequest(ctx context.Context, mhc *clusterv1.MachineHealthCheck, m *clusterv1.Machine, gv schema.GroupVersion) (reason, msg string, err error) {
	ref := mhc.Spec.Remediation.TemplateRef
	tmpl := &unstructured.Unstructured{}
	tmpl.SetGroupVersionKind(gv.WithKind(ref.Kind))
	if err := r.Client.Get(ctx, client.ObjectKey{Namespace: mhc.Namespace, Name: ref.Name}, tmpl); err != nil {
		// A kind the API server does not serve (its CRD is missing) is, for the user, a
		// missing template too.
		if apierrors.IsNotFound(err) || meta.IsNoMatchError(err) {
			return clusterv1.MachineExternallyRemediatedRemediationTemplateNotFoundReason, fmt.Sprintf(
				"%s %s/%s (spec.remediation.templateRef of MachineHealthCheck %s) does not exist: create it, or fix the templateRef",
				ref.Kind, mhc.Namespace, ref.Name, mhc.Name), nil
		}
		return "", "", fmt.Errorf("reading %s %s: %w", ref.Kind, ref.Name, err)
	}
	ctrl.LoggerFrom(ctx).Info("Creating an external remediation request for an unhealthy Machine", "Machine", klog.KObj(m),
		"kind", strings.TrimSuffix(ref.Kind, clusterv1.TemplateSuffix))
	_, err = external.CloneTemplateObject(ctx, r.Client, tmpl, gv, external.CloneInput{
		Namespace: m.Namespace, Name: m.Name, ClusterName: m.Spec.ClusterName,
		Owner: &metav1.OwnerReference{APIVersion: clusterv1.GroupVersion.String(), Kind: "Machine", Name: m.Name, UID: m.UID},
	})
	switch {
	case err == nil, apierrors.IsAlreadyExists(err):
		return "", "", nil
	default:
		return clusterv1.MachineExternallyRemediatedRemediationRequestCreationFailedReason, err.Error(), err
	}
}

// cancelExternalRemediation deletes the remediation request of a Machine that is healthy
// again (only the one it owns) and removes its ExternallyRemediated condition.
func (r *Reconciler) cancelExternalRemediation(ctx context.Context, mhc *clusterv1.MachineHealthCheck, t *target) error {
	m := t.machine
	req, _, err := remediationRequest(mhc, m)
	if err != nil {
		return err
	}
	err = r.Client.Get(ctx, client.ObjectKeyFromObject(req), req)
	switch {
	case err == nil && owner.HasUID(req, m.UID):
		ctrl.LoggerFrom(ctx).Info("Deleting the external remediation request of a Machine that is healthy again", "Machine", klog.KObj(m))
		if err := r.Client.Delete(ctx, req); err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("deleting %s %s: %w", req.GetKind(), req.GetName(), err)
		}
	case err != nil && !apierrors.IsNotFound(err) && !meta.IsNoMatchError(err):
		return fmt.Errorf("reading %s %s: %w", req.GetKind(), req.GetName(), err)
	}
	return r.removeCondition(ctx, m, clusterv1.MachineExternallyRemediatedCondition)
}
