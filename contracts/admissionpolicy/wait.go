package admissionpolicy

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// ProbeName names the throwaway policy, binding and dry-run objects WaitInEffect uses.
const ProbeName = "capstan-admission-probe"

// probeAnnotation is what the probe policy adds to its dry-run ConfigMap.
const probeAnnotation = "capstan.dev/admission-probe"

// WaitOptions bound WaitInEffect.
type WaitOptions struct {
	// Timeout bounds the whole wait; a minute when zero.
	Timeout time.Duration
	// Interval is how often the API server is asked again; 200ms when zero.
	Interval time.Duration
	// Namespace holds the dry-run probe objects of namespaced kinds; "default" when empty.
	// Dry runs store nothing.
	Namespace string
}

func (o WaitOptions) withDefaults() WaitOptions {
	if o.Timeout <= 0 {
		o.Timeout = time.Minute
	}
	if o.Interval <= 0 {
		o.Interval = 200 * time.Millisecond
	}
	if o.Namespace == "" {
		o.Namespace = metav1.NamespaceDefault
	}
	return o
}

// WaitInEffect waits until the API server applies the policies of s, which must already be
// created: first until it has loaded them (a throwaway policy of each kind s holds, created
// after them and matching one dry-run ConfigMap, takes effect: the server loads policies in
// the order it learns of them), then until it can type every kind the mutating policies match
// (a dry-run create of an empty object of each kind is no longer refused with 503; validating
// policies evaluate untyped objects). The throwaway policies are deleted again.
func WaitInEffect(ctx context.Context, c client.Client, s Set, opts WaitOptions) error {
	if s.Empty() {
		return nil
	}
	opts = opts.withDefaults()
	ctx, cancel := context.WithTimeout(ctx, opts.Timeout)
	defer cancel()
	if len(s.Policies) > 0 {
		if err := waitLoaded(ctx, c, opts, mutatingProbe()); err != nil {
			return fmt.Errorf("waiting for the API server to load the mutating admission policies: %w", err)
		}
	}
	if len(s.ValidatingPolicies) > 0 {
		if err := waitLoaded(ctx, c, opts, validatingProbe()); err != nil {
			return fmt.Errorf("waiting for the API server to load the validating admission policies: %w", err)
		}
	}
	for _, gvr := range matchedResources(s) {
		if err := waitTyped(ctx, c, gvr, opts); err != nil {
			return fmt.Errorf("waiting for the API server to apply admission policies to %s: %w", gvr.GroupResource(), err)
		}
	}
	return nil
}

// probe is a throwaway policy and binding, and the test that a dry-run create of the ConfigMap
// ProbeName shows it in effect (the create's error and the ConfigMap as returned).
type probe struct {
	policy, binding client.Object
	inEffect        func(createErr error, cm *corev1.ConfigMap) error
}

// waitLoaded creates the probe's policy and binding, waits until a dry-run ConfigMap named
// ProbeName shows it in effect, and deletes them again.
func waitLoaded(ctx context.Context, c client.Client, opts WaitOptions, p probe) (err error) {
	for _, o := range []client.Object{p.policy, p.binding} {
		if err := c.Create(ctx, o); err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("creating the probe %s: %w", o.GetObjectKind().GroupVersionKind().Kind, err)
		}
	}
	defer func() {
		// Not ctx: the probe must go even when the wait timed out.
		cleanup, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		for _, o := range []client.Object{p.binding, p.policy} {
			if derr := c.Delete(cleanup, o); client.IgnoreNotFound(derr) != nil {
				err = errors.Join(err, fmt.Errorf("deleting the probe %s %s: %w", o.GetObjectKind().GroupVersionKind().Kind, ProbeName, derr))
			}
		}
	}()
	var last error
	pollErr := wait.PollUntilContextCancel(ctx, opts.Interval, true, func(ctx context.Context) (bool, error) {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: ProbeName, Namespace: opts.Namespace}}
		last = p.inEffect(c.Create(ctx, cm, client.DryRunAll), cm)
		return last == nil, nil
	})
	if pollErr != nil {
		return fmt.Errorf("%w (last: %v)", pollErr, last)
	}
	return nil
}

// probeConfigMapOnly is the probes' resource rule: creates of ConfigMaps.
func probeConfigMapOnly() *admissionregistrationv1.MatchResources {
	return &admissionregistrationv1.MatchResources{
		ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{
			RuleWithOperations: admissionregistrationv1.RuleWithOperations{
				Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
				Rule: admissionregistrationv1.Rule{
					APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"configmaps"},
				},
			},
		}},
	}
}

// probeMatch limits a probe to the ConfigMap named ProbeName.
func probeMatch() []admissionregistrationv1.MatchCondition {
	return []admissionregistrationv1.MatchCondition{{
		Name: "probe", Expression: fmt.Sprintf("object.metadata.name == '%s'", ProbeName),
	}}
}

// mutatingProbe annotates a ConfigMap named ProbeName and nothing else. Its failure policy is
// Ignore, so that even a broken probe never blocks a real request.
func mutatingProbe() probe {
	policy := &admissionregistrationv1.MutatingAdmissionPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: ProbeName},
		Spec: admissionregistrationv1.MutatingAdmissionPolicySpec{
			MatchConstraints:   probeConfigMapOnly(),
			MatchConditions:    probeMatch(),
			FailurePolicy:      ptr.To(admissionregistrationv1.Ignore),
			ReinvocationPolicy: admissionregistrationv1.NeverReinvocationPolicy,
			Mutations: []admissionregistrationv1.Mutation{{
				PatchType: admissionregistrationv1.PatchTypeJSONPatch,
				JSONPatch: &admissionregistrationv1.JSONPatch{Expression: fmt.Sprintf(
					"[JSONPatch{op: 'add', path: '/metadata/annotations', value: {'%s': 'applied'}}]", probeAnnotation)},
			}},
		},
	}
	binding := &admissionregistrationv1.MutatingAdmissionPolicyBinding{
		ObjectMeta: metav1.ObjectMeta{Name: ProbeName},
		Spec:       admissionregistrationv1.MutatingAdmissionPolicyBindingSpec{PolicyName: ProbeName},
	}
	return probe{policy: policy, binding: binding, inEffect: func(err error, cm *corev1.ConfigMap) error {
		if err != nil {
			return err
		}
		if cm.Annotations[probeAnnotation] == "" {
			return errors.New("the probe policy has not mutated a dry-run ConfigMap yet")
		}
		return nil
	}}
}

// probeDenial is the message of the validating probe's denial.
const probeDenial = "capstan admission probe: the validating admission policies are loaded"

// validatingProbe denies the creation of a ConfigMap named ProbeName and nothing else (the
// dry run's refusal is the sign). Its failure policy is Ignore, as the mutating probe's.
func validatingProbe() probe {
	policy := &admissionregistrationv1.ValidatingAdmissionPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: ProbeName},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{
			MatchConstraints: probeConfigMapOnly(),
			MatchConditions:  probeMatch(),
			FailurePolicy:    ptr.To(admissionregistrationv1.Ignore),
			Validations:      []admissionregistrationv1.Validation{{Expression: "false", Message: probeDenial}},
		},
	}
	binding := &admissionregistrationv1.ValidatingAdmissionPolicyBinding{
		ObjectMeta: metav1.ObjectMeta{Name: ProbeName},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{
			PolicyName: ProbeName, ValidationActions: []admissionregistrationv1.ValidationAction{admissionregistrationv1.Deny},
		},
	}
	return probe{policy: policy, binding: binding, inEffect: func(err error, _ *corev1.ConfigMap) error {
		if err != nil && strings.Contains(err.Error(), probeDenial) {
			return nil
		}
		if err != nil {
			return err
		}
		return errors.New("the validating probe policy has not refused a dry-run ConfigMap yet")
	}}
}

// matchedResources lists the group/version/resources the mutating policies name, without wildcards and
// subresources, in the order they appear.
func matchedResources(s Set) []schema.GroupVersionResource {
	var out []schema.GroupVersionResource
	seen := map[schema.GroupVersionResource]bool{}
	for _, p := range s.Policies {
		if p.Spec.MatchConstraints == nil {
			continue
		}
		for _, r := range p.Spec.MatchConstraints.ResourceRules {
			for _, g := range r.APIGroups {
				for _, v := range r.APIVersions {
					for _, res := range r.Resources {
						gvr := schema.GroupVersionResource{Group: g, Version: v, Resource: res}
						if g == "*" || v == "*" || strings.Contains(res, "*") || strings.Contains(res, "/") || seen[gvr] {
							continue
						}
						seen[gvr] = true
						out = append(out, gvr)
					}
				}
			}
		}
	}
	return out
}

// waitTyped dry-run creates an empty object of gvr until the API server stops answering 503:
// any other answer (usually 422, the object being empty) means the policies ran.
func waitTyped(ctx context.Context, c client.Client, gvr schema.GroupVersionResource, opts WaitOptions) error {
	var last error
	pollErr := wait.PollUntilContextCancel(ctx, opts.Interval, true, func(ctx context.Context) (bool, error) {
		gvk, err := c.RESTMapper().KindFor(gvr)
		if err != nil {
			last = err
			return false, nil
		}
		mapping, err := c.RESTMapper().RESTMapping(gvk.GroupKind(), gvk.Version)
		if err != nil {
			last = err
			return false, nil
		}
		stub := &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{}}}
		stub.SetGroupVersionKind(gvk)
		stub.SetName(ProbeName)
		if mapping.Scope.Name() == meta.RESTScopeNameNamespace {
			stub.SetNamespace(opts.Namespace)
		}
		err = c.Create(ctx, stub, client.DryRunAll)
		if apierrors.IsServiceUnavailable(err) {
			last = err
			return false, nil
		}
		return true, nil
	})
	if pollErr != nil {
		return fmt.Errorf("%w (last: %v)", pollErr, last)
	}
	return nil
}
