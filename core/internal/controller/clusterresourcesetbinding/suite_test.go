package clusterresourcesetbinding

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"

	addonsv1 "capstan.dev/contracts/api/addons/v1beta2"
	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/envtest"
	"capstan.dev/contracts/testing/crds"
	"capstan.dev/core/internal/coretest"
)

var env *envtest.Environment

func TestMain(m *testing.M) { os.Exit(coretest.Run(m, &env)) }

const (
	timeout       = 30 * time.Second
	holdFinalizer = "test.capstan.dev/hold"
)

// startController runs the binding controller, counting through calls.
func startController(t *testing.T, calls *envtest.CallCounter) {
	t.Helper()
	mgr := coretest.NewManager(t, env)
	r := &Reconciler{Client: calls.Wrap(mgr.GetClient()), APIReader: mgr.GetAPIReader()}
	require.NoError(t, r.SetupWithManager(context.Background(), mgr, controller.Options{SkipNameValidation: ptr.To(true)}))
	envtest.StartManager(t, mgr)
}

func newCluster(t *testing.T, ns, name string, mutate ...func(*clusterv1.Cluster)) *clusterv1.Cluster {
	t.Helper()
	c := &clusterv1.Cluster{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: clusterv1.ClusterSpec{ClusterNetwork: clusterv1.ClusterNetwork{ServiceDomain: "cluster.local"},
			InfrastructureRef: crds.Ref(crds.GenericInfrastructureClusterGVK, name)},
	}
	for _, m := range mutate {
		m(c)
	}
	require.NoError(t, env.Client.Create(context.Background(), c))
	t.Cleanup(func() {
		if err := env.Client.Get(context.Background(), client.ObjectKeyFromObject(c), c); err == nil && len(c.Finalizers) > 0 {
			c.Finalizers = nil
			_ = env.Client.Update(context.Background(), c)
		}
	})
	return c
}

func newBinding(t *testing.T, ns, cluster string, mutate ...func(*addonsv1.ClusterResourceSetBinding)) *addonsv1.ClusterResourceSetBinding {
	t.Helper()
	b := &addonsv1.ClusterResourceSetBinding{
		ObjectMeta: metav1.ObjectMeta{Name: cluster, Namespace: ns},
		Spec: addonsv1.ClusterResourceSetBindingSpec{ClusterName: cluster, Bindings: []addonsv1.ResourceSetBinding{
			{ClusterResourceSetName: "cni"}}},
	}
	for _, m := range mutate {
		m(b)
	}
	require.NoError(t, env.Client.Create(context.Background(), b))
	return b
}

func waitBindingGone(t *testing.T, b *addonsv1.ClusterResourceSetBinding) {
	t.Helper()
	envtest.WaitFor(t, timeout, "binding "+b.Name+" to be deleted", func() (bool, error) {
		err := env.Client.Get(context.Background(), client.ObjectKeyFromObject(b), &addonsv1.ClusterResourceSetBinding{})
		if apierrors.IsNotFound(err) {
			return true, nil
		}
		return false, err
	})
}

// waitReconciled waits until the binding was read by the controller (once more than before).
func waitReconciled(t *testing.T, calls *envtest.CallCounter, before int) {
	t.Helper()
	envtest.WaitFor(t, timeout, "the binding to be reconciled", func() (bool, error) {
		gets, _ := calls.Snapshot()
		return gets > before, nil
	})
}
