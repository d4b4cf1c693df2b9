// Package clusterclient connects capstanctl to the management cluster and reads
// the Cluster every cluster command starts from, turning API errors into messages
// that say what to do next. It owns the kubeconfig loading rules (--kubeconfig,
// then KUBECONFIG, then ~/.kube/config) and must not hold any command logic.
package clusterclient

import (
	"context"
	"fmt"
	"os"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"sigs.k8s.io/controller-runtime/pkg/client"

	addonsv1 "capstan.dev/contracts/api/addons/v1beta2"
	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	runtimev1 "capstan.dev/contracts/api/runtime/v1beta2"
)

// requestTimeout bounds each API request, so an unreachable management cluster
// fails the command instead of hanging it.
const requestTimeout = 30 * time.Second

// Options say which management cluster to talk to.
type Options struct {
	// Kubeconfig is the --kubeconfig flag; empty means KUBECONFIG or ~/.kube/config.
	Kubeconfig string
	// Context is the --context flag; empty means the kubeconfig's current context.
	Context string
}

// RESTConfig loads the kubeconfig the way kubectl does.
func (o Options) RESTConfig() (*rest.Config, error) {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = o.Kubeconfig
	overrides := &clientcmd.ConfigOverrides{CurrentContext: o.Context}
	cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, overrides).ClientConfig()
	if clientcmd.IsEmptyConfig(err) {
		looked := clientcmd.RecommendedHomeFile
		if env := os.Getenv(clientcmd.RecommendedConfigPathEnvVar); env != "" {
			looked = clientcmd.RecommendedConfigPathEnvVar + "=" + env
		}
		return nil, fmt.Errorf("no kubeconfig for the management cluster found in %s: pass --kubeconfig or set KUBECONFIG", looked)
	}
	if err != nil {
		return nil, fmt.Errorf("loading the management cluster's kubeconfig: %w: pass --kubeconfig or set KUBECONFIG", err)
	}
	cfg.Timeout = requestTimeout
	cfg.QPS, cfg.Burst = 50, 100
	return cfg, nil
}

// MinifiedKubeconfig returns the kubeconfig these options select as one self-contained file:
// only the chosen context with its cluster and user, certificate files inlined, for
// processes that must reach the same cluster as capstanctl (init --dev's managers).
func (o Options) MinifiedKubeconfig() ([]byte, error) {
	if _, err := o.RESTConfig(); err != nil {
		return nil, err
	}
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = o.Kubeconfig
	raw, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules,
		&clientcmd.ConfigOverrides{CurrentContext: o.Context}).RawConfig()
	if err != nil {
		return nil, fmt.Errorf("loading the management cluster's kubeconfig: %w", err)
	}
	if o.Context != "" {
		raw.CurrentContext = o.Context
	}
	if err := clientcmdapi.MinifyConfig(&raw); err != nil {
		return nil, fmt.Errorf("selecting context %q of the kubeconfig: %w", raw.CurrentContext, err)
	}
	if err := clientcmdapi.FlattenConfig(&raw); err != nil {
		return nil, fmt.Errorf("inlining the kubeconfig's certificate files: %w", err)
	}
	data, err := clientcmd.Write(raw)
	if err != nil {
		return nil, fmt.Errorf("writing the kubeconfig: %w", err)
	}
	return data, nil
}

// Scheme holds client-go's types, the core, addons and runtime v1beta2 types; provider objects are
// read as unstructured and need no scheme.
func Scheme() (*runtime.Scheme, error) {
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{clientgoscheme.AddToScheme, clusterv1.AddToScheme, addonsv1.AddToScheme, runtimev1.AddToScheme} {
		if err := add(s); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// New returns an uncached client for the management cluster.
func (o Options) New() (client.WithWatch, error) {
	cfg, err := o.RESTConfig()
	if err != nil {
		return nil, err
	}
	s, err := Scheme()
	if err != nil {
		return nil, err
	}
	c, err := client.NewWithWatch(cfg, client.Options{Scheme: s})
	if err != nil {
		return nil, fmt.Errorf("connecting to the management cluster at %s: %w", cfg.Host, err)
	}
	return c, nil
}

// GetCluster reads a Cluster; a missing one is an error telling how to list them.
func GetCluster(ctx context.Context, c client.Reader, namespace, name string) (*clusterv1.Cluster, error) {
	cluster := &clusterv1.Cluster{}
	if err := c.Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, cluster); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, fmt.Errorf("cluster %s/%s not found: list clusters with 'kubectl get clusters -A' and pass the namespace with -n: %w",
				namespace, name, err)
		}
		return nil, Explain(err, fmt.Sprintf("Cluster %s/%s", namespace, name))
	}
	return cluster, nil
}

// Explain wraps an API error about what with the next step for the usual causes.
// The original error stays in the chain, so apierrors.IsNotFound still works.
func Explain(err error, what string) error {
	switch {
	case err == nil:
		return nil
	case apierrors.IsNotFound(err):
		return fmt.Errorf("%s not found: %w", what, err)
	case meta.IsNoMatchError(err):
		return fmt.Errorf("reading %s: the Cluster API CRDs are not installed there; is --kubeconfig/KUBECONFIG pointing at the management cluster? %w", what, err)
	case apierrors.IsForbidden(err) || apierrors.IsUnauthorized(err):
		return fmt.Errorf("reading %s: your kubeconfig user may not do this (check its RBAC, or use --context): %w", what, err)
	default:
		return fmt.Errorf("reading %s: %w: is the management cluster reachable with --kubeconfig/KUBECONFIG?", what, err)
	}
}
