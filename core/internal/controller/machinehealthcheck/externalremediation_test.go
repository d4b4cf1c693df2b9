package machinehealthcheck

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/envtest"
	"capstan.dev/contracts/testing/crds"
)

func withRemediationTemplate(name string) func(*clusterv1.MachineHealthCheck) {
	return func(mhc *clusterv1.MachineHealthCheck) {
		mhc.Spec.Remediation.TemplateRef = clusterv1.MachineHealthCheckRemediationTemplateReference{
			APIVersion: crds.GenericRemediationTemplateGVK.GroupVersion().String(), Kind: crds.GenericRemediationTemplateGVK.Kind, Name: name}
	}
}

// TestMachineHealthCheck_ExternalRemediationClonesTheTemplateAndWithdrawsItWhenHealthy: with
// remediation.templateRef, an unhealthy Machine gets a remediation request cloned from the
// template (kind without "Template", named like the Machine, owned by it) and
// ExternallyRemediated=False instead of OwnerRemediated; once healthy the request is
// deleted and the condition removed. The controller runs with its markers' RBAC only.
func TestMachineHealthCheck_ExternalRemediationClonesTheTemplateAndWithdrawsItWhenHealthy(t *testing.T) {
	startControllerAsMarkers(t, "capstan-mhc-external-remediation-test")
	f := newFixture(t)
	tmpl := crds.New(crds.GenericRemediationTemplateGVK, f.ns, "reboot")
	require.NoError(t, unstructured.SetNestedField(tmpl.Object, map[string]any{
		"metadata": map[string]any{"labels": map[string]any{"team": "infra"}},
		"spec":     map[string]any{"strategy": "Reboot", "retryLimit": int64(2)},
	}, "spec", "template"))
	require.NoError(t, env.Client.Create(f.ctx, tmpl))
	m := f.newMachine("m", true)
	f.newMHC("external", withRemediationTemplate("reboot"))
	f.waitMachineCondition("m", clusterv1.MachineHealthCheckSucceededCondition, healthy())

	annotate(t, f, "m", func(a map[string]string) { a[clusterv1.RemediateMachineAnnotation] = "" })
	f.waitMachineCondition("m", clusterv1.MachineExternallyRemediatedCondition, &metav1.Condition{Status: metav1.ConditionFalse,
		Reason: clusterv1.MachineExternallyRemediatedWaitingForRemediationReason, Message: "Waiting for remediation"})
	got := f.waitMachineCondition("m", clusterv1.MachineOwnerRemediatedCondition, nil)

	req := crds.New(crds.GenericRemediationGVK, f.ns, "m")
	require.NoError(t, env.Client.Get(f.ctx, client.ObjectKeyFromObject(req), req))
	spec, _, _ := unstructured.NestedMap(req.Object, "spec")
	require.Equal(t, map[string]any{"strategy": "Reboot", "retryLimit": int64(2)}, spec)
	require.Equal(t, "infra", req.GetLabels()["team"])
	require.Equal(t, clusterName, req.GetLabels()[clusterv1.ClusterNameLabel])
	require.Equal(t, []metav1.OwnerReference{{APIVersion: clusterv1.GroupVersion.String(), Kind: "Machine", Name: "m", UID: got.UID}},
		req.GetOwnerReferences())
	require.Equal(t, m.UID, got.UID)

	annotate(t, f, "m", func(a map[string]string) { delete(a, clusterv1.RemediateMachineAnnotation) })
	f.waitMachineCondition("m", clusterv1.MachineExternallyRemediatedCondition, nil)
	envtest.WaitFor(t, timeout, "the remediation request to be deleted", func() (bool, error) {
		err := env.Client.Get(f.ctx, client.ObjectKeyFromObject(req), req.DeepCopy())
		if apierrors.IsNotFound(err) {
			return true, nil
		}
		return false, errors.Join(err, errors.New("it still exists"))
	})
}

// TestMachineHealthCheck_MissingRemediationTemplateIsNamedOnTheMachine: a templateRef naming
// no template leaves the Machine to nobody, and ExternallyRemediated says what to fix.
func TestMachineHealthCheck_MissingRemediationTemplateIsNamedOnTheMachine(t *testing.T) {
	startController(t, controllerOptions{})
	f := newFixture(t)
	f.newMachine("m", true)
	f.newMHC("external", withRemediationTemplate("missing"))
	annotate(t, f, "m", func(a map[string]string) { a[clusterv1.RemediateMachineAnnotation] = "" })
	f.waitMachineCondition("m", clusterv1.MachineExternallyRemediatedCondition, &metav1.Condition{Status: metav1.ConditionFalse,
		Reason: clusterv1.MachineExternallyRemediatedRemediationTemplateNotFoundReason,
		Message: "GenericRemediationTemplate " + f.ns + "/missing (spec.remediation.templateRef of MachineHealthCheck external) does not exist: " +
			"create it, or fix the templateRef"})
	f.waitMachineCondition("m", clusterv1.MachineOwnerRemediatedCondition, nil)
}
