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

// Set is a group of policies and the bindings that put them in effect: MutatingAdmissionPolicies
// (the defaulting upstream does in mutating webhooks) and ValidatingAdmissionPolicies (the
// validation a CRD schema cannot express for a write, e.g. of another served version).
type Set struct {
	Policies           []*admissionregistrationv1.MutatingAdmissionPolicy
	Bindings           []*admissionregistrationv1.MutatingAdmissionPolicyBinding
	ValidatingPolicies []*admissionregistrationv1.ValidatingAdmissionPolicy
	ValidatingBindings []*admissionregistrationv1.ValidatingAdmissionPolicyBinding
}

// Merge returns s with the policies and bindings of o appended.
func (s Set) Merge(o Set) Set {
	return Set{
		Policies:           slices.Concat(s.Policies, o.Policies),
		Bindings:           slices.Concat(s.Bindings, o.Bindings),
		ValidatingPolicies: slices.Concat(s.ValidatingPolicies, o.ValidatingPolicies),
		ValidatingBindings: slices.Concat(s.ValidatingBindings, o.ValidatingBindings),
	}
}

// Empty reports whether s holds no policy.
func (s Set) Empty() bool {
	return len(s.Policies) == 0 && len(s.ValidatingPolicies) == 0
}

// ReadDir reads the policies of a config/admission directory on disk.
func ReadDir(dir string) (Set, error) {
	return Read(os.DirFS(dir), ".")
}

// Read decodes every *.yaml file in dir of fsys (not recursively) except kustomization.yaml,
// in file-name order. Each document must be an admission policy or binding (mutating or
// validating) of admissionregistration.k8s.io/v1; unknown fields are errors, so a misspelt
// field never silently drops a default or a rule.
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
		if err := s.add(gvk.Kind, func(into any) error { return yaml.UnmarshalStrict(raw.Raw, into) }); err != nil {
			return fmt.Errorf("document %d (%s %s): %w", i, gvk.Kind, u.GetName(), err)
		}
	}
}

// errOtherKind is add's answer for a kind that is no admission policy or binding.
var errOtherKind = errors.New("only MutatingAdmissionPolicy, ValidatingAdmissionPolicy and their bindings belong here")

// add decodes an object of kind with decode and appends it to its list in s.
func (s *Set) add(kind string, decode func(into any) error) error {
	switch kind {
	case "MutatingAdmissionPolicy":
		return appendDecoded(&s.Policies, decode)
	case "MutatingAdmissionPolicyBinding":
		return appendDecoded(&s.Bindings, decode)
	case "ValidatingAdmissionPolicy":
		return appendDecoded(&s.ValidatingPolicies, decode)
	case "ValidatingAdmissionPolicyBinding":
		return appendDecoded(&s.ValidatingBindings, decode)
	}
	return errOtherKind
}

func appendDecoded[T any](list *[]*T, decode func(into any) error) error {
	o := new(T)
	if err := decode(o); err != nil {
		return err
	}
	*list = append(*list, o)
	return nil
}

// Objects returns the policies, then the bindings, as client objects with their kind set.
func (s Set) Objects() []client.Object {
	var out []client.Object
	add := func(o client.Object, kind string) {
		o.GetObjectKind().SetGroupVersionKind(admissionregistrationv1.SchemeGroupVersion.WithKind(kind))
		out = append(out, o)
	}
	for _, p := range s.Policies {
		add(p.DeepCopy(), "MutatingAdmissionPolicy")
	}
	for _, p := range s.ValidatingPolicies {
		add(p.DeepCopy(), "ValidatingAdmissionPolicy")
	}
	for _, b := range s.Bindings {
		add(b.DeepCopy(), "MutatingAdmissionPolicyBinding")
	}
	for _, b := range s.ValidatingBindings {
		add(b.DeepCopy(), "ValidatingAdmissionPolicyBinding")
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

// FromUnstructured picks the admission policies and their bindings out of objs (for example a
// provider's rendered components), in order, ignoring every other kind.
func FromUnstructured(objs []*unstructured.Unstructured) (Set, error) {
	var s Set
	for _, o := range objs {
		if o.GroupVersionKind().GroupVersion() != admissionregistrationv1.SchemeGroupVersion {
			continue
		}
		err := s.add(o.GetKind(), func(into any) error {
			return runtime.DefaultUnstructuredConverter.FromUnstructured(o.Object, into)
		})
		if errors.Is(err, errOtherKind) {
			continue
		}
		if err != nil {
			return Set{}, fmt.Errorf("reading %s %s: %w", o.GetKind(), o.GetName(), err)
		}
	}
	return s, nil
}
