package conversionwebhook

import (
	"context"
	"crypto/x509"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
)

var serviceOpts = Options{BindAddress: ":9443", Service: "capstan-system/cluster-api-webhook-service", CertValidity: 30 * time.Hour}

// clock is a settable time shared by the replicas of a test.
type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

// cluster is a fake API server holding the Clusters' CRD, counting the writes to it.
type cluster struct {
	client.WithWatch
	crdPatches int
	failCRDs   bool // the next CRD patches fail (a process killed before it got there)
}

func newCluster(t *testing.T) *cluster {
	scheme := runtime.NewScheme()
	require.NoError(t, apiextensionsv1.AddToScheme(scheme))
	require.NoError(t, corev1.AddToScheme(scheme))
	for _, v := range []string{"v1beta1", "v1beta2"} {
		scheme.AddKnownTypeWithName(schema.GroupVersionKind{Group: "cluster.x-k8s.io", Version: v, Kind: "Cluster"}, &metav1.PartialObjectMetadata{})
	}
	c := &cluster{}
	c.WithWatch = fake.NewClientBuilder().WithScheme(scheme).WithObjects(crd("clusters")).WithInterceptorFuncs(interceptor.Funcs{
		Patch: func(ctx context.Context, cl client.WithWatch, obj client.Object, p client.Patch, opts ...client.PatchOption) error {
			if _, ok := obj.(*apiextensionsv1.CustomResourceDefinition); ok {
				if c.failCRDs {
					return errors.New("killed")
				}
				c.crdPatches++
			}
			return cl.Patch(ctx, obj, p, opts...)
		},
	}).Build()
	return c
}

// replica is one manager's webhook controller on the shared cluster and clock.
func (c *cluster) replica(t *testing.T, clk *clock) *controller {
	r, err := newController(c, c, c.Scheme(), serviceOpts, []Kind{{GroupKind: schema.GroupKind{Group: "cluster.x-k8s.io", Kind: "Cluster"}}})
	require.NoError(t, err)
	r.now = clk.now
	root, err := r.store.load(context.Background(), nil) // what Start does before serving
	require.NoError(t, err)
	r.root = root
	r.serve(root.current)
	return r
}

func (c *cluster) bundle(t *testing.T) []byte {
	got := &apiextensionsv1.CustomResourceDefinition{}
	require.NoError(t, c.Get(context.Background(), client.ObjectKey{Name: "clusters.cluster.x-k8s.io"}, got))
	return got.Spec.Conversion.Webhook.ClientConfig.CABundle
}

// servedBy returns the CA PEM that signed what r serves, as one of pems.
func servedBy(t *testing.T, r *controller, pems ...[]byte) []byte {
	t.Helper()
	leaf, err := x509.ParseCertificate(r.serving.Load().Certificate[0])
	require.NoError(t, err)
	for _, p := range pems {
		pool := x509.NewCertPool()
		pool.AppendCertsFromPEM(p)
		if _, err := leaf.Verify(x509.VerifyOptions{Roots: pool, CurrentTime: leaf.NotBefore.Add(backdate)}); err == nil {
			return p
		}
	}
	t.Fatalf("served by none of the CAs")
	return nil
}

// TestReplicas_ShareOneTrustRootRotateOnceAndStopWriting runs two replicas on one cluster: they
// serve one certificate and write the CRD once; resyncs write nothing. When the certificate is
// due, one rotates (the other adopts): the bundle is new then old CA, in that order, written
// once, and both serve the new certificate; once the old CA expires it leaves the bundle, again
// written once. A replica whose rotation lost the race adopts the winner's.
func TestReplicas_ShareOneTrustRootRotateOnceAndStopWriting(t *testing.T) {
	ctx := context.Background()
	clk := &clock{t: time.Now()}
	c := newCluster(t)
	a, b := c.replica(t, clk), c.replica(t, clk)
	first := a.root.current.caPEM
	require.Equal(t, first, b.root.current.caPEM, "the second replica adopted the first one's Secret")

	resync := func(wantPatches int, why string) {
		t.Helper()
		before := c.crdPatches
		for range 3 {
			require.NoError(t, a.reconcile(ctx))
			require.NoError(t, b.reconcile(ctx))
		}
		require.Equal(t, wantPatches, c.crdPatches-before, why)
		require.Equal(t, a.root.bundle(clk.t), b.root.bundle(clk.t), "one bundle")
		require.Equal(t, c.bundle(t), a.root.bundle(clk.t))
	}
	resync(1, "pointed at the webhook once, by whichever replica came first")
	require.Equal(t, first, c.bundle(t))

	clk.t = a.root.current.renewAt.Add(time.Second)
	resync(1, "the rotation is written once")
	second := a.root.current.caPEM
	require.NotEqual(t, first, second)
	require.Equal(t, append(append([]byte{}, second...), first...), c.bundle(t), "new CA, then the old one while it is valid")
	require.Equal(t, second, servedBy(t, a, first, second))
	require.Equal(t, second, servedBy(t, b, first, second))

	// Both found the certificate due at once: the one that writes second adopts the first's.
	lost, err := issue(serviceOpts.hosts(), serviceOpts.CertValidity, clk.t)
	require.NoError(t, err)
	stale := &trustRoot{current: &servingCertificate{caPEM: first}}
	adopted, err := b.store.rotate(ctx, stale, lost)
	require.NoError(t, err)
	require.Equal(t, second, adopted.current.caPEM)

	clk.t = clk.t.Add(serviceOpts.CertValidity / 3) // the first CA has expired; the second is not due
	resync(1, "the expired CA leaves the bundle, written once")
	require.Equal(t, second, c.bundle(t))
}

// TestReplicas_AReplicaKilledAfterRotatingIsFinishedByAnother: a replica writes the rotated
// Secret and dies before any CRD trusts the new CA; it never served the new certificate, and
// the other replica (or its restart) makes the CRDs trust it before serving it.
func TestReplicas_AReplicaKilledAfterRotatingIsFinishedByAnother(t *testing.T) {
	ctx := context.Background()
	clk := &clock{t: time.Now()}
	c := newCluster(t)
	a, b := c.replica(t, clk), c.replica(t, clk)
	require.NoError(t, a.reconcile(ctx))
	first := a.root.current.caPEM

	clk.t = a.root.current.renewAt.Add(time.Second)
	c.failCRDs = true
	require.Error(t, a.reconcile(ctx))
	require.False(t, a.ready.Load())
	require.Equal(t, first, servedBy(t, a, first, a.root.current.caPEM), "the new certificate is not served before the CRDs trust it")
	c.failCRDs = false

	require.NoError(t, b.reconcile(ctx))
	second := b.root.current.caPEM
	require.NotEqual(t, first, second, "the other replica found the rotated Secret")
	require.Equal(t, append(append([]byte{}, second...), first...), c.bundle(t))
	require.Equal(t, second, servedBy(t, b, first, second))
}

// TestSecretStore_StartingAtOnceTheSecondAdoptsTheFirst: two replicas read no Secret at the
// same time; both create one, the second creation fails with AlreadyExists and that replica
// adopts what the first wrote.
func TestSecretStore_StartingAtOnceTheSecondAdoptsTheFirst(t *testing.T) {
	clk := &clock{t: time.Now()}
	c := newCluster(t)
	a := c.replica(t, clk)
	raced := *a.store.(*secretStore)
	raced.reader = &notFoundOnce{Reader: c} // it read before a created the Secret
	root, err := raced.load(context.Background(), nil)
	require.NoError(t, err)
	require.Equal(t, a.root.current.caPEM, root.current.caPEM)
}

type notFoundOnce struct {
	client.Reader
	done bool
}

func (n *notFoundOnce) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	if !n.done {
		n.done = true
		return apierrors.NewNotFound(corev1.Resource("secrets"), key.Name)
	}
	return n.Reader.Get(ctx, key, obj, opts...)
}

// TestSecretStore_ReplacesAnUnusableSecretKeepingWhatIsServedTrusted: a Secret that holds no
// usable certificate (edited by hand, or issued for a Service since renamed) is replaced; the CA
// the replicas served until then stays in the bundle as the previous one, so they stay trusted
// until they load the new certificate. A deleted Secret is made again the same way.
func TestSecretStore_ReplacesAnUnusableSecretKeepingWhatIsServedTrusted(t *testing.T) {
	ctx := context.Background()
	clk := &clock{t: time.Now()}
	c := newCluster(t)
	a := c.replica(t, clk)
	served := a.root.current.caPEM
	key := a.store.(*secretStore).key
	secret := &corev1.Secret{}
	require.NoError(t, c.Get(ctx, key, secret))
	require.Equal(t, corev1.SecretTypeTLS, secret.Type)
	secret.Data[corev1.TLSCertKey] = []byte("edited by hand")
	require.NoError(t, c.Update(ctx, secret))

	root, err := a.store.load(ctx, served)
	require.NoError(t, err)
	require.NotEqual(t, served, root.current.caPEM)
	require.Equal(t, append(append([]byte{}, root.current.caPEM...), served...), root.bundle(clk.t))
	again, err := a.store.load(ctx, nil)
	require.NoError(t, err)
	require.Equal(t, root.bundle(clk.t), again.bundle(clk.t), "what was written is what the others read")

	require.NoError(t, c.Delete(ctx, secret))
	root, err = a.store.load(ctx, again.current.caPEM)
	require.NoError(t, err)
	require.Equal(t, append(append([]byte{}, root.current.caPEM...), again.current.caPEM...), root.bundle(clk.t))

	renamed := *a.store.(*secretStore)
	renamed.hosts = []string{"other-webhook-service.capstan-system.svc"}
	got, err := renamed.load(ctx, nil)
	require.NoError(t, err)
	require.NotEqual(t, root.current.caPEM, got.current.caPEM, "a certificate for other names is replaced")
}

func TestTrustRoot_BundleIsTheCurrentCAThenThePreviousOneUntilItExpires(t *testing.T) {
	now := time.Now()
	old, err := issue([]string{"x"}, time.Hour, now.Add(-50*time.Minute))
	require.NoError(t, err)
	cur, err := issue([]string{"x"}, time.Hour, now)
	require.NoError(t, err)
	root := (&trustRoot{current: old}).rotated(cur)
	require.Equal(t, append(append([]byte{}, cur.caPEM...), old.caPEM...), root.bundle(now))
	require.Equal(t, cur.caPEM, root.bundle(now.Add(11*time.Minute)), "the old CA expired")
	require.Equal(t, cur.caPEM, (&trustRoot{current: cur}).bundle(now))
}
