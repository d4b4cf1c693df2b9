package upgrade

import (
	"bytes"
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
)

// conversionError is what the API server answers while a CRD's conversion webhook cannot be
// reached (the new release's manager not serving yet).
func conversionError() error {
	return apierrors.NewInternalError(errors.New(`conversion webhook for infrastructure.example.capstan.dev/v1alpha1, Kind=ExampleCluster failed: ` +
		`Post "https://example-webhook-service.example-system.svc:443/convert?timeout=30s": dial tcp 10.96.0.12:443: connect: connection refused`))
}

func TestWhileConverting_RetriesUntilTheWebhookAnswers(t *testing.T) {
	var out bytes.Buffer
	u := &Upgrader{Out: &out, PollInterval: time.Millisecond, ConversionWait: time.Minute}
	calls := 0
	err := u.whileConverting(context.Background(), "exampleclusters.infrastructure.example.capstan.dev", func() error {
		calls++
		if calls < 3 {
			return conversionError()
		}
		return nil
	})
	require.NoError(t, err)
	require.Equal(t, 3, calls)
	require.Contains(t, out.String(), "CustomResourceDefinition exampleclusters.infrastructure.example.capstan.dev: waiting for its conversion webhook to answer")
}

func TestWhileConverting_OtherErrorsAreNotRetried(t *testing.T) {
	u := &Upgrader{PollInterval: time.Millisecond}
	calls := 0
	forbidden := apierrors.NewForbidden(schema.GroupResource{Resource: "exampleclusters"}, "x", errors.New("no"))
	err := u.whileConverting(context.Background(), "crd", func() error { calls++; return forbidden })
	require.ErrorIs(t, err, forbidden)
	require.Equal(t, 1, calls)
}

func TestWhileConverting_GivesUpNamingTheCRDAndWhatToCheck(t *testing.T) {
	u := &Upgrader{PollInterval: time.Millisecond, ConversionWait: 20 * time.Millisecond}
	err := u.whileConverting(context.Background(), "exampleclusters.infrastructure.example.capstan.dev", func() error { return conversionError() })
	require.ErrorContains(t, err, "connection refused")
	require.ErrorContains(t, err, "the conversion webhook of CustomResourceDefinition exampleclusters.infrastructure.example.capstan.dev did not answer within 20ms")
	require.ErrorContains(t, err, "check that the new release's manager is running")
}

// webhookCRD is a CRD converting by webhook, with the CA its manager writes (or none yet).
func webhookCRD(caBundle []byte) *apiextensionsv1.CustomResourceDefinition {
	return &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "examplemachines.infrastructure.example.capstan.dev"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "infrastructure.example.capstan.dev",
			Names: apiextensionsv1.CustomResourceDefinitionNames{Kind: "ExampleMachine", ListKind: "ExampleMachineList", Plural: "examplemachines"},
			Scope: apiextensionsv1.NamespaceScoped,
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{
				{Name: "v1alpha1", Served: true}, {Name: "v1alpha2", Served: true, Storage: true},
			},
			Conversion: &apiextensionsv1.CustomResourceConversion{
				Strategy: apiextensionsv1.WebhookConverter,
				Webhook: &apiextensionsv1.WebhookConversion{
					ConversionReviewVersions: []string{"v1"},
					ClientConfig: &apiextensionsv1.WebhookClientConfig{
						Service:  &apiextensionsv1.ServiceReference{Namespace: "example-system", Name: "example-webhook-service"},
						CABundle: caBundle,
					},
				},
			},
		},
	}
}

func TestWaitForConversionCA_WaitsUntilTheManagerWritesIt(t *testing.T) {
	scheme := runtime.NewScheme()
	require.NoError(t, apiextensionsv1.AddToScheme(scheme))
	crd := webhookCRD(nil)
	c := fake.NewClientBuilder().WithScheme(scheme).WithObjects(crd.DeepCopy()).Build()
	var out bytes.Buffer
	u := &Upgrader{Client: c, Out: &out, PollInterval: 5 * time.Millisecond, ConversionWait: time.Minute}
	done := make(chan error, 1)
	go func() { done <- u.waitForConversionCA(context.Background(), crd) }()

	select {
	case err := <-done:
		t.Fatalf("returned before the CA was written: %v", err)
	case <-time.After(100 * time.Millisecond):
	}
	injected := &apiextensionsv1.CustomResourceDefinition{}
	require.NoError(t, c.Get(context.Background(), client.ObjectKey{Name: crd.Name}, injected))
	injected.Spec.Conversion.Webhook.ClientConfig.CABundle = []byte("-----BEGIN CERTIFICATE-----")
	require.NoError(t, c.Update(context.Background(), injected))
	require.NoError(t, <-done)
	require.Contains(t, out.String(), "waiting for its conversion webhook's CA")
}

func TestWaitForConversionCA_NoWaitWithoutAWebhookOrWithItsCA(t *testing.T) {
	u := &Upgrader{PollInterval: time.Millisecond, ConversionWait: time.Millisecond}
	none := webhookCRD(nil)
	none.Spec.Conversion = &apiextensionsv1.CustomResourceConversion{Strategy: apiextensionsv1.NoneConverter}
	require.NoError(t, u.waitForConversionCA(context.Background(), none))
	require.NoError(t, u.waitForConversionCA(context.Background(), webhookCRD([]byte("ca"))))
}

func TestWaitForConversionCA_GivesUpNamingTheCRDAndTheField(t *testing.T) {
	scheme := runtime.NewScheme()
	require.NoError(t, apiextensionsv1.AddToScheme(scheme))
	crd := webhookCRD(nil)
	c := fake.NewClientBuilder().WithScheme(scheme).WithObjects(crd.DeepCopy()).Build()
	u := &Upgrader{Client: c, PollInterval: time.Millisecond, ConversionWait: 20 * time.Millisecond}
	err := u.waitForConversionCA(context.Background(), crd)
	require.ErrorContains(t, err, "CustomResourceDefinition examplemachines.infrastructure.example.capstan.dev converts by webhook and its spec.conversion.webhook.clientConfig.caBundle is still empty after 20ms")
}
