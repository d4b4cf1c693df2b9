package contract

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/gobuffalo/flect"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// crdGVK is apiextensions.k8s.io/v1 CustomResourceDefinition, spelled out so the
// package need not import the apiextensions API types for one GET.
var crdGVK = schema.GroupVersionKind{Group: "apiextensions.k8s.io", Version: "v1", Kind: "CustomResourceDefinition"}

// CalculateCRDName is the name a provider's CRD must have for the core to find it:
// the kind's default plural as controller-gen derives it, a dot, the group, e.g.
// "genericinfrastructuremachines.infrastructure.cluster.x-k8s.io".
//
// controller-gen pluralizes the CamelCase kind with flect and then lowercases
// (strings.ToLower(flect.Pluralize(kind))). Upstream Cluster API lowercases first,
// which differs for a few kinds (FooAlias: "fooaliases" vs "fooalias", FooDNS,
// FooOx); we follow controller-gen so generated manifests need no plural override.
func CalculateCRDName(group, kind string) string {
	return strings.ToLower(flect.Pluralize(kind)) + "." + group
}

// GetContractVersion finds which contract a provider kind implements by GETting its
// CRD, by the name CalculateCRDName gives, as metadata only, and reading its contract
// labels (see VersionFromLabels). It never lists CRDs: a GET by name needs RBAC on
// one resource name, stays cheap with hundreds of CRDs installed, and, with a cached
// reader, keeps a metadata-only informer instead of full CRD schemas.
//
// A missing CRD is ErrCRDNotFound and deliberately does not match
// apierrors.IsNotFound: callers often Get the provider object next, and only that
// Get's NotFound means "the object is gone". Other API errors are wrapped as is, so
// they can be retried.
func GetContractVersion(ctx context.Context, c client.Reader, gk schema.GroupKind) (Version, error) {
	if gk.Group == "" || gk.Kind == "" {
		return Version{}, fmt.Errorf("discovering the contract of %q: group and kind must both be set", gk.String())
	}
	if c == nil {
		return Version{}, errors.New("discovering the contract of " + gk.String() + ": nil client")
	}
	name := CalculateCRDName(gk.Group, gk.Kind)
	crd := &metav1.PartialObjectMetadata{}
	crd.SetGroupVersionKind(crdGVK)
	if err := c.Get(ctx, client.ObjectKey{Name: name}, crd); err != nil {
		if apierrors.IsNotFound(err) {
			return Version{}, tagged(ErrCRDNotFound, "CRD %s for kind %s not found: is the provider that serves it installed?",
				name, gk.String())
		}
		return Version{}, fmt.Errorf("getting CRD %s for kind %s: %w", name, gk.String(), err)
	}
	v, err := VersionFromLabels(name, crd.GetLabels())
	if err != nil {
		return Version{}, err
	}
	return v, nil
}
