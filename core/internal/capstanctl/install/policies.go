package install

import (
	"context"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"capstan.dev/contracts/admissionpolicy"
)

// DefaultPolicyTimeout bounds the wait for applied admission policies to be in effect: the
// API server reloads policies every second and custom resources' schemas every five.
const DefaultPolicyTimeout = time.Minute

// waitPolicies waits until the admission policies among objs are in effect.
func (a *Applier) waitPolicies(ctx context.Context, objs []*unstructured.Unstructured) error {
	set, err := admissionpolicy.FromUnstructured(objs)
	if err != nil || set.Empty() {
		return err
	}
	timeout := a.PolicyTimeout
	if timeout <= 0 {
		timeout = DefaultPolicyTimeout
	}
	opts := admissionpolicy.WaitOptions{Timeout: timeout, Interval: a.interval() / 5}
	if err := admissionpolicy.WaitInEffect(ctx, a.Client, set, opts); err != nil {
		return explain(err, "waiting for the admission policies")
	}
	fmt.Fprintf(a.out(), "%d MutatingAdmissionPolicies and %d ValidatingAdmissionPolicies in effect\n", len(set.Policies), len(set.ValidatingPolicies))
	return nil
}
