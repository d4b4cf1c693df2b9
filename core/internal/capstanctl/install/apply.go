// Package install puts provider components on a management cluster for `capstanctl init`:
// it server-side applies a components.Plan step by step (namespaces, then CRDs, waiting
// until they are Established, then ServiceAccounts, RBAC and Deployments) as field manager
// "capstanctl", printing one line per object, and waits for the managers' Deployments to
// become available, printing a line per change and, on timeout, why they are not. Applying
// the same components twice changes nothing. It never deletes anything and never starts
// processes (package localmanagers does that for --dev).
package install

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"capstan.dev/core/internal/capstanctl/components"
)

// FieldManager owns every field capstanctl applies.
const FieldManager = "capstanctl"

// DefaultCRDTimeout bounds the wait for applied CRDs to be Established.
const DefaultCRDTimeout = time.Minute

// Result says what applying one object did.
type Result string

// Results, as kubectl apply words them.
const (
	Created    Result = "created"
	Configured Result = "configured"
	Unchanged  Result = "unchanged"
)

// Change is one applied object and what happened to it.
type Change struct {
	Kind, Namespace, Name string
	Result                Result
	// ResourceVersion is the object's resourceVersion after the apply.
	ResourceVersion string
}

// String is the line printed for the change.
func (c Change) String() string {
	return fmt.Sprintf("%s %s %s", c.Kind, objectName(c.Namespace, c.Name), c.Result)
}

func objectName(namespace, name string) string {
	if namespace == "" {
		return name
	}
	return namespace + "/" + name
}

// Applier applies plans to one cluster.
type Applier struct {
	Client client.Client
	// Out receives one line per applied object; nil discards them.
	Out io.Writer
	// CRDTimeout bounds the wait for CRDs to be Established; DefaultCRDTimeout when zero.
	CRDTimeout time.Duration
	// PollInterval is how often waits re-read the cluster; a second when zero.
	PollInterval time.Duration
	// PolicyTimeout bounds the wait for admission policies to be in effect;
	// DefaultPolicyTimeout when zero.
	PolicyTimeout time.Duration
}

func (a *Applier) out() io.Writer {
	if a.Out == nil {
		return io.Discard
	}
	return a.Out
}

func (a *Applier) interval() time.Duration {
	if a.PollInterval <= 0 {
		return time.Second
	}
	return a.PollInterval
}

// Apply applies the plan in order: the namespaces, then the CRDs (and waits until each is
// Established, so nothing later is refused for an unknown kind), then the rest, and waits until
// the admission policies among them are in effect (so that nothing created next is refused
// while the API server loads them, or left without its defaults). The objects in the plan are
// not modified.
func (a *Applier) Apply(ctx context.Context, plan components.Plan) ([]Change, error) {
	var changes []Change
	for _, step := range [][]*unstructured.Unstructured{plan.Namespaces, plan.CRDs} {
		cs, err := a.applyAll(ctx, step)
		changes = append(changes, cs...)
		if err != nil {
			return changes, err
		}
	}
	if err := a.waitEstablished(ctx, plan.CRDs); err != nil {
		return changes, err
	}
	cs, err := a.applyAll(ctx, plan.Rest)
	changes = append(changes, cs...)
	if err != nil {
		return changes, err
	}
	return changes, a.waitPolicies(ctx, plan.Rest)
}

func (a *Applier) applyAll(ctx context.Context, objs []*unstructured.Unstructured) ([]Change, error) {
	var changes []Change
	for _, o := range objs {
		c, err := a.applyOne(ctx, o)
		if err != nil {
			return changes, err
		}
		changes = append(changes, c)
		fmt.Fprintln(a.out(), c)
	}
	return changes, nil
}

// applyOne server-side applies a copy of o, forcing ownership of the fields it sets (the
// components are capstanctl's to define), and compares resourceVersions to tell what changed.
func (a *Applier) applyOne(ctx context.Context, o *unstructured.Unstructured) (Change, error) {
	c := Change{Kind: o.GetKind(), Namespace: o.GetNamespace(), Name: o.GetName()}
	what := c.Kind + " " + objectName(c.Namespace, c.Name)

	before := &metav1.PartialObjectMetadata{}
	before.SetGroupVersionKind(o.GroupVersionKind())
	beforeRV := ""
	switch err := a.Client.Get(ctx, client.ObjectKeyFromObject(o), before); {
	case err == nil:
		beforeRV = before.GetResourceVersion()
	case apierrors.IsNotFound(err):
	default:
		return c, explain(err, "reading "+what)
	}

	applied := o.DeepCopy()
	if err := a.Client.Apply(ctx, client.ApplyConfigurationFromUnstructured(applied),
		client.FieldOwner(FieldManager), client.ForceOwnership); err != nil {
		return c, explain(err, "applying "+what)
	}
	c.ResourceVersion = applied.GetResourceVersion()
	switch {
	case beforeRV == "":
		c.Result = Created
	case beforeRV == c.ResourceVersion:
		c.Result = Unchanged
	default:
		c.Result = Configured
	}
	return c, nil
}

// waitEstablished waits until every CRD in crds is Established and its names accepted.
func (a *Applier) waitEstablished(ctx context.Context, crds []*unstructured.Unstructured) error {
	if len(crds) == 0 {
		return nil
	}
	timeout := a.CRDTimeout
	if timeout <= 0 {
		timeout = DefaultCRDTimeout
	}
	pending := map[string]string{}
	for _, o := range crds {
		pending[o.GetName()] = "not read yet"
	}
	err := poll(ctx, timeout, a.interval(), func() (bool, error) {
		for name := range pending {
			// Read as unstructured: the caller's scheme need not know apiextensions.
			u := &unstructured.Unstructured{}
			u.SetGroupVersionKind(apiextensionsv1.SchemeGroupVersion.WithKind("CustomResourceDefinition"))
			if err := a.Client.Get(ctx, client.ObjectKey{Name: name}, u); err != nil {
				return false, errStop{explain(err, "reading CustomResourceDefinition "+name)}
			}
			crd := &apiextensionsv1.CustomResourceDefinition{}
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, crd); err != nil {
				return false, errStop{fmt.Errorf("reading CustomResourceDefinition %s: %w", name, err)}
			}
			if why := notEstablished(crd); why != "" {
				pending[name] = why
				continue
			}
			delete(pending, name)
		}
		return len(pending) == 0, nil
	})
	var stop errStop
	if errors.As(err, &stop) {
		return stop.err
	}
	if err != nil {
		var lines []string
		for _, name := range slices.Sorted(maps.Keys(pending)) {
			lines = append(lines, name+": "+pending[name])
		}
		return fmt.Errorf("CustomResourceDefinitions not established: %w: %s", err, strings.Join(lines, "; "))
	}
	fmt.Fprintf(a.out(), "%d CustomResourceDefinitions established\n", len(crds))
	return nil
}

// errStop ends a wait with an error that is not about the wait itself.
type errStop struct{ err error }

func (e errStop) Error() string { return e.err.Error() }

// notEstablished says why a CRD cannot be used yet, or "" when it can.
func notEstablished(crd *apiextensionsv1.CustomResourceDefinition) string {
	var established, names *apiextensionsv1.CustomResourceDefinitionCondition
	for i := range crd.Status.Conditions {
		switch c := &crd.Status.Conditions[i]; c.Type {
		case apiextensionsv1.Established:
			established = c
		case apiextensionsv1.NamesAccepted:
			names = c
		}
	}
	switch {
	case names != nil && names.Status == apiextensionsv1.ConditionFalse:
		return fmt.Sprintf("NamesAccepted False (%s: %s)", names.Reason, names.Message)
	case established == nil:
		return "no Established condition yet"
	case established.Status != apiextensionsv1.ConditionTrue:
		return fmt.Sprintf("Established %s (%s: %s)", established.Status, established.Reason, established.Message)
	}
	return ""
}

// poll calls cond every interval until it returns true, returns an error, ctx ends or
// timeout passes.
func poll(ctx context.Context, timeout, interval time.Duration, cond func() (bool, error)) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		ok, err := cond()
		if err != nil || ok {
			return err
		}
		select {
		case <-ctx.Done():
			if ctx.Err() == context.DeadlineExceeded {
				return fmt.Errorf("timed out after %s", timeout)
			}
			return ctx.Err()
		case <-t.C:
		}
	}
}

// explain wraps an API error with the next step for the usual causes.
func explain(err error, what string) error {
	switch {
	case apierrors.IsForbidden(err) || apierrors.IsUnauthorized(err):
		return fmt.Errorf("%s: %w: init installs CRDs and cluster-wide RBAC, which needs a cluster administrator's kubeconfig (--kubeconfig, --context)", what, err)
	case meta.IsNoMatchError(err):
		return fmt.Errorf("%s: %w: the management cluster does not serve this kind", what, err)
	case apierrors.IsInvalid(err):
		return fmt.Errorf("%s: %w: the management cluster refused the object (is it an older Kubernetes release than this capstanctl supports?)", what, err)
	default:
		return fmt.Errorf("%s: %w: is the management cluster reachable with --kubeconfig/KUBECONFIG?", what, err)
	}
}
