package integration

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"capstan.dev/contracts/api/core/converters"
	clusterv1beta1 "capstan.dev/contracts/api/core/v1beta1"
	"capstan.dev/contracts/envtest"
	"capstan.dev/contracts/testing/crds"
	"capstan.dev/core/internal/capstanctl/components"
	"capstan.dev/core/internal/capstanctl/install"
)

// v1beta1Reads reads one v1beta1 Cluster and lists v1beta1 Machines in a loop and records
// every attempt: the property under test is about each one, not a sample.
type v1beta1Reads struct {
	mu                  sync.Mutex
	attempts, succeeded int
	failedAfterFirstOK  int
	firstFailures       []string // the first few, for the report
	stop, done          chan struct{}
}

func readV1Beta1InALoop(old client.Client, key client.ObjectKey) *v1beta1Reads {
	r := &v1beta1Reads{stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(r.done)
		ctx := context.Background()
		for {
			select {
			case <-r.stop:
				return
			default:
			}
			err := old.Get(ctx, key, &clusterv1beta1.Cluster{})
			if err == nil {
				err = old.List(ctx, &clusterv1beta1.MachineList{}, client.InNamespace(key.Namespace))
			}
			r.mu.Lock()
			r.attempts++
			switch {
			case err == nil:
				r.succeeded++
			case r.succeeded > 0:
				r.failedAfterFirstOK++
				if len(r.firstFailures) < 3 {
					r.firstFailures = append(r.firstFailures, err.Error())
				}
			}
			r.mu.Unlock()
		}
	}()
	return r
}

func (r *v1beta1Reads) counts() (attempts, succeeded int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.attempts, r.succeeded
}

// finish stops the loop and returns how many reads failed after the first success, and the
// first of those errors.
func (r *v1beta1Reads) finish() (int, []string) {
	close(r.stop)
	<-r.done
	return r.failedAfterFirstOK, r.firstFailures
}

// TestConversion_ReapplyingTheComponentsNeverInterruptsV1Beta1 runs the core manager as
// `capstanctl init --dev` does, installs the core's CRDs as init renders them for it, and
// re-applies them three times (as every later init does) while a v1beta1 client reads in a
// loop: once a read succeeded, no read may fail. Before init rendered the webhook configuration
// itself, each apply switched v1beta1 off (spec.versions is an atomic list and said
// served: false) until the manager's next resync, up to a minute later.
func TestConversion_ReapplyingTheComponentsNeverInterruptsV1Beta1(t *testing.T) {
	ctx := context.Background()
	stop, addr := startCoreWithWebhook(t, time.Hour)
	defer stop()
	ns := env.CreateNamespace(t, "reapply")
	old, err := client.New(env.Config, client.Options{Scheme: conversionScheme(t)})
	require.NoError(t, err)

	core, err := components.Select([]string{"core"})
	require.NoError(t, err)
	objs, err := components.Load(core)
	require.NoError(t, err)
	n, err := components.SetConversionURL(objs, core[0].Namespace, "https://"+addr+components.ConversionWebhookPath)
	require.NoError(t, err)
	require.Equal(t, len(converters.Kinds(nil)), n, "every CRD the core serves at v1beta1 is pointed at the local manager")
	plan := components.NewPlan(objs, components.PlanOptions{WithoutWorkloads: true})
	crdsOnly := components.Plan{Namespaces: plan.Namespaces, CRDs: plan.CRDs}
	a := &install.Applier{Client: env.Client, PollInterval: 100 * time.Millisecond}
	_, err = a.Apply(ctx, crdsOnly)
	require.NoError(t, err, "the first init")

	c := &clusterv1beta1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: "c1", Namespace: ns}, Spec: clusterv1beta1.ClusterSpec{
		Paused: true,
		InfrastructureRef: &corev1.ObjectReference{APIVersion: crds.InfrastructureGroupVersion.String(),
			Kind: "GenericInfrastructureCluster", Name: "c1"},
	}}
	envtest.WaitFor(t, 60*time.Second, "the manager to serve v1beta1 after the first init", func() (bool, error) {
		return old.Create(ctx, c) == nil, nil
	})

	reads := readV1Beta1InALoop(old, client.ObjectKeyFromObject(c))
	envtest.WaitFor(t, 30*time.Second, "a first v1beta1 read", func() (bool, error) {
		_, ok := reads.counts()
		return ok > 0, nil
	})
	for i := range 3 {
		changes, err := a.Apply(ctx, crdsOnly)
		require.NoError(t, err, "init number %d", i+2)
		require.NotEmpty(t, changes)
		// Reads go on after each apply, long enough for the API server to have acted on it.
		from, _ := reads.counts()
		envtest.WaitFor(t, 30*time.Second, "v1beta1 reads after the apply", func() (bool, error) {
			now, _ := reads.counts()
			return now >= from+20, nil
		})
	}
	failed, first := reads.finish()
	attempts, succeeded := reads.counts()
	t.Logf("%d v1beta1 reads while re-applying, %d succeeded", attempts, succeeded)
	require.Zero(t, failed, "v1beta1 reads failed after the first success, the first: %v", first)

	for _, name := range components.ConversionCRDs(objs) {
		crd := &apiextensionsv1.CustomResourceDefinition{}
		require.NoError(t, env.Client.Get(ctx, client.ObjectKey{Name: name}, crd))
		require.Equal(t, "https://"+addr+components.ConversionWebhookPath, ptr.Deref(crd.Spec.Conversion.Webhook.ClientConfig.URL, ""), name)
		require.NotEmpty(t, crd.Spec.Conversion.Webhook.ClientConfig.CABundle, "%s: the manager's CA bundle survives the applies", name)
	}
}
