package admissionpolicy

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"slices"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"
)

// FieldOwner is the field manager of the policies Install applies.
const FieldOwner = "capstan-admission-policies"

// Set is a group of policies and the bindings that put them in effect.
type Set struct {
	Policies []*admissionregistrationv1.MutatingAdmissionPolicy
	Bindings []*admissionregistrationv1.MutatingAdmissionPolicyBinding
}

// Merge returns s with the policies and bindings of o appended.
func (s Set) Merge(o Set) Set {
	return Set{Policies: slices.Concat(s.Policies, o.Policies), Bindings: slices.Concat(s.Bindings, o.Bindings)}
}

// ReadDir reads the policies of a config/admission directory on disk.
func ReadDir(dir string) (Set, error) {
	return Read(os.DirFS(dir), ".")
}

// Read decodes every *.yaml file in dir of fsys (not recursively) except kustomization.yaml,
// in file-name order. Each document must be a MutatingAdmissionPolicy or a
// MutatingAdmissionPolicyBinding of admissionregistration.k8s.io/v1; unknown fields are errors,
// so a misspelt field never silently drops a default.
func Read(fsys fs.FS, dir string) (Set, error) {
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return Set{}, fmt.Errorf("reading admission policy directory %s: %w", dir, err)
	}
	var s Set
	for _, e := range entries {
		if e.IsDir() || path.Ext(e.Name()) != ".yaml" || e.Name() == "kustomization.yaml" {
			continue
		}
		data, err := fs.ReadFile(fsys, path.Join(dir, e.Name()))
		if err != nil {
			return Set{}, fmt.Errorf("reading %s: %w", e.Name(), err)
		}
		if err := s.decode(data); err != nil {
			return Set{}, fmt.Errorf("%s: %w", e.Name(), err)
		}
	}
	return s, nil
}

func (s *Set) decode(data []byte) error {
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	for i := 1; ; i++ {
		var raw runtime.RawExtension
		if err := dec.Decode(&raw); errors.Is(err, io.EOF) {
			return nil
		} else if err != nil {
			return fmt.Errorf("document %d: %w", i, err)
		}
		if len(bytes.TrimSpace(raw.Raw)) == 0 || string(bytes.TrimSpace(raw.Raw)) == "null" {
			continue
		}
		u := &unstructured.Unstructured{}
		if err := u.UnmarshalJSON(raw.Raw); err != nil {
			return fmt.Errorf("document %d: %w", i, err)
		}
		gvk := u.GroupVersionKind()
		if gvk.GroupVersion() != admissionregistrationv1.SchemeGroupVersion {
			return fmt.Errorf("document %d is a %s, not an %s object", i, gvk, admissionregistrationv1.SchemeGroupVersion)
		}
		switch gvk.Kind {
		case "MutatingAdmissionPolicy":
			p := &admissionregistrationv1.MutatingAdmissionPolicy{}
			if err := yaml.UnmarshalStrict(raw.Raw, p); err != nil {
				return fmt.Errorf("document %d (MutatingAdmissionPolicy %s): %w", i, u.GetName(), err)
			}
			s.Policies = append(s.Policies, p)
		case "MutatingAdmissionPolicyBinding":
			b := &admissionregistrationv1.MutatingAdmissionPolicyBinding{}
			if err := yaml.UnmarshalStrict(raw.Raw, b); err != nil {
				return fmt.Errorf("document %d (MutatingAdmissionPolicyBinding %s): %w", i, u.GetName(), err)
			}
			s.Bindings = append(s.Bindings, b)
		default:
			return fmt.Errorf("document %d is a %s: only MutatingAdmissionPolicy and MutatingAdmissionPolicyBinding belong here", i, gvk.Kind)
		}
	}
}

// Objects returns the policies, then the bindings, as client objects with their kind set.
func (s Set) Objects() []client.Object {
	var out []client.Object
	for _, p := range s.Policies {
		p = p.DeepCopy()
		p.SetGroupVersionKind(admissionregistrationv1.SchemeGroupVersion.WithKind("MutatingAdmissionPolicy"))
		out = append(out, p)
	}
	for _, b := range s.Bindings {
		b = b.DeepCopy()
		b.SetGroupVersionKind(admissionregistrationv1.SchemeGroupVersion.WithKind("MutatingAdmissionPolicyBinding"))
		out = append(out, b)
	}
	return out
}

// Install server-side applies the policies, then the bindings (as FieldOwner, forcing
// ownership), and waits until they are in effect. Applying the same set again changes nothing.
func Install(ctx context.Context, c client.Client, s Set, opts WaitOptions) error {
	for _, o := range s.Objects() {
		u := &unstructured.Unstructured{}
		obj, err := runtime.DefaultUnstructuredConverter.ToUnstructured(o)
		if err != nil {
			return fmt.Errorf("converting %s %s: %w", o.GetObjectKind().GroupVersionKind().Kind, o.GetName(), err)
		}
		u.SetUnstructuredContent(obj)
		unstructured.RemoveNestedField(u.Object, "metadata", "creationTimestamp")
		if err := c.Apply(ctx, client.ApplyConfigurationFromUnstructured(u), client.FieldOwner(FieldOwner), client.ForceOwnership); err != nil {
			return fmt.Errorf("applying %s %s: %w", u.GetKind(), u.GetName(), err)
		}
	}
	return WaitInEffect(ctx, c, s, opts)
}

// FromUnstructured picks the MutatingAdmissionPolicies and their bindings out of objs (for
// example a provider's rendered components), in order, ignoring every other kind.
func FromUnstructured(objs []*unstructured.Unstructured) (Set, error) {
	var s Set
	for _, o := range objs {
		if o.GroupVersionKind().GroupVersion() != admissionregistrationv1.SchemeGroupVersion {
			continue
		}
		switch o.GetKind() {
		case "MutatingAdmissionPolicy":
			p := &admissionregistrationv1.MutatingAdmissionPolicy{}
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(o.Object, p); err != nil {
				return Set{}, fmt.Errorf("reading MutatingAdmissionPolicy %s: %w", o.GetName(), err)
			}
			s.Policies = append(s.Policies, p)
		case "MutatingAdmissionPolicyBinding":
			b := &admissionregistrationv1.MutatingAdmissionPolicyBinding{}
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(o.Object, b); err != nil {
				return Set{}, fmt.Errorf("reading MutatingAdmissionPolicyBinding %s: %w", o.GetName(), err)
			}
			s.Bindings = append(s.Bindings, b)
		}
	}
	return s, nil
}
