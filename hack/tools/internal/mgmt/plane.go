package mgmt

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"capstan.dev/contracts/admissionpolicy"
	"capstan.dev/contracts/k8sbin"
)

// Plane is one management plane rooted at Dir.
type Plane struct {
	// Dir holds pki/, etcd/ (the data), logs/, pid files, state.json and kubeconfig.
	Dir string
	// CRDDirs are directories of CRD YAML installed on Up in addition to the core
	// CRDs embedded in capstan.dev/contracts. Missing directories are skipped.
	CRDDirs []string
	// Namespaces are created on Up (the providers' leader-election namespaces).
	Namespaces []string
	// Policies are the providers' admission policies, installed on Up after the CRDs (as
	// `capstanctl init` installs them, so that init finds them in place).
	Policies admissionpolicy.Set
	// Log receives one line per step; nil discards.
	Log io.Writer
}

// state is what must stay the same across restarts.
type state struct {
	EtcdClientPort int `json:"etcdClientPort"`
	EtcdPeerPort   int `json:"etcdPeerPort"`
	APIServerPort  int `json:"apiServerPort"`
}

const (
	etcdName  = "etcd"
	apiName   = "kube-apiserver"
	kcmName   = "kube-controller-manager"
	stopGrace = 30 * time.Second
)

// KubeconfigPath is the admin kubeconfig Up writes.
func (p *Plane) KubeconfigPath() string { return filepath.Join(p.Dir, "kubeconfig") }

func (p *Plane) pidPath(name string) string { return filepath.Join(p.Dir, name+".pid") }
func (p *Plane) logPath(name string) string { return filepath.Join(p.Dir, "logs", name+".log") }
func (p *Plane) pki(name string) string     { return filepath.Join(p.Dir, "pki", name) }

func (p *Plane) logf(format string, args ...any) {
	if p.Log != nil {
		fmt.Fprintf(p.Log, format+"\n", args...)
	}
}

// Up starts whatever is not running, waits until the API server is ready, writes
// the kubeconfig, installs the CRDs (waiting until Established), creates the namespaces and
// installs the admission policies (waiting until they are in effect). Running it again on a
// healthy plane only re-applies CRDs, namespaces and policies.
func (p *Plane) Up(ctx context.Context) error {
	bins, err := k8sbin.Require(etcdName, apiName)
	if err != nil {
		return err
	}
	for _, d := range []string{p.Dir, filepath.Join(p.Dir, "logs"), filepath.Join(p.Dir, "etcd")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return fmt.Errorf("creating %s: %w", d, err)
		}
	}
	if err := ensurePKI(filepath.Join(p.Dir, "pki")); err != nil {
		return fmt.Errorf("preparing certificates: %w", err)
	}
	st, err := p.loadOrAllocateState()
	if err != nil {
		return err
	}
	if err := p.writeKubeconfig(st); err != nil {
		return err
	}

	if runningPID(p.pidPath(etcdName)) == 0 {
		// An API server without its etcd is useless: restart both in order.
		_ = stopProcess(p.pidPath(apiName), stopGrace)
		p.logf("Starting etcd on 127.0.0.1:%d (data in %s)", st.EtcdClientPort, filepath.Join(p.Dir, "etcd"))
		if _, err := startDetached(bins[etcdName], p.etcdArgs(st), p.logPath(etcdName), p.pidPath(etcdName)); err != nil {
			return err
		}
	}
	if err := waitHTTP(ctx, 60*time.Second, p.pidPath(etcdName), p.logPath(etcdName),
		fmt.Sprintf("http://127.0.0.1:%d/health", st.EtcdClientPort), nil); err != nil {
		return fmt.Errorf("etcd did not become healthy: %w", err)
	}

	if runningPID(p.pidPath(apiName)) == 0 {
		p.logf("Starting kube-apiserver on https://127.0.0.1:%d", st.APIServerPort)
		if _, err := startDetached(bins[apiName], p.apiServerArgs(st), p.logPath(apiName), p.pidPath(apiName)); err != nil {
			return err
		}
	}
	httpClient, err := p.adminHTTPClient()
	if err != nil {
		return err
	}
	if err := waitHTTP(ctx, 120*time.Second, p.pidPath(apiName), p.logPath(apiName),
		fmt.Sprintf("https://127.0.0.1:%d/readyz", st.APIServerPort), httpClient); err != nil {
		return fmt.Errorf("kube-apiserver did not become ready: %w", err)
	}

	// The controller manager gives the plane garbage collection (ownerReference
	// cascades) and namespace deletion, which a real management cluster has.
	if kcm, err := k8sbin.Path(kcmName); err == nil {
		if runningPID(p.pidPath(kcmName)) == 0 {
			p.logf("Starting kube-controller-manager (garbage collector, namespace controller)")
			if _, err := startDetached(kcm, p.kcmArgs(), p.logPath(kcmName), p.pidPath(kcmName)); err != nil {
				return err
			}
		}
	} else {
		p.logf("Not starting kube-controller-manager (%v): owner-reference garbage collection is off", err)
	}

	cfg, err := p.RESTConfig()
	if err != nil {
		return err
	}
	if err := installCRDs(ctx, cfg, p.CRDDirs, p.logf); err != nil {
		return err
	}
	if err := ensureNamespaces(ctx, cfg, p.Namespaces); err != nil {
		return err
	}
	if err := installPolicies(ctx, cfg, p.Policies, p.logf); err != nil {
		return err
	}
	p.logf("Management plane ready: KUBECONFIG=%s", p.KubeconfigPath())
	return nil
}

// Down stops the controller manager, the API server and etcd, in that order. Data
// stays in Dir. Stopping a plane that is not running is not an error.
func (p *Plane) Down() error {
	var errs []error
	for _, name := range []string{kcmName, apiName, etcdName} {
		if runningPID(p.pidPath(name)) != 0 {
			p.logf("Stopping %s", name)
		}
		if err := stopProcess(p.pidPath(name), stopGrace); err != nil {
			errs = append(errs, fmt.Errorf("stopping %s: %w", name, err))
		}
	}
	return errors.Join(errs...)
}

// Running reports which components have a live process.
func (p *Plane) Running() map[string]int {
	out := map[string]int{}
	for _, name := range []string{etcdName, apiName, kcmName} {
		if pid := runningPID(p.pidPath(name)); pid != 0 {
			out[name] = pid
		}
	}
	return out
}

// RESTConfig loads the admin kubeconfig written by Up.
func (p *Plane) RESTConfig() (*rest.Config, error) {
	cfg, err := clientcmd.BuildConfigFromFlags("", p.KubeconfigPath())
	if err != nil {
		return nil, fmt.Errorf("loading %s (run 'make mgmt-up' first): %w", p.KubeconfigPath(), err)
	}
	return cfg, nil
}

func (p *Plane) loadOrAllocateState() (state, error) {
	path := filepath.Join(p.Dir, "state.json")
	var st state
	if data, err := os.ReadFile(path); err == nil {
		if err := json.Unmarshal(data, &st); err != nil {
			return st, fmt.Errorf("reading %s: %w (delete the management plane with 'make clean' to start over)", path, err)
		}
		return st, nil
	}
	ports, err := freePorts(3)
	if err != nil {
		return st, err
	}
	st = state{EtcdClientPort: ports[0], EtcdPeerPort: ports[1], APIServerPort: ports[2]}
	data, _ := json.MarshalIndent(st, "", "  ")
	return st, os.WriteFile(path, data, 0o644)
}

func (p *Plane) etcdArgs(st state) []string {
	client := "http://127.0.0.1:" + strconv.Itoa(st.EtcdClientPort)
	peer := "http://127.0.0.1:" + strconv.Itoa(st.EtcdPeerPort)
	return []string{
		"--name=capstan-mgmt",
		"--data-dir=" + filepath.Join(p.Dir, "etcd"),
		"--listen-client-urls=" + client, "--advertise-client-urls=" + client,
		"--listen-peer-urls=" + peer, "--initial-advertise-peer-urls=" + peer,
		"--initial-cluster=capstan-mgmt=" + peer,
	}
}

func (p *Plane) apiServerArgs(st state) []string {
	return []string{
		"--etcd-servers=http://127.0.0.1:" + strconv.Itoa(st.EtcdClientPort),
		"--bind-address=127.0.0.1", "--advertise-address=127.0.0.1",
		"--secure-port=" + strconv.Itoa(st.APIServerPort),
		"--tls-cert-file=" + p.pki(servingCert), "--tls-private-key-file=" + p.pki(servingKey),
		"--client-ca-file=" + p.pki(caCert),
		"--authorization-mode=RBAC",
		"--service-account-issuer=https://kubernetes.default.svc.cluster.local",
		"--service-account-key-file=" + p.pki(saPub),
		"--service-account-signing-key-file=" + p.pki(saKey),
		"--service-cluster-ip-range=10.96.0.0/16",
		"--allow-privileged=true",
		// The only address is loopback, which the endpoint reconciler refuses to publish.
		"--endpoint-reconciler-type=none",
	}
}

func (p *Plane) kcmArgs() []string {
	return []string{
		"--kubeconfig=" + p.KubeconfigPath(),
		// clusterrole-aggregation: a provider grants the core its kinds with a ClusterRole labelled
		// cluster.x-k8s.io/aggregate-to-manager, merged into the core's aggregated role.
		"--controllers=garbagecollector,namespace,serviceaccount,serviceaccount-token,clusterrole-aggregation",
		"--service-account-private-key-file=" + p.pki(saKey),
		"--root-ca-file=" + p.pki(caCert),
		"--use-service-account-credentials=false",
		"--leader-elect=false",
		"--bind-address=127.0.0.1", "--secure-port=0",
	}
}

func (p *Plane) writeKubeconfig(st state) error {
	cfg := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: capstan-mgmt
  cluster:
    server: https://127.0.0.1:%d
    certificate-authority: %s
users:
- name: capstan-admin
  user:
    client-certificate: %s
    client-key: %s
contexts:
- name: capstan-mgmt
  context: {cluster: capstan-mgmt, user: capstan-admin}
current-context: capstan-mgmt
`, st.APIServerPort, p.abs(p.pki(caCert)), p.abs(p.pki(adminCert)), p.abs(p.pki(adminKey)))
	return os.WriteFile(p.KubeconfigPath(), []byte(cfg), 0o600)
}

func (p *Plane) abs(path string) string {
	if a, err := filepath.Abs(path); err == nil {
		return a
	}
	return path
}

func (p *Plane) adminHTTPClient() (*http.Client, error) {
	pair, err := tls.LoadX509KeyPair(p.pki(adminCert), p.pki(adminKey))
	if err != nil {
		return nil, fmt.Errorf("loading admin certificate: %w", err)
	}
	caPEM, err := os.ReadFile(p.pki(caCert))
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(caPEM)
	return &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{
		TLSClientConfig: &tls.Config{RootCAs: pool, Certificates: []tls.Certificate{pair}, MinVersion: tls.VersionTLS12},
	}}, nil
}

// waitHTTP polls url until it answers 200, failing early (with the log's tail)
// when the process behind it exits.
func waitHTTP(ctx context.Context, timeout time.Duration, pidPath, logPath, url string, c *http.Client) error {
	if c == nil {
		c = &http.Client{Timeout: 5 * time.Second}
	}
	deadline := time.Now().Add(timeout)
	var last error
	for time.Now().Before(deadline) {
		if runningPID(pidPath) == 0 {
			return fmt.Errorf("the process exited; end of %s:\n%s", logPath, tail(logPath, 15))
		}
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		resp, err := c.Do(req)
		if err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
			err = fmt.Errorf("%s answered %s", url, resp.Status)
		}
		last = err
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(250 * time.Millisecond):
		}
	}
	return fmt.Errorf("not ready after %s (last: %v); see %s", timeout, last, logPath)
}

func tail(path string, lines int) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	n := 0
	for i := len(data) - 1; i >= 0; i-- {
		if data[i] == '\n' {
			if n++; n > lines {
				return string(data[i+1:])
			}
		}
	}
	return string(data)
}

func freePorts(n int) ([]int, error) {
	var ports []int
	var listeners []net.Listener
	defer func() {
		for _, l := range listeners {
			l.Close()
		}
	}()
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("finding a free port: %w", err)
		}
		listeners = append(listeners, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}
