package clusterresourceset

import (
	"context"
	"crypto/sha256"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	addonsv1 "capstan.dev/contracts/api/addons/v1beta2"
)

// fieldManagerPrefix starts the server-side apply field manager of every ClusterResourceSet.
const fieldManagerPrefix = "clusterresourceset/"

// maxFieldManagerLength is the API server's limit on a field manager's length.
const maxFieldManagerLength = 128

// fieldManager is the field manager a ClusterResourceSet applies with: clusterresourceset/<name>,
// so `kubectl get -o yaml --show-managed-fields` in the workload cluster says which one set a
// field. A name too long for the limit is cut and ends in a hash of the full name.
func fieldManager(crsName string) string {
	m := fieldManagerPrefix + crsName
	if len(m) <= maxFieldManagerLength {
		return m
	}
	sum := sha256.Sum256([]byte(crsName))
	suffix := fmt.Sprintf("-%x", sum[:4])
	return m[:maxFieldManagerLength-len(suffix)] + suffix
}

// applyObjects puts objs into a workload cluster as strategy says. Every object is tried; the
// error names the ones that failed.
//
// ApplyOnce creates each object and counts one that already exists as applied, as upstream
// does: what is in the workload cluster is never overwritten, neither an object a user changed
// since nor one a partly failed earlier attempt created (it is created again only if gone).
// Reconcile applies each object with server-side apply, taking over fields others set (the
// ClusterResourceSet's content wins, as upstream's create-or-patch). Either way an object of a
// namespaced kind without a namespace goes to "default", as with kubectl.
func applyObjects(ctx context.Context, c client.Client, strategy, manager string, objs []*unstructured.Unstructured) error {
	var failed []error
	for _, o := range objs {
		obj := o.DeepCopy()
		if err := defaultNamespace(c, obj); err != nil {
			failed = append(failed, fmt.Errorf("%s: %w", describe(obj), err))
			continue
		}
		var err error
		if strategy == string(addonsv1.ClusterResourceSetStrategyReconcile) {
			err = c.Apply(ctx, client.ApplyConfigurationFromUnstructured(obj), client.FieldOwner(manager), client.ForceOwnership)
		} else if err = c.Create(ctx, obj, client.FieldOwner(manager)); apierrors.IsAlreadyExists(err) {
			err = nil
		}
		if err != nil {
			failed = append(failed, fmt.Errorf("%s: %w", describe(obj), err))
		}
	}
	return summarize(failed)
}

// defaultNamespace puts an object of a namespaced kind that names no namespace into "default".
func defaultNamespace(c client.Client, obj *unstructured.Unstructured) error {
	if obj.GetNamespace() != "" {
		return nil
	}
	namespaced, err := c.IsObjectNamespaced(obj)
	if err != nil {
		return err
	}
	if namespaced {
		obj.SetNamespace(metav1.NamespaceDefault)
	}
	return nil
}

// describe names an object for messages: "apps/v1 DaemonSet kube-system/kube-flannel".
func describe(u *unstructured.Unstructured) string {
	name := u.GetName()
	if ns := u.GetNamespace(); ns != "" {
		name = ns + "/" + name
	}
	return u.GetAPIVersion() + " " + u.GetKind() + " " + name
}

// maxErrorsShown bounds how many failed objects an error (and so a condition message) lists.
const maxErrorsShown = 3

// summarize joins the first errors, saying how many more there were.
func summarize(errs []error) error {
	switch {
	case len(errs) == 0:
		return nil
	case len(errs) <= maxErrorsShown:
		return joined(errs)
	}
	return fmt.Errorf("%w; and %d more objects failed", joined(errs[:maxErrorsShown]), len(errs)-maxErrorsShown)
}

// joined is errors.Join on one line, for condition messages.
func joined(errs []error) error {
	err := errs[0]
	for _, e := range errs[1:] {
		err = fmt.Errorf("%w; %w", err, e)
	}
	return err
}
