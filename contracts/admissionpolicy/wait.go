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
// created: first until it has loaded them (a throwaway policy created after them, matching one
// dry-run ConfigMap, takes effect: the server loads policies in the order it learns of them),
// then until it can type every kind they match (a dry-run create of an empty object of each
// kind is no longer refused with 503). The throwaway policy is deleted again.
func WaitInEffect(ctx context.Context, c client.Client, s Set, opts WaitOptions) error {
	if len(s.Policies) == 0 {
		return nil
	}
	opts = opts.withDefaults()
	ctx, cancel := context.WithTimeout(ctx, opts.Timeout)
	defer cancel()
	if err := waitLoaded(ctx, c, opts); err != nil {
		return fmt.Errorf("waiting for the API server to load the admission policies: %w", err)
	}
	for _, gvr := range matchedResources(s) {
		if err := waitTyped(ctx, c, gvr, opts); err != nil {
			return fmt.Errorf("waiting for the API server to apply admission policies to %s: %w", gvr.GroupResource(), err)
		}
	}
	return nil
}

// waitLoaded creates the probe policy and binding, waits until a dry-run ConfigMap named
// ProbeName comes back annotated, and deletes them again.
func waitLoaded(ctx context.Context, c client.Client, opts WaitOptions) (err error) {
	policy, binding := probePolicy()
	for _, o := range []client.Object{policy, binding} {
		if err := c.Create(ctx, o); err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("creating the probe %s: %w", o.GetObjectKind().GroupVersionKind().Kind, err)
		}
	}
	defer func() {
		// Not ctx: the probe must go even when the wait timed out.
		cleanup, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		for _, o := range []client.Object{binding, policy} {
			if derr := c.Delete(cleanup, o); client.IgnoreNotFound(derr) != nil {
				err = errors.Join(err, fmt.Errorf("deleting the probe %s %s: %w", o.GetObjectKind().GroupVersionKind().Kind, ProbeName, derr))
			}
		}
	}()
	var last error
	pollErr := wait.PollUntilContextCancel(ctx, opts.Interval, true, func(ctx context.Context) (bool, error) {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: ProbeName, Namespace: opts.Namespace}}
		if err := c.Create(ctx, cm, client.DryRunAll); err != nil {
			last = err
			return false, nil
		}
		last = errors.New("the probe policy has not mutated a dry-run ConfigMap yet")
		return cm.Annotations[probeAnnotation] != "", nil
	})
	if pollErr != nil {
		return fmt.Errorf("%w (last: %v)", pollErr, last)
	}
	return nil
}

// probePolicy is a policy that annotates a ConfigMap named ProbeName and nothing else. Its
// failure policy is Ignore, so that even a broken probe never blocks a real request.
func probePolicy() (*admissionregistrationv1.MutatingAdmissionPolicy, *admissionregistrationv1.MutatingAdmissionPolicyBinding) {
	policy := &admissionregistrationv1.MutatingAdmissionPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: ProbeName},
		Spec: admissionregistrationv1.MutatingAdmissionPolicySpec{
			MatchConstraints: &admissionregistrationv1.MatchResources{
				ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{
					RuleWithOperations: admissionregistrationv1.RuleWithOperations{
						Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
						Rule: admissionregistrationv1.Rule{
							APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"configmaps"},
						},
					},
				}},
			},
			MatchConditions: []admissionregistrationv1.MatchCondition{{
				Name: "probe", Expression: fmt.Sprintf("object.metadata.name == '%s'", ProbeName),
			}},
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
	return policy, binding
}

// matchedResources lists the group/version/resources the policies name, without wildcards and
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
