package clusterclass

import (
	"context"
	"errors"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation/field"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/contract"
	"capstan.dev/core/internal/topology/variables"
)

// noKindRequeue is how often a template of a kind the API server does not serve is looked for
// again: no watch can be set up on a kind that does not exist.
const noKindRequeue = 10 * time.Second

func (r *Reconciler) reconcileNormal(ctx context.Context, s *scope) (ctrl.Result, error) {
	res, err := r.reconcileTemplates(ctx, s)
	if retry := r.reconcileVariables(ctx, s); retry && (res.RequeueAfter == 0 || res.RequeueAfter > discoveryRetry) {
		res.RequeueAfter = discoveryRetry
	}
	return res, err
}

// reconcileTemplates reads, watches and owns each template once, however often it is referenced.
func (r *Reconciler) reconcileTemplates(ctx context.Context, s *scope) (ctrl.Result, error) {
	var res ctrl.Result
	var errs []error
	seen := map[string]bool{}
	for _, t := range templateRefs(s.class) {
		if seen[t.key()] {
			continue
		}
		seen[t.key()] = true
		requeue, err := r.reconcileTemplate(ctx, s, t)
		errs = append(errs, err)
		if requeue {
			res.RequeueAfter = noKindRequeue
		}
	}
	return res, errors.Join(errs...)
}

// reconcileTemplate handles one template; requeue says it must be looked for again because its
// kind cannot be watched.
func (r *Reconciler) reconcileTemplate(ctx context.Context, s *scope, t templateRef) (requeue bool, err error) {
	what := fmt.Sprintf("%s %s (%s)", t.ref.Kind, t.ref.Name, t.path)
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(t.ref.GroupVersionKind())
	err = r.Client.Get(ctx, client.ObjectKey{Namespace: s.class.Namespace, Name: t.ref.Name}, u)
	if meta.IsNoMatchError(err) {
		s.refProblems = append(s.refProblems, fmt.Sprintf("%s: the API server does not serve kind %s at %s: install the provider that serves it, or fix kind and apiVersion",
			what, t.ref.Kind, t.ref.APIVersion))
		return true, nil
	}
	probe := &unstructured.Unstructured{}
	probe.SetGroupVersionKind(t.ref.GroupVersionKind())
	if werr := r.tracker.Watch(ctrl.LoggerFrom(ctx), probe); werr != nil {
		return false, werr
	}
	switch {
	case apierrors.IsNotFound(err):
		s.refProblems = append(s.refProblems, fmt.Sprintf("%s does not exist in namespace %s: create it, or point the reference at an existing template",
			what, s.class.Namespace))
		return false, nil // the watch on its kind brings the class back when it is created
	case err != nil:
		return false, fmt.Errorf("reading %s: %w", what, err)
	}
	r.checkVersion(ctx, s, t)
	return false, r.ensureOwner(ctx, s.class, u)
}

// checkVersion records a reference that names an older API version than the one its CRD's
// contract label declares (upstream reports it; it never rewrites the class).
func (r *Reconciler) checkVersion(ctx context.Context, s *scope, t templateRef) {
	gvk := t.ref.GroupVersionKind()
	v, err := contract.GetContractVersion(ctx, r.Client, gvk.GroupKind())
	if err != nil {
		s.refProblems = append(s.refProblems, fmt.Sprintf("%s %s (%s): %v", t.ref.Kind, t.ref.Name, t.path, err))
		return
	}
	if v.APIVersion != gvk.Version {
		s.outdated = append(s.outdated, fmt.Sprintf("%s %s (%s) is referenced at %s, but its CRD declares the %s contract at %s: set apiVersion to %s",
			t.ref.Kind, t.ref.Name, t.path, gvk.Version, v.Contract, v.APIVersion, gvk.GroupVersion().Group+"/"+v.APIVersion))
	}
}

// ensureOwner adds the class to the template's owners (not as controller: a template may be
// shared by several classes), so that deleting the class garbage-collects it.
func (r *Reconciler) ensureOwner(ctx context.Context, cc *clusterv1.ClusterClass, u *unstructured.Unstructured) error {
	for _, o := range u.GetOwnerReferences() {
		if o.UID == cc.UID {
			return nil
		}
	}
	before := u.DeepCopy()
	u.SetOwnerReferences(append(u.GetOwnerReferences(), metav1.OwnerReference{
		APIVersion: clusterv1.GroupVersion.String(), Kind: clusterv1.ClusterClassKind, Name: cc.Name, UID: cc.UID,
	}))
	ctrl.LoggerFrom(ctx).Info("Adding the ClusterClass as owner of "+u.GetKind(), u.GetKind(), u.GetName())
	if err := r.Client.Patch(ctx, u, client.MergeFromWithOptions(before, client.MergeFromWithOptimisticLock{})); err != nil {
		return fmt.Errorf("adding the ClusterClass as owner of %s %s: %w", u.GetKind(), u.GetName(), err)
	}
	return nil
}

// reconcileVariables compiles the variable schemas, checks the patches and discovers the
// external patches' variables; status.variables is published only when all are valid, so
// Clusters never see a definition that cannot be used. Definitions of one name that differ are
// published with definitionsConflict (Clusters of the class then fail validation, as upstream's)
// and make VariablesReady False. retry says a DiscoverVariables call failed.
func (r *Reconciler) reconcileVariables(ctx context.Context, s *scope) (retry bool) {
	cc := s.class
	for i, v := range cc.Spec.Variables {
		path := field.NewPath("spec", "variables").Index(i).Child("schema", "openAPIV3Schema")
		if _, errs := variables.CompileSchema(path, v.Schema.OpenAPIV3Schema); len(errs) > 0 {
			for _, e := range errs {
				s.variableProblems = append(s.variableProblems, fmt.Sprintf("variable %q: %s", v.Name, e.Error()))
			}
		}
	}
	for _, e := range validatePatches(cc) {
		s.variableProblems = append(s.variableProblems, e.Error())
	}
	external, retry := r.discoverVariables(ctx, s)
	if len(s.variableProblems) == 0 {
		cc.Status.Variables, s.variableProblems = mergeVariables(cc.Spec.Variables, external)
	}
	return retry
}
