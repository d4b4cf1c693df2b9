// Package coretest starts what the core controllers' envtest suites share: a real
// kube-apiserver with the core CRDs and contracts' generic provider CRDs (so no
// real provider is needed), and a manager configured like the production one
// (Secrets and ConfigMaps uncached, unstructured cached). Tests flip the generic
// providers' status by patching it, as a real provider would.
package coretest

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	runtimev1 "capstan.dev/contracts/api/runtime/v1beta2"
	"capstan.dev/contracts/envtest"
	"capstan.dev/contracts/testing/crds"
	"capstan.dev/core/internal/machineindex"
)

// Run is TestMain's body for a core controller package.
func Run(m *testing.M, env **envtest.Environment) int {
	// The runtime types too: the core's suites run the test Runtime Extension, which they
	// register from its ExtensionConfig (StartTestExtension).
	scheme, err := envtest.DefaultSchemeWith(runtimev1.AddToScheme)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return envtest.Run(m, envtest.Options{CRDs: crds.All(), Scheme: scheme}, env)
}

// NewManager builds a manager like main.go does, without leader election and
// without listening on any port.
func NewManager(t *testing.T, env *envtest.Environment) ctrl.Manager {
	t.Helper()
	return NewManagerAs(t, env, env.Config)
}

// NewManagerAs is NewManager talking to the API server with cfg, such as a user
// holding only a controller's RBAC.
func NewManagerAs(t *testing.T, env *envtest.Environment, cfg *rest.Config) ctrl.Manager {
	t.Helper()
	return env.NewManager(t, "core-test", cfg)
}

// IndexMachines registers the cache index of Machines by controller (machineindex) on mgr, as
// the MachineSet and MachineDeployment controllers' SetupWithManager do: for tests that call
// those reconcilers directly. Not part of NewManager: the index makes the cache watch Machines,
// which a manager running as a user without that permission never syncs.
func IndexMachines(t *testing.T, mgr ctrl.Manager) {
	t.Helper()
	if err := machineindex.Add(context.Background(), mgr); err != nil {
		t.Fatal(err)
	}
}

// StartManager runs mgr until the test ends and waits for its caches.
func StartManager(t *testing.T, mgr ctrl.Manager) {
	t.Helper()
	envtest.StartManager(t, mgr)
}

// CreateKubeconfigSecret stores a kubeconfig for the envtest API server itself as
// the workload cluster's <cluster>-kubeconfig Secret.
func CreateKubeconfigSecret(t *testing.T, env *envtest.Environment, cluster *clusterv1.Cluster) {
	t.Helper()
	env.CreateKubeconfigSecret(t, cluster)
}

// SetStatus patches status fields of a generic provider object, as its provider
// would: fields maps a dotted path ("initialization.provisioned") to a value.
func SetStatus(t *testing.T, env *envtest.Environment, obj *unstructured.Unstructured, fields map[string]any) {
	t.Helper()
	ctx := context.Background()
	envtest.WaitFor(t, 30*time.Second, "status of "+obj.GetKind()+" "+obj.GetName()+" to be patched", func() (bool, error) {
		cur := obj.DeepCopy()
		if err := env.Client.Get(ctx, client.ObjectKeyFromObject(obj), cur); err != nil {
			return false, err
		}
		for path, v := range fields {
			if err := unstructured.SetNestedField(cur.Object, v, append([]string{"status"}, strings.Split(path, ".")...)...); err != nil {
				return false, err
			}
		}
		return true, env.Client.Status().Update(ctx, cur)
	})
}
