//go:build e2e

package e2e

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/test/framework"
)

// TestUpstreamManifests applies a cluster written for upstream Cluster API (issue 15's drop-in
// promise): v1beta1 objects of every provider, the Dev kinds, a MachineDeployment without labels,
// kubeadm extraVolumes and files, the CNI by a ClusterResourceSet. Every node must become Ready
// with nothing applied by the test but the manifest; then the objects read back at v1beta1 as
// written, the MachineDeployment got upstream's defaults, the API server runs with the extra
// volumes, and deleting the Cluster leaves nothing.
func TestUpstreamManifests(t *testing.T) {
	t.Parallel() // beside TestTopologyCluster, after TestE2E: two small clusters share the machine
	s := newSuite(t)
	deleted := false
	t.Cleanup(func() {
		if !deleted {
			s.deleteCluster(10 * time.Minute)
		}
	})
	objs := s.upstreamManifest()
	s.applyAndWaitForNodes(objs, 12*time.Minute)

	nodes := &corev1.NodeList{}
	require.NoError(t, s.workload.List(s.ctx, nodes))
	require.Len(t, nodes.Items, 2, "one control plane node and one worker")

	md := &clusterv1.MachineDeployment{}
	require.NoError(t, s.mgmt.Get(s.ctx, s.mdKey(), md))
	require.Equal(t, s.name, md.Spec.Selector.MatchLabels[clusterv1.ClusterNameLabel], "selector defaulted with the cluster name")
	require.Equal(t, s.name, md.Spec.Template.Labels[clusterv1.ClusterNameLabel], "template labels defaulted")

	s.requireAPIServerVolumes("audit-policy", "audit-log")
	s.requireIgnitionWorker()
	s.requireReadsBackAsWritten(objs)

	s.deleteCluster(5 * time.Minute)
	deleted = true
}

// upstreamManifest is testdata/upstream-v1beta1.yaml for the suite's cluster, plus the CNI
// ConfigMap its ClusterResourceSet names.
func (s *suite) upstreamManifest() []*framework.Object {
	data, err := os.ReadFile(filepath.Join(s.repo, "test", "e2e", "testdata", "upstream-v1beta1.yaml"))
	require.NoError(s.t, err)
	manifest := strings.NewReplacer("NAMESPACE", s.ns, "NAME", s.name).Replace(string(data))
	objs, err := framework.ParseManifest([]byte(manifest))
	require.NoError(s.t, err)
	cni, err := os.ReadFile(filepath.Join(s.repo, "infrastructure-docker", "images", "flannel", "kube-flannel.yaml"))
	require.NoError(s.t, err)
	cm := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": "cni-" + s.name + "-crs-0", "namespace": s.ns},
		"data":     map[string]any{"cni.yaml": string(cni)},
	}}
	return append(objs, cm)
}

// requireAPIServerVolumes checks the control plane node's kube-apiserver static Pod mounts the
// kubeadm extraVolumes of the manifest.
func (s *suite) requireAPIServerVolumes(names ...string) {
	pods := &corev1.PodList{}
	require.NoError(s.t, s.workload.List(s.ctx, pods, client.InNamespace(metav1.NamespaceSystem), client.MatchingLabels{"component": "kube-apiserver"}))
	require.Len(s.t, pods.Items, 1)
	have := map[string]bool{}
	for _, v := range pods.Items[0].Spec.Volumes {
		have[v.Name] = v.HostPath != nil
	}
	for _, n := range names {
		require.True(s.t, have[n], "kube-apiserver has the hostPath volume %s (volumes: %v)", n, have)
	}
}

// requireIgnitionWorker checks the worker ran Capstan's Ignition data: its bootstrap data Secret
// is format ignition, the file of the template's additionalConfig is on the node, and the kubelet
// runs with the joinConfiguration's kubeletExtraArgs (kubeadm ran from /etc/kubeadm.sh).
func (s *suite) requireIgnitionWorker() {
	ms, err := s.machines(client.MatchingLabels{clusterv1.MachineDeploymentNameLabel: s.mdKey().Name})
	require.NoError(s.t, err)
	require.Len(s.t, ms, 1)
	sec := &corev1.Secret{}
	require.NoError(s.t, s.mgmt.Get(s.ctx, client.ObjectKey{Namespace: s.ns, Name: *ms[0].Spec.Bootstrap.DataSecretName}, sec))
	require.Equal(s.t, "ignition", string(sec.Data["format"]), "the worker's bootstrap data format")
	out, code, err := framework.Exec(s.ctx, s.docker, ms[0].Name, "cat", "/etc/capstan-e2e/from-additional-config")
	require.NoError(s.t, err)
	require.Zero(s.t, code, out)
	require.Equal(s.t, "written by Ignition from containerLinuxConfig.additionalConfig", strings.TrimSpace(out))
	out, code, err = framework.Exec(s.ctx, s.docker, ms[0].Name, "cat", "/var/lib/kubelet/kubeadm-flags.env")
	require.NoError(s.t, err)
	require.Zero(s.t, code, out)
	require.Contains(s.t, out, "--eviction-hard=nodefs.available<0%", "the kubelet runs with the joinConfiguration's kubeletExtraArgs")
}

// requireReadsBackAsWritten reads every Cluster API object of the manifest at the version it
// was written in (v1beta1, converted from the stored v1beta2 by its provider's webhook) and
// requires each field the manifest set to read back the same.
func (s *suite) requireReadsBackAsWritten(objs []*framework.Object) {
	for _, want := range objs {
		if !strings.Contains(want.GetAPIVersion(), "cluster.x-k8s.io/") {
			continue
		}
		got := &unstructured.Unstructured{}
		got.SetGroupVersionKind(want.GroupVersionKind())
		require.NoError(s.t, s.mgmt.Get(s.ctx, client.ObjectKeyFromObject(want), got))
		wantSpec, _, _ := unstructured.NestedMap(want.Object, "spec")
		gotSpec, _, _ := unstructured.NestedMap(got.Object, "spec")
		what := schema.FromAPIVersionAndKind(want.GetAPIVersion(), want.GetKind()).String() + " " + want.GetName()
		requireSubset(s.t, what+" spec", wantSpec, gotSpec)
	}
}

// requireSubset fails unless every value set in want is in got (got may hold more: defaults).
func requireSubset(t *testing.T, path string, want, got any) {
	t.Helper()
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if len(w) == 0 {
			return // {} or null: any defaulted value is fine
		}
		require.True(t, ok, "%s: want an object, read back %v", path, got)
		for k, v := range w {
			requireSubset(t, path+"."+k, v, g[k])
		}
	case []any:
		g, ok := got.([]any)
		if len(w) == 0 {
			return
		}
		require.True(t, ok, "%s: want a list, read back %v", path, got)
		require.Len(t, g, len(w), path)
		for i := range w {
			requireSubset(t, path+"["+strconv.Itoa(i)+"]", w[i], g[i])
		}
	default:
		// The manifest's YAML numbers parse as float64, the API server's JSON ones as int64.
		if w, ok := number(want); ok {
			g, ok := number(got)
			require.True(t, ok && g == w, "%s: want %v, read back %v", path, want, got)
			return
		}
		require.Equal(t, want, got, path)
	}
}

// number is v as a float64 when it is a number as the YAML or JSON decoder gives it.
func number(v any) (float64, bool) {
	switch n := v.(type) {
	case int64:
		return float64(n), true
	case float64:
		return n, true
	}
	return 0, false
}
