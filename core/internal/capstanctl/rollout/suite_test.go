package rollout_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/envtest"
	"capstan.dev/contracts/testing/crds"
	"capstan.dev/core/internal/capstanctl/cmd"
	"capstan.dev/core/internal/capstanctl/ctltest"
	"capstan.dev/core/internal/capstanctl/rollout"
)

var env *envtest.Environment

// The suite installs the kubeadm provider's CRDs from its config (read as files: the core does
// not import that module), so KubeadmControlPlanes are the real kind, and contracts' generic
// CRDs for the Clusters ctltest creates. No controller runs: the tests write status as the
// MachineDeployment and KubeadmControlPlane controllers would.
func TestMain(m *testing.M) {
	os.Exit(envtest.Run(m, envtest.Options{
		CRDs:              crds.All(),
		CRDDirectoryPaths: []string{filepath.Join("..", "..", "..", "..", "bootstrap-kubeadm", "config", "crd", "bases")},
	}, &env))
}

type result struct {
	stdout, stderr string
	code           int
}

// runOnCluster executes capstanctl in-process against the envtest API server.
func runOnCluster(t *testing.T, args ...string) result {
	t.Helper()
	path := ctltest.KubeconfigFile(t, env)
	stdout, stderr, code := ctltest.Run(t, cmd.Execute, append(args, "--kubeconfig", path)...)
	return result{stdout: stdout, stderr: stderr, code: code}
}

// machineDeployment creates a MachineDeployment of 3 replicas, with its Cluster, in a fresh namespace.
func machineDeployment(t *testing.T, name string) *clusterv1.MachineDeployment {
	t.Helper()
	ns := env.CreateNamespace(t, "rollout")
	md := ctltest.MachineDeployment(t, env, ctltest.Cluster(t, env, ns, "c1"), name)
	envtest.Update(t, env.Client, md, func() { md.Spec.Replicas = ptr.To[int32](3) })
	return md
}

// kubeadmControlPlane creates a KubeadmControlPlane of 3 replicas in a fresh namespace.
func kubeadmControlPlane(t *testing.T, name string) *unstructured.Unstructured {
	t.Helper()
	kcp := crds.New(rollout.KubeadmControlPlane.GVK, env.CreateNamespace(t, "rollout"), name)
	kcp.Object["spec"] = map[string]any{
		"replicas": int64(3),
		"version":  "v1.37.2",
		"machineTemplate": map[string]any{"spec": map[string]any{"infrastructureRef": map[string]any{
			"apiGroup": crds.GenericInfrastructureMachineTemplateGVK.Group,
			"kind":     crds.GenericInfrastructureMachineTemplateGVK.Kind, "name": name}}},
	}
	require.NoError(t, env.Client.Create(context.Background(), kcp))
	return kcp
}

// counts are the status counts a controller writes; observed is status.observedGeneration
// (0: the object's current generation).
type counts struct{ observed, replicas, upToDate, available, ready int64 }

func setMachineDeploymentStatus(t *testing.T, md *clusterv1.MachineDeployment, c counts) {
	t.Helper()
	envtest.UpdateStatus(t, env.Client, md, func() {
		md.Status.ObservedGeneration = c.observed
		if c.observed == 0 {
			md.Status.ObservedGeneration = md.Generation
		}
		md.Status.Replicas, md.Status.UpToDateReplicas = ptr.To(int32(c.replicas)), ptr.To(int32(c.upToDate))
		md.Status.AvailableReplicas, md.Status.ReadyReplicas = ptr.To(int32(c.available)), ptr.To(int32(c.ready))
	})
}

func setControlPlaneStatus(t *testing.T, kcp *unstructured.Unstructured, c counts, conds ...metav1.Condition) {
	t.Helper()
	envtest.UpdateStatus(t, env.Client, kcp, func() {
		observed := c.observed
		if observed == 0 {
			observed = kcp.GetGeneration()
		}
		status := map[string]any{"observedGeneration": observed, "replicas": c.replicas, "upToDateReplicas": c.upToDate,
			"availableReplicas": c.available, "readyReplicas": c.ready}
		if len(conds) > 0 {
			var list []any
			for _, cond := range conds {
				list = append(list, map[string]any{"type": cond.Type, "status": string(cond.Status), "reason": cond.Reason,
					"message": cond.Message, "lastTransitionTime": cond.LastTransitionTime.UTC().Format(time.RFC3339)})
			}
			status["conditions"] = list
		}
		kcp.Object["status"] = status
	})
}

// reread reads obj again and returns it.
func reread[T client.Object](t *testing.T, obj T) T {
	t.Helper()
	require.NoError(t, env.Client.Get(context.Background(), client.ObjectKeyFromObject(obj), obj))
	return obj
}
