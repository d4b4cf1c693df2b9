package integration

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	runtimev1alpha1 "capstan.dev/contracts/api/runtime/v1alpha1"
	runtimev1 "capstan.dev/contracts/api/runtime/v1beta2"
)

// TestConversion_V1Alpha1ClientReadsAndWritesExtensionConfigs: an ExtensionConfig written at
// v1alpha1 (upstream's deprecated version, still served) is stored at v1beta2, its v1beta2 status
// reads back at v1alpha1 in v1alpha1's shape (conditions under status.v1beta2, a pointer
// failurePolicy), and v1beta2's admission rules hold at v1alpha1 too.
func TestConversion_V1Alpha1ClientReadsAndWritesExtensionConfigs(t *testing.T) {
	ctx := context.Background()
	stop, _ := startCoreWithWebhook(t, time.Hour)
	defer stop()
	c, err := client.New(env.Config, client.Options{Scheme: conversionScheme(t)})
	require.NoError(t, err)

	old := &runtimev1alpha1.ExtensionConfig{ObjectMeta: metav1.ObjectMeta{Name: "conversion-ext"}, Spec: runtimev1alpha1.ExtensionConfigSpec{
		ClientConfig: runtimev1alpha1.ClientConfig{URL: ptr.To("https://127.0.0.1:9443/prefix"), CABundle: []byte("ca")},
		Settings:     map[string]string{"a": "b"},
	}}
	require.NoError(t, c.Create(ctx, old))
	t.Cleanup(func() { _ = c.Delete(ctx, old) })
	hub := &runtimev1.ExtensionConfig{}
	require.NoError(t, c.Get(ctx, client.ObjectKeyFromObject(old), hub))
	require.Equal(t, "https://127.0.0.1:9443/prefix", hub.Spec.ClientConfig.URL)
	require.Equal(t, &metav1.LabelSelector{}, hub.Spec.NamespaceSelector, "defaulted at v1alpha1 as upstream's webhook did")

	hub.Status.Handlers = []runtimev1.ExtensionHandler{{Name: "h.conversion-ext", TimeoutSeconds: ptr.To[int32](10), FailurePolicy: runtimev1.FailurePolicyIgnore,
		RequestHook: runtimev1.GroupVersionHook{APIVersion: "hooks.runtime.cluster.x-k8s.io/v1alpha1", Hook: "BeforeClusterCreate"}}}
	hub.Status.Conditions = []metav1.Condition{{Type: "Discovered", Status: metav1.ConditionTrue, Reason: "Discovered", LastTransitionTime: metav1.Now()}}
	require.NoError(t, c.Status().Update(ctx, hub))

	got := &runtimev1alpha1.ExtensionConfig{}
	require.NoError(t, c.Get(ctx, client.ObjectKeyFromObject(old), got))
	require.Equal(t, old.Spec, got.Spec)
	require.Equal(t, ptr.To(runtimev1alpha1.FailurePolicy("Ignore")), got.Status.Handlers[0].FailurePolicy)
	require.Equal(t, "Discovered", got.Status.V1Beta2.Conditions[0].Type)

	got.Spec.ClientConfig.URL = ptr.To("http://127.0.0.1:9443")
	err = c.Update(ctx, got)
	require.True(t, apierrors.IsInvalid(err), "want Invalid, got %v", err)
	require.ErrorContains(t, err, "the scheme must be https")
}
