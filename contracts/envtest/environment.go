package envtest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	crenvtest "sigs.k8s.io/controller-runtime/pkg/envtest"

	addonsv1 "capstan.dev/contracts/api/addons/v1beta2"
	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	ipamv1 "capstan.dev/contracts/api/ipam/v1beta2"
	"capstan.dev/contracts/k8sbin"
)

// Options says what an Environment installs.
type Options struct {
	// CRDDirectoryPaths are the requesting module's CRD directories, e.g.
	// "../../../config/crd/bases" from a controller package. The core CRDs embedded in
	// capstan.dev/contracts are installed (unless CoreCRDs replaces them) and need not be listed. A listed
	// directory that does not exist is an error, so a wrong path never passes silently.
	// The admission policies of a module whose config/crd/bases is listed
	// (<module>/config/admission) are installed with its CRDs.
	CRDDirectoryPaths []string
	// CRDs are further CRDs to install, e.g. contracts' generic test providers.
	CRDs []*apiextensionsv1.CustomResourceDefinition
	// AdmissionPolicyDirs are further config/admission directories: MutatingAdmissionPolicies
	// that default kinds at admission, installed as `capstanctl init` installs them. The
	// core's, embedded in capstan.dev/contracts, are always installed. A listed directory that
	// does not exist is an error.
	AdmissionPolicyDirs []string
	// CoreCRDs replace the embedded core CRDs when not nil, e.g. to benchmark
	// another implementation of the core contract on its own CRDs.
	CoreCRDs []*apiextensionsv1.CustomResourceDefinition
	// Scheme is used by Client. Defaults to client-go's types, apiextensions/v1 and
	// the core and addons v1beta2 types.
	Scheme *runtime.Scheme
	// AttachControlPlaneOutput copies kube-apiserver and etcd output to the test's
	// stdout/stderr (also enabled by KUBEBUILDER_ATTACH_CONTROL_PLANE_OUTPUT=true).
	AttachControlPlaneOutput bool
	// APIServerFlags are extra kube-apiserver flags, e.g. an audit log to count
	// every write in a test ("audit-log-path": path).
	APIServerFlags map[string]string
	// Logger becomes controller-runtime's logger in Run; defaults to a development
	// zap logger on stderr, so controllers under test log where `go test -v` shows it.
	Logger *logr.Logger
}

// Environment is a running kube-apiserver + etcd with CRDs installed.
type Environment struct {
	// Config authenticates as an administrator (group system:masters).
	Config *rest.Config
	// KubeConfig is Config as a kubeconfig file, e.g. for a workload-cluster Secret.
	KubeConfig []byte
	// Client is an uncached client on Config with Scheme; it can also watch.
	Client client.WithWatch
	// Scheme is the scheme Client uses.
	Scheme *runtime.Scheme
	// CRDs are the CRDs that were installed.
	CRDs []*apiextensionsv1.CustomResourceDefinition

	testEnv    *crenvtest.Environment
	stopOnce   sync.Once
	stopErr    error
	recordPath string
}

// DefaultScheme returns a scheme with client-go's types, apiextensions/v1 and the
// core, addons and ipam v1beta2 types.
func DefaultScheme() (*runtime.Scheme, error) {
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{
		clientgoscheme.AddToScheme, apiextensionsv1.AddToScheme, clusterv1.AddToScheme, addonsv1.AddToScheme, ipamv1.AddToScheme,
	} {
		if err := add(s); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// Start launches kube-apiserver and etcd and installs the CRDs. When the binaries
// are missing the error says which make target builds them. A failed Start leaves
// no process behind.
func Start(opts Options) (*Environment, error) {
	paths, err := k8sbin.Require("kube-apiserver", "etcd")
	if err != nil {
		return nil, fmt.Errorf("envtest needs a real kube-apiserver and etcd: %w", err)
	}
	scheme := opts.Scheme
	if scheme == nil {
		if scheme, err = DefaultScheme(); err != nil {
			return nil, fmt.Errorf("building scheme: %w", err)
		}
	}
	crds := opts.CoreCRDs
	if crds == nil {
		if crds, err = CoreCRDs(); err != nil {
			return nil, err
		}
	}
	crds = append(append([]*apiextensionsv1.CustomResourceDefinition(nil), crds...), opts.CRDs...)

	te := &crenvtest.Environment{
		Scheme:                   scheme,
		CRDs:                     crds,
		CRDDirectoryPaths:        opts.CRDDirectoryPaths,
		ErrorIfCRDPathMissing:    true,
		AttachControlPlaneOutput: opts.AttachControlPlaneOutput,
		ControlPlaneStartTimeout: 60 * time.Second,
		ControlPlaneStopTimeout:  30 * time.Second,
	}
	apiServer := te.ControlPlane.GetAPIServer()
	apiServer.Path = paths["kube-apiserver"]
	for k, v := range opts.APIServerFlags {
		apiServer.Configure().Set(k, v)
	}
	te.ControlPlane.Etcd = &crenvtest.Etcd{Path: paths["etcd"]}
	if kubectl, err := k8sbin.Path("kubectl"); err == nil {
		te.ControlPlane.KubectlPath = kubectl
	}

	if n, err := reapOrphans(); err != nil {
		fail("looking for orphaned control planes: %v", err)
	} else if n > 0 {
		fail("killed %d kube-apiserver/etcd processes left behind by an earlier test binary that crashed", n)
	}
	env := &Environment{Scheme: scheme, testEnv: te}
	cfg, err := te.Start()
	if err != nil {
		// envtest leaves etcd and kube-apiserver running when a later step (say a
		// rejected CRD) fails: stop them here so nothing is orphaned.
		stopErr := te.Stop()
		return nil, errors.Join(fmt.Errorf("starting kube-apiserver and etcd: %w", err), stopErr)
	}
	if err := env.register(); err != nil {
		fail("recording the control plane for orphan cleanup: %v", err)
	}
	env.Config = cfg
	env.KubeConfig = te.KubeConfig
	env.CRDs = te.CRDs
	if env.Client, err = client.NewWithWatch(cfg, client.Options{Scheme: scheme}); err != nil {
		return nil, errors.Join(fmt.Errorf("building client: %w", err), env.Stop())
	}
	if err := installAdmissionPolicies(env.Client, admissionDirs(opts)); err != nil {
		return nil, errors.Join(err, env.Stop())
	}
	return env, nil
}

// Stop stops kube-apiserver and etcd. It is safe to call more than once and from
// several goroutines (the watchdog and the normal teardown may race).
func (e *Environment) Stop() error {
	e.stopOnce.Do(func() {
		e.stopErr = e.testEnv.Stop()
		e.unregister()
	})
	return e.stopErr
}

// AddUser provisions a user authenticated by a client certificate, for RBAC tests.
func (e *Environment) AddUser(name string, groups ...string) (*rest.Config, error) {
	u, err := e.testEnv.AddUser(crenvtest.User{Name: name, Groups: groups}, &rest.Config{QPS: 1000, Burst: 2000})
	if err != nil {
		return nil, fmt.Errorf("adding user %s: %w", name, err)
	}
	return u.Config(), nil
}

// AddUserKubeconfig provisions a user like AddUser and returns a kubeconfig with
// the user's credentials inline, for a process or a <cluster>-kubeconfig Secret.
func (e *Environment) AddUserKubeconfig(name string, groups ...string) ([]byte, error) {
	u, err := e.testEnv.AddUser(crenvtest.User{Name: name, Groups: groups}, nil)
	if err != nil {
		return nil, fmt.Errorf("adding user %s: %w", name, err)
	}
	data, err := u.KubeConfig()
	if err != nil {
		return nil, fmt.Errorf("writing the kubeconfig of user %s: %w", name, err)
	}
	return data, nil
}

// CreateNamespace creates a namespace named after prefix with a random suffix and
// deletes it when the test ends. Without kube-controller-manager the namespace only
// reaches Terminating, which is enough to keep tests apart.
func (e *Environment) CreateNamespace(t testing.TB, prefix string) string {
	t.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: prefix + "-"}}
	if err := e.Client.Create(context.Background(), ns); err != nil {
		t.Fatalf("creating namespace %s-*: %v", prefix, err)
	}
	t.Cleanup(func() {
		if err := e.Client.Delete(context.Background(), ns); client.IgnoreNotFound(err) != nil {
			t.Errorf("deleting namespace %s: %v", ns.Name, err)
		}
	})
	return ns.Name
}

// fail writes a harness error where `go test` shows it.
func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "capstan envtest: "+format+"\n", args...)
}
