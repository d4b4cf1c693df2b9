// Package kubeconfig gets a workload cluster's admin kubeconfig out of its
// <cluster>-kubeconfig Secret for capstanctl, pointing it at an address reachable
// from where capstanctl runs. The control plane provider writes the kubeconfig
// with the server its nodes use; the Cluster's spec.controlPlaneEndpoint is the
// address the management side uses, so when the two differ the server is
// rewritten to https://<controlPlaneEndpoint> (or to --server). It only reads: it
// never writes the Secret back.
package kubeconfig

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"slices"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/secret"
	"capstan.dev/core/internal/capstanctl/clusterclient"
)

// Get returns the kubeconfig of Cluster namespace/name. server, when set,
// replaces every cluster server in it; otherwise the servers are rewritten to
// the Cluster's controlPlaneEndpoint when that is set and differs.
func Get(ctx context.Context, c client.Reader, namespace, name, server string) ([]byte, error) {
	if server != "" {
		if err := validateServer(server); err != nil {
			return nil, err
		}
	}
	cluster, err := clusterclient.GetCluster(ctx, c, namespace, name)
	if err != nil {
		return nil, err
	}
	s := &corev1.Secret{}
	key := client.ObjectKey{Namespace: namespace, Name: secret.Name(name, secret.Kubeconfig)}
	if err := c.Get(ctx, key, s); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, fmt.Errorf("secret %s not found: the control plane of Cluster %s/%s has not written its kubeconfig yet; "+
				"see what it is waiting for with 'capstanctl describe cluster %s -n %s'", key, namespace, name, name, namespace)
		}
		return nil, clusterclient.Explain(err, "Secret "+key.String())
	}
	data, ok := s.Data[secret.KubeconfigDataName]
	if !ok || len(data) == 0 {
		return nil, fmt.Errorf("secret %s has no %q key: it is not a Cluster API kubeconfig Secret", key, secret.KubeconfigDataName)
	}
	if server == "" {
		server = EndpointServer(cluster.Spec.ControlPlaneEndpoint)
	}
	if server == "" {
		return data, nil
	}
	return RewriteServer(data, server)
}

// EndpointServer is the https URL of an endpoint, "" when the endpoint is not
// set yet. IPv6 hosts are bracketed.
func EndpointServer(ep clusterv1.APIEndpoint) string {
	if !ep.IsValid() {
		return ""
	}
	return "https://" + ep.String()
}

// RewriteServer points every cluster entry of kubeconfig at server. When no
// entry changes (the servers already name the same host and port), the input is
// returned byte for byte.
func RewriteServer(kubeconfig []byte, server string) ([]byte, error) {
	cfg, err := clientcmd.Load(kubeconfig)
	if err != nil {
		return nil, fmt.Errorf("parsing the kubeconfig: %w", err)
	}
	if len(cfg.Clusters) == 0 {
		return nil, fmt.Errorf("the kubeconfig has no clusters")
	}
	changed := false
	names := make([]string, 0, len(cfg.Clusters))
	for n := range cfg.Clusters {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		c := cfg.Clusters[n]
		if sameServer(c.Server, server) {
			continue
		}
		c.Server = server
		changed = true
	}
	if !changed {
		return kubeconfig, nil
	}
	out, err := clientcmd.Write(*cfg)
	if err != nil {
		return nil, fmt.Errorf("writing the kubeconfig: %w", err)
	}
	return out, nil
}

// sameServer compares scheme, host and port, with https's default port.
func sameServer(a, b string) bool {
	ua, errA := url.Parse(a)
	ub, errB := url.Parse(b)
	if errA != nil || errB != nil {
		return a == b
	}
	return ua.Scheme == ub.Scheme && hostPort(ua) == hostPort(ub) && ua.Path == ub.Path
}

func hostPort(u *url.URL) string {
	port := u.Port()
	if port == "" {
		port = "443"
		if u.Scheme == "http" {
			port = "80"
		}
	}
	return net.JoinHostPort(u.Hostname(), port)
}

func validateServer(server string) error {
	u, err := url.Parse(server)
	if err != nil || u.Scheme != "https" || u.Host == "" {
		return fmt.Errorf("--server %q is not an API server URL: write it as https://host:port, e.g. https://127.0.0.1:6443", server)
	}
	return nil
}
