package managers

import (
	"context"
	"crypto/tls"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"capstan.dev/contracts/envtest"
)

// TestManagers_DiagnosticsServeOnlyAuthorizedCallers runs the core manager as deployed (the
// diagnostics endpoint secure by default) on its generated RBAC alone, and scrapes it as a
// Prometheus would: without a token it is refused (401), with a ServiceAccount token the
// management cluster does not authorize for the path it is forbidden (403), and once a
// ClusterRole grants `get` on /metrics the metrics are served — but not pprof, which the role
// does not grant. --tls-min-version is honoured: a TLS 1.2 client cannot connect.
func TestManagers_DiagnosticsServeOnlyAuthorizedCallers(t *testing.T) {
	ctx := context.Background()
	p := providers[0]
	ensureNamespace(t, p.namespace)
	const user = "capstan-core-diagnostics"
	applyRBAC(t, "../../core/config/rbac", p.namespace, user)
	cfg, err := env.AddUser(user)
	require.NoError(t, err)
	addr := freeAddr(t)
	mp := startManager(t, buildManager(t, p), writeKubeconfig(t, cfg),
		"--leader-elect=false", "--diagnostics-address="+addr, "--tls-min-version=VersionTLS13")

	// The certificate is self-signed (scrapers trust the Service, not the certificate).
	tls13 := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{
		TLSClientConfig: &tls.Config{InsecureSkipVerify: true, MinVersion: tls.VersionTLS13}}} //nolint:gosec // self-signed by design
	get := func(path, token string) (int, string) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, "https://"+addr+path, nil)
		require.NoError(t, err)
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := tls13.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body)
	}
	envtest.WaitFor(t, 60*time.Second, "the diagnostics endpoint to listen", func() (bool, error) {
		resp, err := tls13.Get("https://" + addr + "/metrics")
		if err != nil {
			return false, nil
		}
		resp.Body.Close()
		return true, nil
	})

	code, _ := get("/metrics", "")
	require.Equal(t, http.StatusUnauthorized, code, "a caller without a token")

	cs, err := kubernetes.NewForConfig(env.Config)
	require.NoError(t, err)
	ns := env.CreateNamespace(t, "scraper")
	_, err = cs.CoreV1().ServiceAccounts(ns).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "prometheus"}}, metav1.CreateOptions{})
	require.NoError(t, err)
	tr, err := cs.CoreV1().ServiceAccounts(ns).CreateToken(ctx, "prometheus", &authenticationv1.TokenRequest{}, metav1.CreateOptions{})
	require.NoError(t, err)
	token := tr.Status.Token

	code, _ = get("/metrics", token)
	require.Equal(t, http.StatusForbidden, code, "a ServiceAccount nobody allowed to get /metrics")

	role := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "capstan-metrics-reader-" + ns},
		Rules: []rbacv1.PolicyRule{{NonResourceURLs: []string{"/metrics"}, Verbs: []string{"get"}}}}
	require.NoError(t, env.Client.Create(ctx, role))
	require.NoError(t, env.Client.Create(ctx, &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: role.Name},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role.Name},
		Subjects: []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: ns, Name: "prometheus"}}}))
	envtest.WaitFor(t, 30*time.Second, "the metrics for the authorized ServiceAccount", func() (bool, error) {
		code, body := get("/metrics", token)
		return code == http.StatusOK && strings.Contains(body, "controller_runtime_reconcile_total"), nil
	})
	code, _ = get("/debug/pprof/goroutine?debug=1", token)
	require.Equal(t, http.StatusForbidden, code, "pprof is a path of its own, not granted by get /metrics")

	tls12 := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{
		TLSClientConfig: &tls.Config{InsecureSkipVerify: true, MaxVersion: tls.VersionTLS12}}} //nolint:gosec // self-signed by design
	_, err = tls12.Get("https://" + addr + "/metrics")
	require.ErrorContains(t, err, "protocol version", "--tls-min-version=VersionTLS13 refuses TLS 1.2")

	require.NoError(t, mp.stop(t))
	requireNoRBACDenial(t, mp.logPath)
}
