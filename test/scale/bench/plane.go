package bench

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"capstan.dev/contracts/envtest"
	"capstan.dev/contracts/k8sbin"
	"capstan.dev/contracts/testing/crds"
)

// The users every actor of a run writes as, so the audit log tells their writes apart.
const (
	UserCore      = "capstan-bench-core"      // the core manager process
	UserWorkload  = "capstan-bench-workload"  // the core again, through <cluster>-kubeconfig
	UserProvider  = "capstan-bench-provider"  // the scale provider
	UserHarness   = "capstan-bench-harness"   // the benchmark creating and deleting objects
	UserGC        = "capstan-bench-gc"        // kube-controller-manager's garbage collector
	UserBootstrap = "capstan-bench-bootstrap" // the kubeadm bootstrap manager (scenario 6)
	UserDocker    = "capstan-bench-docker"    // the docker infrastructure manager (scenario 6)
)

// plane is the benchmark's own kube-apiserver + etcd (never a user's management
// plane), logging every write, with a garbage collector when kube-controller-manager
// has been built.
type plane struct {
	env      *envtest.Environment
	auditLog string
	dir      string
	// kubeconfigs holds a kubeconfig file per user.
	kubeconfigs map[string]string
	// workloadKubeconfig is the kubeconfig handed to the core as every Cluster's.
	workloadKubeconfig []byte
	harness            client.WithWatch
	harnessConfig      *rest.Config
	gc                 *process // nil without kube-controller-manager
}

// startPlane starts the API server with the core CRDs (from coreCRDDir when set,
// else the embedded ones) and contracts' generic provider CRDs, which the scale
// provider reconciles.
func startPlane(dir, coreCRDDir string) (*plane, error) {
	flags, auditLog, err := envtest.WriteAuditFlags(dir)
	if err != nil {
		return nil, err
	}
	// The bootstrap and docker providers' CRDs too: scenario 6 runs their managers.
	root, err := workspaceRoot()
	if err != nil {
		return nil, err
	}
	opts := envtest.Options{CRDs: crds.All(), APIServerFlags: flags, CRDDirectoryPaths: []string{
		filepath.Join(root, "bootstrap-kubeadm", "config", "crd", "bases"),
		filepath.Join(root, "infrastructure-docker", "config", "crd", "bases"),
	}}
	if coreCRDDir != "" {
		if opts.CoreCRDs, err = readCRDDir(coreCRDDir); err != nil {
			return nil, err
		}
	}
	env, err := envtest.Start(opts)
	if err != nil {
		return nil, err
	}
	p := &plane{env: env, auditLog: auditLog, dir: dir, kubeconfigs: map[string]string{}}
	if err := p.setUp(); err != nil {
		return nil, errors.Join(err, p.stop())
	}
	return p, nil
}

func (p *plane) setUp() error {
	for _, user := range []string{UserCore, UserWorkload, UserHarness, UserGC, UserBootstrap, UserDocker} {
		data, err := p.env.AddUserKubeconfig(user, "system:masters")
		if err != nil {
			return err
		}
		path := filepath.Join(p.dir, user+".kubeconfig")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			return err
		}
		p.kubeconfigs[user] = path
		if user == UserWorkload {
			p.workloadKubeconfig = data
		}
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", p.kubeconfigs[UserHarness])
	if err != nil {
		return err
	}
	cfg.QPS, cfg.Burst = 5000, 10000 // the harness must never be the one waiting
	p.harnessConfig = cfg
	if p.harness, err = client.NewWithWatch(cfg, client.Options{Scheme: p.env.Scheme}); err != nil {
		return err
	}
	return p.startGarbageCollector()
}

// startGarbageCollector runs kube-controller-manager with only the garbage collector
// and namespace controllers, as a real management cluster has them: deletion cascades
// through owner references. Without the binary the run goes on and says so.
func (p *plane) startGarbageCollector() error {
	bin, err := k8sbin.Path("kube-controller-manager")
	if err != nil {
		return nil
	}
	p.gc, err = startProcess(bin, []string{
		"--kubeconfig=" + p.kubeconfigs[UserGC],
		"--controllers=garbagecollector,namespace",
		"--use-service-account-credentials=false",
		"--leader-elect=false",
		"--bind-address=127.0.0.1", "--secure-port=0",
	}, nil, filepath.Join(p.dir, "kube-controller-manager.log"))
	return err
}

// saveProfile fetches one of the API server's pprof profiles (e.g.
// "profile?seconds=30") into path, as the harness's user.
func (p *plane) saveProfile(ctx context.Context, profile, path string) error {
	httpClient, err := rest.HTTPClientFor(p.harnessConfig)
	if err != nil {
		return err
	}
	url := strings.TrimSuffix(p.harnessConfig.Host, "/") + "/debug/pprof/" + profile
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := httpClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	return writeProfile(resp, profile, path)
}

// providerConfig is a REST config for the scale provider's own user.
func (p *plane) providerConfig() (*rest.Config, error) {
	return p.env.AddUser(UserProvider, "system:masters")
}

func (p *plane) stop() error {
	var errs []error
	if p.gc != nil {
		errs = append(errs, p.gc.stop())
	}
	return errors.Join(append(errs, p.env.Stop())...)
}

// readCRDDir decodes every CRD in dir (CORE_CRDS), so another core implementation
// runs on its own CRDs.
func readCRDDir(dir string) ([]*apiextensionsv1.CustomResourceDefinition, error) {
	out, err := envtest.DecodeCRDs(os.DirFS(dir), ".")
	if err != nil {
		return nil, fmt.Errorf("reading the core CRDs from %s: %w", dir, err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no CustomResourceDefinition in %s (CORE_CRDS): expected the core's CRD YAML files", dir)
	}
	return out, nil
}

// workspaceRoot is the directory of the Go workspace (go.work) the benchmark runs in: the
// repository, whose provider modules it builds and whose CRDs it installs.
func workspaceRoot() (string, error) {
	out, err := exec.Command("go", "env", "GOWORK").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOWORK: %w", err)
	}
	work := strings.TrimSpace(string(out))
	if work == "" || work == "off" {
		return "", fmt.Errorf("the benchmark runs inside the repository's Go workspace (go env GOWORK is %q)", work)
	}
	return filepath.Dir(work), nil
}
