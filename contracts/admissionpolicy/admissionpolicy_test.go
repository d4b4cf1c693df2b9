package admissionpolicy

import (
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/require"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"capstan.dev/contracts/config/admission"
)

const policyYAML = `apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata:
  name: p
spec:
  failurePolicy: Fail
  reinvocationPolicy: IfNeeded
  matchConstraints:
    resourceRules:
    - apiGroups: ["example.com", "*"]
      apiVersions: ["v1"]
      operations: ["CREATE"]
      resources: ["widgets", "widgets/status", "gadgets"]
  mutations:
  - patchType: JSONPatch
    jsonPatch:
      expression: "[]"
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata:
  name: p
spec:
  policyName: p
`

const validatingYAML = `
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: v
spec:
  failurePolicy: Fail
  matchConstraints:
    resourceRules:
    - apiGroups: ["example.com"]
      apiVersions: ["v1"]
      operations: ["CREATE"]
      resources: ["gizmos"]
  validations:
  - expression: "true"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: v
spec:
  policyName: v
  validationActions: [Deny]
`

func TestRead_DecodesPoliciesAndBindingsSkippingTheKustomization(t *testing.T) {
	fsys := fstest.MapFS{
		"a.yaml":             {Data: []byte(policyYAML)},
		"b.yaml":             {Data: []byte(validatingYAML)},
		"kustomization.yaml": {Data: []byte("resources: [a.yaml]\n")},
		"notes.txt":          {Data: []byte("not yaml")},
	}
	s, err := Read(fsys, ".")
	require.NoError(t, err)
	require.Len(t, s.Policies, 1)
	require.Len(t, s.Bindings, 1)
	require.Equal(t, "p", s.Bindings[0].Spec.PolicyName)
	require.Len(t, s.ValidatingPolicies, 1)
	require.Len(t, s.ValidatingBindings, 1)
	require.Equal(t, "v", s.ValidatingBindings[0].Spec.PolicyName)
	require.Equal(t, []schema.GroupVersionResource{
		{Group: "example.com", Version: "v1", Resource: "widgets"},
		{Group: "example.com", Version: "v1", Resource: "gadgets"},
	}, matchedResources(s), "wildcards and subresources are not probed; validating policies need no typed kind")
}

// A misspelt field would silently drop a default: it is an error naming the file and document.
func TestRead_RefusesUnknownFieldsAndOtherKinds(t *testing.T) {
	_, err := Read(fstest.MapFS{"a.yaml": {Data: []byte(policyYAML + "  policyNmae: q\n")}}, ".")
	require.ErrorContains(t, err, "a.yaml: document 2 (MutatingAdmissionPolicyBinding p)")
	require.ErrorContains(t, err, "policyNmae")

	_, err = Read(fstest.MapFS{"b.yaml": {Data: []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n")}}, ".")
	require.ErrorContains(t, err, "b.yaml: document 1 is a /v1, Kind=ConfigMap, not an admissionregistration.k8s.io/v1 object")

	_, err = Read(fstest.MapFS{"c.yaml": {Data: []byte("apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingWebhookConfiguration\nmetadata:\n  name: w\n")}}, ".")
	require.ErrorContains(t, err, "c.yaml: document 1 (ValidatingWebhookConfiguration w): only MutatingAdmissionPolicy, ValidatingAdmissionPolicy and their bindings belong here")

	_, err = Read(fstest.MapFS{"d.yaml": {Data: []byte(validatingYAML + "  validationActoins: [Warn]\n")}}, ".")
	require.ErrorContains(t, err, "d.yaml: document 2 (ValidatingAdmissionPolicyBinding v)")
}

func TestFromUnstructured_PicksOnlyPoliciesAndBindings(t *testing.T) {
	cm := &unstructured.Unstructured{}
	cm.SetAPIVersion("v1")
	cm.SetKind("ConfigMap")
	set, err := Read(fstest.MapFS{"a.yaml": {Data: []byte(policyYAML)}, "b.yaml": {Data: []byte(validatingYAML)}}, ".")
	require.NoError(t, err)
	var objs []*unstructured.Unstructured
	for _, o := range set.Objects() {
		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(o.GetObjectKind().GroupVersionKind())
		u.SetName(o.GetName())
		objs = append(objs, u)
	}
	got, err := FromUnstructured(append(objs, cm))
	require.NoError(t, err)
	require.Len(t, got.Policies, 1)
	require.Len(t, got.Bindings, 1)
	require.Len(t, got.ValidatingPolicies, 1)
	require.Len(t, got.ValidatingBindings, 1)
}

// The core's policies are consistent: each has exactly one binding naming it, and each
// mutates only on create and update of one core kind.
func TestCorePolicies_EachHasItsBindingAndMatchesOneCoreKind(t *testing.T) {
	s, err := Read(admission.Files, ".")
	require.NoError(t, err)
	require.Len(t, s.Policies, 6)
	bound := map[string]int{}
	for _, b := range s.Bindings {
		bound[b.Spec.PolicyName]++
	}
	for _, p := range s.Policies {
		require.Equal(t, 1, bound[p.Name], "binding of %s", p.Name)
		rules := p.Spec.MatchConstraints.ResourceRules
		require.Len(t, rules, 1, p.Name)
		require.Equal(t, []string{"cluster.x-k8s.io"}, rules[0].APIGroups, p.Name)
		require.ElementsMatch(t, []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update}, rules[0].Operations, p.Name)
	}
}
