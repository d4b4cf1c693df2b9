// Package devcreds gives a manager that `capstanctl init --dev` runs as a local process the
// identity its Deployment would have: a kubeconfig holding a token of the provider's
// ServiceAccount (TokenRequest API), so the process runs on exactly the RBAC the provider
// installs and a missing permission shows in development as it would in a cluster — not on
// the credentials of whoever ran init.
//
// Tokens are bound to nothing but the ServiceAccount and expire after TTL. A kubeconfig
// written earlier is kept while its token is still the ServiceAccount's, for the same API
// server, and valid for more than half the TTL, so re-running init does not restart managers
// for a fresh token; otherwise a new token is requested and the file rewritten.
package devcreds

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"k8s.io/utils/ptr"
)

// ServiceAccount names the identity a manager runs as.
type ServiceAccount struct {
	Namespace, Name string
}

// Username is how the API server names the ServiceAccount in authentication and RBAC.
func (sa ServiceAccount) Username() string {
	return "system:serviceaccount:" + sa.Namespace + ":" + sa.Name
}

// Issuer requests tokens with the credentials of the one running init.
type Issuer struct {
	// Clientset talks to the cluster as the caller (it needs create on serviceaccounts/token).
	Clientset kubernetes.Interface
	// Base is a self-contained kubeconfig of the cluster (one context, certificates inlined):
	// its cluster entry is kept, its user replaced by the token.
	Base []byte
	// TTL is the lifetime requested for each token.
	TTL time.Duration
	// Now is the clock; time.Now when nil.
	Now func() time.Time
}

func (is *Issuer) now() time.Time {
	if is.Now == nil {
		return time.Now()
	}
	return is.Now()
}

// Ensure makes path a kubeconfig that authenticates as sa, reusing the file when it still
// qualifies (see the package comment). It reports whether it wrote the file.
func (is *Issuer) Ensure(ctx context.Context, sa ServiceAccount, path string) (bool, error) {
	base, err := clientcmd.Load(is.Base)
	if err != nil {
		return false, fmt.Errorf("reading the management cluster's kubeconfig: %w", err)
	}
	bctx, ok := base.Contexts[base.CurrentContext]
	if !ok || base.Clusters[bctx.Cluster] == nil {
		return false, fmt.Errorf("the management cluster's kubeconfig has no current context with a cluster")
	}
	cluster := base.Clusters[bctx.Cluster]

	if old, err := os.ReadFile(path); err == nil && is.stillGood(old, cluster, sa) {
		return false, nil
	} else if err != nil && !errors.Is(err, os.ErrNotExist) {
		return false, fmt.Errorf("reading %s: %w", path, err)
	}

	tr, err := is.Clientset.CoreV1().ServiceAccounts(sa.Namespace).CreateToken(ctx, sa.Name, &authenticationv1.TokenRequest{
		Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr.To(int64(is.TTL / time.Second))},
	}, metav1.CreateOptions{})
	if err != nil {
		return false, fmt.Errorf("requesting a token of ServiceAccount %s/%s for its manager: %w", sa.Namespace, sa.Name, err)
	}
	user := sa.Username()
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["management"] = cluster
	cfg.AuthInfos[user] = &clientcmdapi.AuthInfo{Token: tr.Status.Token}
	cfg.Contexts[user] = &clientcmdapi.Context{Cluster: "management", AuthInfo: user, Namespace: sa.Namespace}
	cfg.CurrentContext = user
	data, err := clientcmd.Write(*cfg)
	if err != nil {
		return false, fmt.Errorf("writing the kubeconfig of %s: %w", user, err)
	}
	// The file holds a credential: owner-only, replaced atomically so a running manager
	// never reads half of it.
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		return false, fmt.Errorf("writing %s: %w", tmp, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return false, fmt.Errorf("writing %s: %w", path, err)
	}
	return true, nil
}

// stillGood says whether an existing kubeconfig points at the same cluster with a token of
// sa that stays valid for more than half the TTL. The token's claims are read, not verified:
// the API server verifies it on every request, and a forged file only hurts its writer.
func (is *Issuer) stillGood(old []byte, cluster *clientcmdapi.Cluster, sa ServiceAccount) bool {
	cfg, err := clientcmd.Load(old)
	if err != nil {
		return false
	}
	c, ok := cfg.Contexts[cfg.CurrentContext]
	if !ok || cfg.Clusters[c.Cluster] == nil || cfg.AuthInfos[c.AuthInfo] == nil {
		return false
	}
	have := cfg.Clusters[c.Cluster]
	if have.Server != cluster.Server || !bytes.Equal(have.CertificateAuthorityData, cluster.CertificateAuthorityData) {
		return false
	}
	claims, err := tokenClaims(cfg.AuthInfos[c.AuthInfo].Token)
	if err != nil || claims.Subject != sa.Username() {
		return false
	}
	return time.Unix(claims.Expiry, 0).Sub(is.now()) > is.TTL/2
}

type claims struct {
	Subject string `json:"sub"`
	Expiry  int64  `json:"exp"`
}

// tokenClaims decodes the payload of a JWT.
func tokenClaims(token string) (claims, error) {
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return claims{}, fmt.Errorf("not a JWT")
	}
	payload, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		return claims{}, fmt.Errorf("decoding the token's claims: %w", err)
	}
	var c claims
	if err := json.Unmarshal(payload, &c); err != nil {
		return claims{}, fmt.Errorf("decoding the token's claims: %w", err)
	}
	return c, nil
}
