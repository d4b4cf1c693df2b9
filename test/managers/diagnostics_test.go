package managers

import (
	"context"
	"crypto/tls"
	"io"
	"net/http"
	"os"
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
// does not grant. The log verbosity changes only for a caller allowed to put /debug/flags/v
// (requireVerbosityChangesOnlyForAuthorizedCallers). --tls-min-version is honoured: a TLS 1.2
// client cannot connect.
func TestManagers_DiagnosticsServeOnlyAuthorizedCallers(t *testing.T) {
	p := providers[0]
	ensureNamespace(t, p.namespace)
	const user = "capstan-core-diagnostics"
	applyRBAC(t, "../../core/config/rbac", p.namespace, user)
	cfg, err := env.AddUser(user)
	require.NoError(t, err)
	addr := envtest.FreeLoopbackAddr(t)
	mp := startManager(t, buildManager(t, p), writeKubeconfig(t, cfg),
		"--leader-elect=false", "--diagnostics-address="+addr, "--tls-min-version=VersionTLS13")

	// The certificate is self-signed (scrapers trust the Service, not the certificate).
	d := diagnostics{addr: addr, client: &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{
		TLSClientConfig: &tls.Config{InsecureSkipVerify: true, MinVersion: tls.VersionTLS13}}}} //nolint:gosec // self-signed by design
	envtest.WaitFor(t, 60*time.Second, "the diagnostics endpoint to listen", func() (bool, error) {
		resp, err := d.client.Get("https://" + addr + "/metrics")
		if err != nil {
			return false, nil
		}
		resp.Body.Close()
		return true, nil
	})

	code, _ := d.do(t, http.MethodGet, "/metrics", "", "")
	require.Equal(t, http.StatusUnauthorized, code, "a caller without a token")

	ns := env.CreateNamespace(t, "scraper")
	token := serviceAccountToken(t, ns, "prometheus")
	code, _ = d.do(t, http.MethodGet, "/metrics", token, "")
	require.Equal(t, http.StatusForbidden, code, "a ServiceAccount nobody allowed to get /metrics")

	grant(t, ns, "prometheus", "capstan-metrics-reader-"+ns, rbacv1.PolicyRule{NonResourceURLs: []string{"/metrics"}, Verbs: []string{"get"}})
	envtest.WaitFor(t, 30*time.Second, "the metrics for the authorized ServiceAccount", func() (bool, error) {
		code, body := d.do(t, http.MethodGet, "/metrics", token, "")
		return code == http.StatusOK && strings.Contains(body, "controller_runtime_reconcile_total"), nil
	})
	code, _ = d.do(t, http.MethodGet, "/debug/pprof/goroutine?debug=1", token, "")
	require.Equal(t, http.StatusForbidden, code, "pprof is a path of its own, not granted by get /metrics")

	requireVerbosityChangesOnlyForAuthorizedCallers(t, d, ns, token, mp.logPath)

	tls12 := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{
		TLSClientConfig: &tls.Config{InsecureSkipVerify: true, MaxVersion: tls.VersionTLS12}}} //nolint:gosec // self-signed by design
	_, err = tls12.Get("https://" + addr + "/metrics")
	require.ErrorContains(t, err, "protocol version", "--tls-min-version=VersionTLS13 refuses TLS 1.2")

	require.NoError(t, mp.stop(t))
	requireNoRBACDenial(t, mp.logPath)
}

// requireVerbosityChangesOnlyForAuthorizedCallers changes the log verbosity of the running
// manager through PUT /debug/flags/v. The scraper's token (get /metrics only) is refused and
// leaves it as it was; an operator's ServiceAccount granted `put` on the path changes it. What
// shows the verbosity is controller-runtime's filter, which logs every refused request at
// V(4), before it answers: after PUT 4 the scraper's refused request is in the manager's log,
// before it and after PUT 0 it is not.
func requireVerbosityChangesOnlyForAuthorizedCallers(t *testing.T, d diagnostics, ns, scraperToken, logPath string) {
	t.Helper()
	const path = "/debug/flags/v"
	denied := "Authorization denied for user system:serviceaccount:" + ns + ":prometheus"
	refuseScraper := func() int {
		t.Helper()
		code, _ := d.do(t, http.MethodPut, path, scraperToken, "4")
		require.Equal(t, http.StatusForbidden, code, "a ServiceAccount allowed to get /metrics only puts "+path)
		return strings.Count(readFile(t, logPath), denied)
	}

	code, _ := d.do(t, http.MethodPut, path, "", "4")
	require.Equal(t, http.StatusUnauthorized, code, "a caller without a token")
	refuseScraper()
	require.Zero(t, refuseScraper(), "V(4) is not logged at the default verbosity, nor after a refused PUT 4")

	operatorToken := serviceAccountToken(t, ns, "operator")
	grant(t, ns, "operator", "capstan-log-verbosity-"+ns, rbacv1.PolicyRule{NonResourceURLs: []string{path}, Verbs: []string{"put"}})
	// 60s: a PUT sent before the API server's authorizer sees the binding is refused, and
	// the filter keeps a refusal for 30s.
	envtest.WaitFor(t, 60*time.Second, "the operator's PUT 4 to be authorized", func() (bool, error) {
		code, body := d.do(t, http.MethodPut, path, operatorToken, "4")
		return code == http.StatusOK && body == "successfully set klog.logging.verbosity to 4\n", nil
	})
	require.Equal(t, 1, refuseScraper(), "V(4) is logged after PUT 4")
	require.Contains(t, readFile(t, logPath), `"msg":"Log verbosity changed","v":4,"previous":0`)

	code, body := d.do(t, http.MethodPut, path, operatorToken, "four")
	require.Equal(t, http.StatusBadRequest, code, body)
	code, body = d.do(t, http.MethodPut, path, operatorToken, "0")
	require.Equal(t, http.StatusOK, code, body)
	require.Equal(t, 1, refuseScraper(), "V(4) is no longer logged after PUT 0")
}

// diagnostics is a client of one manager's authenticated diagnostics endpoint.
type diagnostics struct {
	addr   string
	client *http.Client
}

// do sends one request, with the bearer token when there is one, and returns the answer.
func (d diagnostics) do(t *testing.T, method, path, token, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(context.Background(), method, "https://"+d.addr+path, strings.NewReader(body))
	require.NoError(t, err)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := d.client.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(out)
}

// serviceAccountToken creates the ServiceAccount ns/name and returns a token of it.
func serviceAccountToken(t *testing.T, ns, name string) string {
	t.Helper()
	ctx := context.Background()
	cs, err := kubernetes.NewForConfig(env.Config)
	require.NoError(t, err)
	_, err = cs.CoreV1().ServiceAccounts(ns).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{})
	require.NoError(t, err)
	tr, err := cs.CoreV1().ServiceAccounts(ns).CreateToken(ctx, name, &authenticationv1.TokenRequest{}, metav1.CreateOptions{})
	require.NoError(t, err)
	return tr.Status.Token
}

// grant binds a ClusterRole holding rule, named role, to the ServiceAccount ns/name.
func grant(t *testing.T, ns, name, role string, rule rbacv1.PolicyRule) {
	t.Helper()
	ctx := context.Background()
	require.NoError(t, env.Client.Create(ctx, &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: role}, Rules: []rbacv1.PolicyRule{rule}}))
	require.NoError(t, env.Client.Create(ctx, &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: role},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role},
		Subjects: []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: ns, Name: name}}}))
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return string(b)
}
