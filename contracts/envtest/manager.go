package envtest

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/manager"
	"capstan.dev/contracts/secret"
)

// NewManager builds a manager the way every provider's main.go does (contracts/manager:
// Secrets and ConfigMaps uncached), talking to this API server with cfg (e.Config for an
// administrator, or a user holding only a controller's RBAC), without leader election and
// without listening on any port.
func (e *Environment) NewManager(t testing.TB, name string, cfg *rest.Config) ctrl.Manager {
	t.Helper()
	opts := manager.NewOptions(name, name, "default")
	opts.LeaderElect = false
	opts.MetricsBindAddress = "0"
	opts.HealthProbeBindAddress = "0"
	opts.KubeAPIQPS, opts.KubeAPIBurst = 1000, 2000
	mgr, err := manager.New(opts, e.Scheme, cfg)
	if err != nil {
		t.Fatalf("creating the %s manager: %v", name, err)
	}
	return mgr
}

// StartManager runs mgr until the test ends (or stop is called), waits for its caches, and
// returns stop, which stops the manager and waits for it, so that a test can restart a
// controller. Calling stop more than once is fine.
func StartManager(t testing.TB, mgr ctrl.Manager) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	stopped := false
	stop = func() {
		if stopped {
			return
		}
		stopped = true
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("manager stopped with an error: %v", err)
			}
		case <-time.After(60 * time.Second):
			t.Errorf("manager did not stop within 60s")
		}
	}
	t.Cleanup(stop)
	if !mgr.GetCache().WaitForCacheSync(ctx) {
		t.Fatalf("manager caches did not sync")
	}
	return stop
}

// CreateKubeconfigSecret makes this API server the workload cluster of cluster: it stores an
// administrator kubeconfig for it as the <cluster>-kubeconfig Secret that contracts/remote
// connects with.
func (e *Environment) CreateKubeconfigSecret(t testing.TB, cluster *clusterv1.Cluster) {
	t.Helper()
	s := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{
			Name: secret.Name(cluster.Name, secret.Kubeconfig), Namespace: cluster.Namespace,
			Labels: map[string]string{clusterv1.ClusterNameLabel: cluster.Name},
		},
		Type: clusterv1.ClusterSecretType,
		Data: map[string][]byte{secret.KubeconfigDataName: e.KubeConfig},
	}
	if err := e.Client.Create(context.Background(), s); err != nil {
		t.Fatalf("creating the kubeconfig Secret of Cluster %s/%s: %v", cluster.Namespace, cluster.Name, err)
	}
}
