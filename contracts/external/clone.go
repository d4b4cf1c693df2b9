package external

import (
	"context"
	"fmt"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/contract"
)

// CloneInput says which template to clone and how to name and label the clone.
type CloneInput struct {
	// Template references a <Kind>Template whose spec.template becomes the clone.
	Template  clusterv1.ContractVersionedObjectReference
	Namespace string
	// Name of the clone; GenerateName is used when Name is empty.
	Name         string
	GenerateName string
	ClusterName  string
	// Labels and Annotations are merged over spec.template.metadata's.
	Labels      map[string]string
	Annotations map[string]string
	// Owner becomes the clone's owner: the Machine it is made for, say, as its
	// controller.
	Owner *metav1.OwnerReference
}

// CloneTemplate creates the object a <Kind>Template describes: kind <Kind>, the
// template's spec.template.spec as spec, its metadata merged with the input's, the
// cluster-name label, and the cloned-from annotations. It returns the created object.
func CloneTemplate(ctx context.Context, c client.Client, in CloneInput) (*unstructured.Unstructured, error) {
	out, err := NewFromTemplate(ctx, c, in)
	if err != nil {
		return nil, err
	}
	return out, create(ctx, c, out, in)
}

// NewFromTemplate builds, without creating it, the object CloneTemplate would create: a
// creator that must know the clone's name and kind before the clone exists (a MachineSet
// creating the Machine first, so the clone can be created already owned by it) builds it
// with this, then creates it with client.Create.
func NewFromTemplate(ctx context.Context, c client.Client, in CloneInput) (*unstructured.Unstructured, error) {
	tmpl, _, err := Get(ctx, c, in.Template, in.Namespace)
	if err != nil {
		return nil, err
	}
	kind, ok := strings.CutSuffix(tmpl.GetKind(), clusterv1.TemplateSuffix)
	if !ok || kind == "" {
		return nil, notATemplate(tmpl, in.Namespace)
	}
	// The clone's kind has its own CRD, whose contract label names its own version.
	gk := schema.GroupKind{Group: tmpl.GroupVersionKind().Group, Kind: kind}
	v, err := contract.GetContractVersion(ctx, c, gk)
	if err != nil {
		return nil, fmt.Errorf("finding the contract of %s: %w", gk, err)
	}
	return fromTemplateObject(tmpl, v.GroupVersionKind(gk).GroupVersion(), in)
}

// CloneTemplateObject creates, in group/version gv, the object the already read
// <Kind>Template tmpl describes, as CloneTemplate does (in.Template is not used). It
// serves kinds that follow no contract, such as external remediation templates, whose
// references carry their version.
func CloneTemplateObject(ctx context.Context, c client.Client, tmpl *unstructured.Unstructured, gv schema.GroupVersion, in CloneInput) (*unstructured.Unstructured, error) {
	out, err := fromTemplateObject(tmpl, gv, in)
	if err != nil {
		return nil, err
	}
	return out, create(ctx, c, out, in)
}

func fromTemplateObject(tmpl *unstructured.Unstructured, gv schema.GroupVersion, in CloneInput) (*unstructured.Unstructured, error) {
	kind, ok := strings.CutSuffix(tmpl.GetKind(), clusterv1.TemplateSuffix)
	if !ok || kind == "" {
		return nil, notATemplate(tmpl, in.Namespace)
	}
	spec, _, err := unstructured.NestedMap(tmpl.Object, "spec", "template", "spec")
	if err != nil {
		return nil, fmt.Errorf("spec.template.spec of %s %s/%s: %w", tmpl.GetKind(), in.Namespace, tmpl.GetName(), err)
	}
	labels, _, _ := unstructured.NestedStringMap(tmpl.Object, "spec", "template", "metadata", "labels")
	annotations, _, _ := unstructured.NestedStringMap(tmpl.Object, "spec", "template", "metadata", "annotations")

	out := &unstructured.Unstructured{Object: map[string]any{}}
	if spec != nil {
		out.Object["spec"] = spec
	}
	out.SetGroupVersionKind(gv.WithKind(kind))
	out.SetNamespace(in.Namespace)
	out.SetName(in.Name)
	if in.Name == "" {
		out.SetGenerateName(in.GenerateName)
	}
	out.SetLabels(merge(labels, in.Labels, map[string]string{clusterv1.ClusterNameLabel: in.ClusterName}))
	out.SetAnnotations(merge(annotations, in.Annotations, map[string]string{
		clusterv1.TemplateClonedFromNameAnnotation:      tmpl.GetName(),
		clusterv1.TemplateClonedFromGroupKindAnnotation: tmpl.GroupVersionKind().GroupKind().String(),
	}))
	if in.Owner != nil {
		out.SetOwnerReferences([]metav1.OwnerReference{*in.Owner})
	}
	return out, nil
}

func create(ctx context.Context, c client.Client, out *unstructured.Unstructured, in CloneInput) error {
	if err := c.Create(ctx, out); err != nil {
		tmplName := out.GetAnnotations()[clusterv1.TemplateClonedFromNameAnnotation]
		return fmt.Errorf("creating %s from %s%s %s/%s: %w", out.GetKind(), out.GetKind(), clusterv1.TemplateSuffix, in.Namespace, tmplName, err)
	}
	return nil
}

func notATemplate(tmpl *unstructured.Unstructured, namespace string) error {
	return fmt.Errorf("%s %s/%s is not a template: its kind must end in %q",
		tmpl.GetKind(), namespace, tmpl.GetName(), clusterv1.TemplateSuffix)
}

// RefTo returns the contract reference to obj.
func RefTo(obj *unstructured.Unstructured) clusterv1.ContractVersionedObjectReference {
	return clusterv1.ContractVersionedObjectReference{
		APIGroup: obj.GroupVersionKind().Group, Kind: obj.GetKind(), Name: obj.GetName(),
	}
}

func merge(maps ...map[string]string) map[string]string {
	out := map[string]string{}
	for _, m := range maps {
		for k, v := range m {
			out[k] = v
		}
	}
	return out
}
