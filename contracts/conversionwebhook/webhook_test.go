package conversionwebhook

import (
	"context"
	"crypto/x509"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
)

func TestValidate_NamesTheFlagAndWhatIsAllowed(t *testing.T) {
	valid := DefaultOptions()
	require.NoError(t, valid.Validate(), "disabled by default")
	for _, tc := range []struct {
		o    Options
		want string
	}{
		{Options{Service: "ns/svc"}, "--webhook-service needs --webhook-bind-address"},
		{Options{BindAddress: "9443", CertValidity: time.Hour}, `--webhook-bind-address "9443" is not host:port`},
		{Options{BindAddress: "127.0.0.1:0", CertValidity: time.Hour}, "needs a fixed port"},
		{Options{BindAddress: ":9443", CertValidity: time.Hour}, "must be an IP it can reach, e.g. 127.0.0.1:9443"},
		{Options{BindAddress: ":9443", Service: "svc", CertValidity: time.Hour}, `--webhook-service "svc" is not namespace/name`},
		{Options{BindAddress: "127.0.0.1:9443", CertValidity: time.Second}, "--webhook-cert-validity must be at least 10s"},
		{Options{BindAddress: "127.0.0.1:9443", URL: "http://127.0.0.1:9443/convert", CertValidity: time.Hour}, `webhook URL "http://127.0.0.1:9443/convert" is not https://host:port/path`},
	} {
		require.ErrorContains(t, tc.o.Validate(), tc.want)
	}
	require.NoError(t, (&Options{BindAddress: ":9443", Service: "capstan-system/cluster-api-webhook-service", CertValidity: time.Hour}).Validate())
	require.NoError(t, (&Options{BindAddress: "127.0.0.1:9443", CertValidity: time.Hour}).Validate())
}

func TestIssue_CertifiesTheServiceNamesOrTheLoopbackIP(t *testing.T) {
	now := time.Now()
	svc := Options{BindAddress: ":9443", Service: "capstan-system/cluster-api-webhook-service"}
	cert, err := issue(svc.hosts(), time.Hour, now)
	require.NoError(t, err)
	leaf, err := x509.ParseCertificate(cert.tls.Certificate[0])
	require.NoError(t, err)
	require.Equal(t, []string{"cluster-api-webhook-service.capstan-system.svc", "cluster-api-webhook-service.capstan-system.svc.cluster.local"}, leaf.DNSNames)
	require.NoError(t, verify(leaf, cert.caPEM, "cluster-api-webhook-service.capstan-system.svc"))
	require.WithinDuration(t, now.Add(40*time.Minute), cert.renewAt, time.Second, "renewed after two thirds of its validity")

	local, err := issue(Options{BindAddress: "127.0.0.1:9443"}.hosts(), time.Hour, now)
	require.NoError(t, err)
	leaf, err = x509.ParseCertificate(local.tls.Certificate[0])
	require.NoError(t, err)
	require.NoError(t, verify(leaf, local.caPEM, "127.0.0.1"))
	require.Error(t, verify(leaf, cert.caPEM, "127.0.0.1"), "another CA does not vouch for it")
}

func verify(leaf *x509.Certificate, caPEM []byte, host string) error {
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(caPEM)
	_, err := leaf.Verify(x509.VerifyOptions{Roots: pool, DNSName: host})
	return err
}

func crd(plural string) *apiextensionsv1.CustomResourceDefinition {
	return &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: plural + ".cluster.x-k8s.io"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "cluster.x-k8s.io", Names: apiextensionsv1.CustomResourceDefinitionNames{Kind: "Cluster", Plural: plural},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{Name: "v1beta1"}, {Name: "v1beta2", Served: true, Storage: true}},
		},
	}
}

func TestInject_PointsTheCRDAtTheWebhookTurnsKnownVersionsOnAndWritesOnlyOnChange(t *testing.T) {
	ctx := context.Background()
	scheme := runtime.NewScheme()
	require.NoError(t, apiextensionsv1.AddToScheme(scheme))
	// The manager's scheme knows both versions of Cluster; a placeholder type stands in.
	for _, v := range []string{"v1beta1", "v1beta2"} {
		scheme.AddKnownTypeWithName(schema.GroupVersionKind{Group: "cluster.x-k8s.io", Version: v, Kind: "Cluster"}, &metav1.PartialObjectMetadata{})
	}
	patches := 0
	c := fake.NewClientBuilder().WithScheme(scheme).WithObjects(crd("clusters")).WithInterceptorFuncs(interceptor.Funcs{
		Patch: func(ctx context.Context, cl client.WithWatch, obj client.Object, p client.Patch, opts ...client.PatchOption) error {
			patches++
			return cl.Patch(ctx, obj, p, opts...)
		},
	}).Build()

	for _, tc := range []struct {
		o     Options
		check func(*apiextensionsv1.WebhookClientConfig)
	}{
		{Options{BindAddress: "127.0.0.1:9443", CertValidity: time.Hour}, func(cc *apiextensionsv1.WebhookClientConfig) {
			require.Equal(t, ptr.To("https://127.0.0.1:9443/convert"), cc.URL)
			require.Nil(t, cc.Service)
		}},
		{Options{BindAddress: ":9443", Service: "capstan-system/cluster-api-webhook-service", CertValidity: time.Hour}, func(cc *apiextensionsv1.WebhookClientConfig) {
			require.Nil(t, cc.URL)
			require.Equal(t, &apiextensionsv1.ServiceReference{Namespace: "capstan-system", Name: "cluster-api-webhook-service",
				Path: ptr.To("/convert"), Port: ptr.To[int32](443)}, cc.Service)
		}},
	} {
		patches = 0
		ctrl, err := newController(c, c, scheme, tc.o, nil)
		require.NoError(t, err)
		bundle := []byte("ca bundle of " + tc.o.BindAddress)
		require.NoError(t, ctrl.inject(ctx, "clusters.cluster.x-k8s.io", bundle))
		require.NoError(t, ctrl.inject(ctx, "clusters.cluster.x-k8s.io", bundle))
		require.Equal(t, 1, patches, "the second pass finds nothing to change")

		got := &apiextensionsv1.CustomResourceDefinition{}
		require.NoError(t, c.Get(ctx, client.ObjectKey{Name: "clusters.cluster.x-k8s.io"}, got))
		require.Equal(t, apiextensionsv1.WebhookConverter, got.Spec.Conversion.Strategy)
		require.Equal(t, []string{"v1"}, got.Spec.Conversion.Webhook.ConversionReviewVersions)
		require.Equal(t, bundle, got.Spec.Conversion.Webhook.ClientConfig.CABundle, "exactly the bundle, nothing kept of what was there")
		tc.check(got.Spec.Conversion.Webhook.ClientConfig)
		require.True(t, got.Spec.Versions[0].Served, "v1beta1 is turned on")
	}
	require.ErrorContains(t, (&controller{reader: c, writer: c, scheme: scheme, now: time.Now}).inject(ctx, "missing.cluster.x-k8s.io", nil),
		"reading CRD missing.cluster.x-k8s.io")
}
