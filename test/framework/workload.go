package framework

import (
	"context"
	"fmt"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"

	"capstan.dev/contracts/secret"
)

// ErrNoKubeconfig says the control plane has not written the Cluster's kubeconfig yet.
var ErrNoKubeconfig = fmt.Errorf("the cluster's kubeconfig Secret does not exist yet")

// WorkloadKubeconfig reads the admin kubeconfig the control plane provider writes into
// `<cluster>-kubeconfig`, key `value` (the contract's Secret shape).
func WorkloadKubeconfig(ctx context.Context, mgmt client.Reader, key client.ObjectKey) ([]byte, error) {
	s := &corev1.Secret{}
	err := mgmt.Get(ctx, client.ObjectKey{Namespace: key.Namespace, Name: secret.Name(key.Name, secret.Kubeconfig)}, s)
	if apierrors.IsNotFound(err) {
		return nil, ErrNoKubeconfig
	}
	if err != nil {
		return nil, fmt.Errorf("reading the kubeconfig Secret of %s: %w", key, err)
	}
	data := s.Data[secret.KubeconfigDataName]
	if len(data) == 0 {
		return nil, fmt.Errorf("the kubeconfig Secret of %s has no key %q", key, secret.KubeconfigDataName)
	}
	return data, nil
}

func init() {
	// controller-runtime warns with a stack trace when its client logs before a logger is
	// set; what this package has to say goes through Progress and errors.
	ctrllog.SetLogger(logr.Discard())
}

// WorkloadClient is an uncached client of the workload cluster built from its kubeconfig.
func WorkloadClient(kubeconfig []byte, scheme *runtime.Scheme) (client.Client, error) {
	cfg, err := clientcmd.RESTConfigFromKubeConfig(kubeconfig)
	if err != nil {
		return nil, fmt.Errorf("parsing the workload kubeconfig: %w", err)
	}
	cfg.QPS, cfg.Burst = 20, 40
	return client.New(cfg, client.Options{Scheme: scheme})
}
