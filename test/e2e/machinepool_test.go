//go:build e2e

package e2e

import (
	"fmt"

	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/docker/docker/api/types/container"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/test/framework"
)

// machinePoolTokenRotation needs the bootstrap manager started with --bootstrap-token-ttl=1m
// (make e2e does): a pool of 2 joins, its join token rotates, and once the first token has
// expired (and the workload cluster's token cleaner may have removed it) the DockerMachinePool's
// template gets an extra mount: both instances are replaced, one at a time, by instances that
// run with the mount and still join — with the rotated token in the re-rendered data Secret.
func (s *suite) machinePoolTokenRotation() {
	data, err := os.ReadFile(filepath.Join(s.repo, "test", "e2e", "testdata", "machinepool.yaml"))
	require.NoError(s.t, err)
	manifest := strings.NewReplacer("NAMESPACE", s.ns, "NAME", s.name).Replace(string(data))
	objs, err := framework.ParseManifest([]byte(manifest))
	require.NoError(s.t, err)
	require.NoError(s.t, framework.Apply(s.ctx, s.mgmt, objs))
	key := client.ObjectKey{Namespace: s.ns, Name: s.name + "-mp-0"}
	created := time.Now()

	s.waitForPoolNodes(key, 2, 8*time.Minute)
	first := s.poolToken(key)
	require.NotEmpty(s.t, first, "the KubeadmConfig carries the pool's join token")
	tokenSecret := &corev1.Secret{}
	require.NoError(s.t, s.workload.Get(s.ctx, client.ObjectKey{Namespace: metav1.NamespaceSystem, Name: "bootstrap-token-" + strings.SplitN(first, ".", 2)[0]}, tokenSecret))
	expiration, err := time.Parse(time.RFC3339, string(tokenSecret.Data["expiration"]))
	require.NoError(s.t, err, "the first token's expiration")

	// Wait (on what the providers do, with a deadline) until the token has rotated and the
	// first one has expired, and at least 3 minutes have passed since the pool was created.
	s.waitFor(6*time.Minute, "the pool's token to rotate and the first one to expire", func() (bool, string, error) {
		now := s.poolToken(key)
		done := now != first && time.Now().After(expiration) && time.Since(created) > 3*time.Minute
		return done, fmt.Sprintf("token %s… (first %s…), first expires %s", prefix(now), prefix(first), expiration.Format(time.TimeOnly)), nil
	})

	// The control plane's rollout runs beside this spec (TestE2E): the pool's surge instance waits
	// until it is done, so that no more than 5 nodes run at once (the host's inotify instances).
	s.waitFor(10*time.Minute, "the control plane to be one up-to-date Machine before the pool rolls out", func() (bool, string, error) {
		nodes, seen, err := s.upToDateControlPlaneNodes(1)
		return nodes != nil, seen, err
	})
	before, err := s.containers("io.capstan.docker-machine-pool=" + key.Name)
	require.NoError(s.t, err)
	s.rollOutPool(key, before)

	// Deleting the pool removes its instances and their Nodes, before the next spec.
	require.NoError(s.t, s.mgmt.Delete(s.ctx, &clusterv1.MachinePool{ObjectMeta: metav1.ObjectMeta{Namespace: s.ns, Name: key.Name}}))
	s.waitFor(5*time.Minute, "the pool's containers and Nodes to be gone", func() (bool, string, error) {
		cs, err := s.containers("io.capstan.docker-machine-pool=" + key.Name)
		if err != nil {
			return false, "", err
		}
		nodes := &corev1.NodeList{}
		if err := s.workload.List(s.ctx, nodes); err != nil {
			return false, "", err
		}
		pool := 0
		for _, n := range nodes.Items {
			if strings.HasPrefix(n.Name, key.Name+"-") {
				pool++
			}
		}
		return len(cs) == 0 && pool == 0, fmt.Sprintf("%d containers, %d Nodes of the pool", len(cs), pool), nil
	})
}

// poolMount is the extra mount the pool's template gets, which its new instances must run with.
const poolMount = "/mnt/e2e-rollout"

// rollOutPool adds an extra mount to the DockerMachinePool's template and waits until the pool's
// instances are new ones (none of before), each running with the mount, with Ready Nodes.
func (s *suite) rollOutPool(key client.ObjectKey, before []container.Summary) {
	old := map[string]bool{}
	for _, c := range before {
		old[c.ID] = true
	}
	patch := fmt.Appendf(nil, `{"spec":{"template":{"extraMounts":[{"containerPath":%q,"hostPath":%q,"readOnly":true}]}}}`,
		poolMount, filepath.Join(s.repo, "test", "e2e", "testdata"))
	pool := &unstructured.Unstructured{}
	pool.SetGroupVersionKind(schema.GroupVersionKind{Group: "infrastructure.cluster.x-k8s.io", Version: "v1beta2", Kind: "DockerMachinePool"})
	pool.SetNamespace(key.Namespace)
	pool.SetName(key.Name)
	require.NoError(s.t, s.mgmt.Patch(s.ctx, pool, client.RawPatch("application/merge-patch+json", patch)))
	s.waitFor(8*time.Minute, "both pool instances replaced by ones with the template's mount", func() (bool, string, error) {
		cs, err := s.containers("io.capstan.docker-machine-pool=" + key.Name)
		if err != nil {
			return false, "", err
		}
		fresh := 0
		for _, c := range cs {
			if old[c.ID] {
				continue
			}
			for _, m := range c.Mounts {
				if m.Destination == poolMount {
					fresh++
				}
			}
		}
		return len(cs) == 2 && fresh == 2, fmt.Sprintf("%d containers, %d new with the mount", len(cs), fresh), nil
	})
	s.waitForPoolNodes(key, 2, 5*time.Minute)
}

func prefix(token string) string { return strings.SplitN(token, ".", 2)[0] }

func (s *suite) poolToken(key client.ObjectKey) string {
	s.t.Helper()
	cfg := &unstructured.Unstructured{}
	cfg.SetGroupVersionKind(schema.GroupVersionKind{Group: "bootstrap.cluster.x-k8s.io", Version: "v1beta2", Kind: "KubeadmConfig"})
	require.NoError(s.t, s.mgmt.Get(s.ctx, key, cfg))
	token, _, _ := unstructured.NestedString(cfg.Object, "spec", "joinConfiguration", "discovery", "bootstrapToken", "token")
	return token
}

// waitForPoolNodes waits until the MachinePool reports n ready replicas and n Nodes whose
// providerIDs it lists are Ready in the workload cluster and open to workloads: without the
// node.cluster.x-k8s.io/uninitialized taint they registered with (the pool removes it).
func (s *suite) waitForPoolNodes(key client.ObjectKey, n int, timeout time.Duration) {
	s.waitFor(timeout, fmt.Sprintf("%d pool instances with Ready Nodes", n), func() (bool, string, error) {
		mp := &clusterv1.MachinePool{}
		if err := s.mgmt.Get(s.ctx, key, mp); err != nil {
			return false, "", err
		}
		ids := map[string]bool{}
		for _, id := range mp.Spec.ProviderIDList {
			ids[id] = true
		}
		nodes := &corev1.NodeList{}
		if err := s.workload.List(s.ctx, nodes); err != nil {
			return false, "", err
		}
		ready := 0
		for _, node := range nodes.Items {
			if ids[node.Spec.ProviderID] && framework.NodeIsReady(&node) && !uninitialized(&node) {
				ready++
			}
		}
		readyReplicas := int32(0)
		if mp.Status.ReadyReplicas != nil {
			readyReplicas = *mp.Status.ReadyReplicas
		}
		return len(ids) == n && ready == n && int(readyReplicas) == n,
			fmt.Sprintf("%d providerIDs, %d Ready untainted Nodes among them, readyReplicas %d, phase %s", len(ids), ready, readyReplicas, mp.Status.Phase), nil
	})
}

// uninitialized says whether node still has the taint the bootstrap provider registers workers
// with.
func uninitialized(node *corev1.Node) bool {
	for _, t := range node.Spec.Taints {
		if t.MatchTaint(&clusterv1.NodeUninitializedTaint) {
			return true
		}
	}
	return false
}
