//go:build e2e

package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	runtimev1 "capstan.dev/contracts/api/runtime/v1beta2"
	"capstan.dev/test/framework"
)

// TestTopologyCluster is upstream's Docker quick start as its users run it: the quick-start
// ClusterClass and the Cluster that `capstanctl generate cluster --flavor development` renders
// (examples/), applied as they are. The topology controller generates every object, the
// podSecurityStandard patch reaches the real kube-apiserver (a privileged Pod is refused), one
// change of a variable and of the topology's worker replicas rotates the worker's bootstrap
// template and replaces and scales the generated MachineDeployment's Machines on real nodes,
// and deleting the Cluster removes everything it generated. A test Runtime Extension (test/extension)
// holds the creation (BeforeClusterCreate: no object exists until it lets go), patches the
// templates (an external patch with a discovered variable: the workers run its command), is told once the
// control plane is up (AfterControlPlaneInitialized), and holds the deletion (BeforeClusterDelete:
// nothing is deleted and the workload cluster keeps running until it lets go).
func TestTopologyCluster(t *testing.T) {
	t.Parallel()
	s := newSuite(t)
	deleted := false
	t.Cleanup(func() {
		if !deleted {
			s.deleteCluster(10 * time.Minute)
		}
	})
	ext := s.startTestExtension()
	s.timed("BeforeClusterCreate holds the topology until released", func() {
		ext.hold("BeforeClusterCreate", "held by the e2e")
		w := s.watchKinds(dockerClusterGVK, controlPlaneGVK, dockerMachineGVK)
		objs := s.topologyManifest()
		ext.addExternalPatch(objs)
		require.NoError(t, framework.Apply(s.ctx, s.mgmt, objs))
		s.waitForTopologyHold(clusterv1.ClusterTopologyReconciledClusterCreatingReason, "BeforeClusterCreate", "held by the e2e")
		require.Empty(t, w.Drain(func(watch.Event, *unstructured.Unstructured) bool { return true }),
			"no object of the topology may exist while BeforeClusterCreate holds it")
		ext.allow("BeforeClusterCreate")
	})
	s.waitForWorkload(12 * time.Minute)
	s.requireTopologyReconciled()
	s.requireAfterControlPlaneInitializedCalledOnce(ext)
	s.requireExternalPatchRanOnWorkers(1)
	s.requireAPIServerVolumes("admission-pss")
	s.requirePrivilegedPodRefused()

	s.requireWorkerWave(1, "1")

	s.timed("topology variable change (template rotation) and worker scale 1 → 2", func() {
		before := s.workerBootstrapTemplate()
		old := s.workerMachineNames()
		// One write, as a user editing the Cluster would: the variable's new value changes the
		// worker's KubeadmConfigTemplate, and the replicas change scales the MachineDeployment.
		patch := client.RawPatch(types.JSONPatchType, []byte(`[
			{"op":"replace","path":"/spec/topology/workers/machineDeployments/0/replicas","value":2},
			{"op":"replace","path":"/spec/topology/variables/`+s.workerWaveIndex()+`/value","value":"2"}]`))
		require.NoError(t, s.mgmt.Patch(s.ctx, &clusterv1.Cluster{ObjectMeta: metav1.ObjectMeta{Namespace: s.ns, Name: s.name}}, patch))
		s.waitForReadyNodes(3, 8*time.Minute)
		s.requireWorkerWave(2, "2")
		s.requireExternalPatchRanOnWorkers(2) // the rotated template was patched too
		after := s.workerBootstrapTemplate()
		require.NotEqual(t, before, after, "the variable change rotates the worker's bootstrap template")
		for _, name := range s.workerMachineNames() {
			require.NotContains(t, old, name, "every worker Machine is replaced")
		}
		s.waitFor(2*time.Minute, "the rotated-out KubeadmConfigTemplate "+before+" to be deleted", func() (bool, string, error) {
			err := s.mgmt.Get(s.ctx, client.ObjectKey{Namespace: s.ns, Name: before}, kubeadmConfigTemplate())
			return apierrors.IsNotFound(err), fmt.Sprintf("get: %v", err), client.IgnoreNotFound(err)
		})
	})

	s.timed("BeforeClusterDelete holds the deletion until released", func() {
		ext.hold("BeforeClusterDelete", "held by the e2e")
		w := s.watchKinds(dockerClusterGVK, controlPlaneGVK, dockerMachineGVK)
		require.NoError(t, s.mgmt.Delete(s.ctx, &clusterv1.Cluster{ObjectMeta: metav1.ObjectMeta{Namespace: s.ns, Name: s.name}}))
		s.waitForTopologyHold(clusterv1.ClusterTopologyReconciledDeletingReason, "BeforeClusterDelete", "held by the e2e")
		s.waitForReadyNodes(3, time.Minute) // the workload cluster keeps running meanwhile
		require.Empty(t, w.Drain(func(ev watch.Event, u *unstructured.Unstructured) bool {
			return ev.Type == watch.Deleted || u.GetDeletionTimestamp() != nil
		}), "nothing of the Cluster may be deleted while BeforeClusterDelete holds it")
		ext.allow("BeforeClusterDelete")
	})
	s.deleteCluster(5 * time.Minute)
	deleted = true
}

var (
	dockerClusterGVK = schema.GroupVersionKind{Group: "infrastructure.cluster.x-k8s.io", Version: "v1beta2", Kind: "DockerCluster"}
	dockerMachineGVK = schema.GroupVersionKind{Group: "infrastructure.cluster.x-k8s.io", Version: "v1beta2", Kind: "DockerMachine"}
	controlPlaneGVK  = schema.GroupVersionKind{Group: "controlplane.cluster.x-k8s.io", Version: "v1beta2", Kind: "KubeadmControlPlane"}
)

// requireAfterControlPlaneInitializedCalledOnce checks the extension was told about this Cluster's
// control plane coming up and that the Cluster owes it nothing more.
func (s *suite) requireAfterControlPlaneInitializedCalledOnce(ext *testExtension) {
	s.waitFor(time.Minute, "AfterControlPlaneInitialized called and no longer pending", func() (bool, string, error) {
		req := ext.lastRequest("AfterControlPlaneInitialized")
		c := &clusterv1.Cluster{}
		if err := s.mgmt.Get(s.ctx, client.ObjectKey{Namespace: s.ns, Name: s.name}, c); err != nil {
			return false, "", err
		}
		pending := c.Annotations[runtimev1.PendingHooksAnnotation]
		called := strings.Contains(req, `"name":"`+s.name+`"`)
		return called && !strings.Contains(pending, "AfterControlPlaneInitialized"),
			fmt.Sprintf("called for the Cluster: %t, pending hooks %q", called, pending), nil
	})
}

// topologyManifest is examples/clusterclass-quick-start.yaml and examples/cluster-development.yaml
// in the suite's namespace, the Cluster (and its ClusterResourceSet) named after the suite.
func (s *suite) topologyManifest() []*framework.Object {
	var objs []*framework.Object
	for _, f := range []string{"clusterclass-quick-start.yaml", "cluster-development.yaml"} {
		data, err := os.ReadFile(filepath.Join(s.repo, "examples", f))
		require.NoError(s.t, err)
		parsed, err := framework.ParseManifest([]byte(strings.ReplaceAll(string(data), "development", s.name)))
		require.NoError(s.t, err)
		objs = append(objs, parsed...)
	}
	for _, o := range objs {
		if o.GetNamespace() != "" {
			o.SetNamespace(s.ns)
		}
	}
	addWorkerWaveVariable(s.t, objs)
	return objs
}

// requireTopologyReconciled checks the Cluster reports its topology reconciled and that the
// objects the control plane and workers run from carry the topology's owned label.
func (s *suite) requireTopologyReconciled() {
	s.waitFor(2*time.Minute, "TopologyReconciled True", func() (bool, string, error) {
		c := &clusterv1.Cluster{}
		if err := s.mgmt.Get(s.ctx, client.ObjectKey{Namespace: s.ns, Name: s.name}, c); err != nil {
			return false, "", err
		}
		cond := meta.FindStatusCondition(c.Status.Conditions, clusterv1.ClusterTopologyReconciledCondition)
		if cond == nil {
			return false, "no TopologyReconciled condition", nil
		}
		return cond.Status == metav1.ConditionTrue, cond.Reason + ": " + cond.Message, nil
	})
	mds := &clusterv1.MachineDeploymentList{}
	require.NoError(s.t, s.mgmt.List(s.ctx, mds, client.InNamespace(s.ns), client.MatchingLabels{
		clusterv1.ClusterNameLabel: s.name, clusterv1.ClusterTopologyOwnedLabel: "",
		clusterv1.ClusterTopologyMachineDeploymentNameLabel: "md-0",
	}))
	require.Len(s.t, mds.Items, 1, "one MachineDeployment generated for the topology's md-0")
	ms, err := s.machines(nil)
	require.NoError(s.t, err)
	require.Len(s.t, ms, 2, "one control plane Machine and one worker")
}

// requirePrivilegedPodRefused asks the workload cluster (dry run) to admit a privileged Pod in
// the default namespace: the class's podSecurityStandard patch (enforce: baseline) must refuse it.
func (s *suite) requirePrivilegedPodRefused() {
	privileged := true
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: metav1.NamespaceDefault, Name: "privileged"},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{
			Name: "c", Image: "capstan/none", SecurityContext: &corev1.SecurityContext{Privileged: &privileged},
		}}},
	}
	err := s.workload.Create(s.ctx, pod, client.DryRunAll)
	require.True(s.t, apierrors.IsForbidden(err), "a privileged Pod is refused by PodSecurity enforce=baseline, got %v", err)
	require.Contains(s.t, err.Error(), "PodSecurity")
}

// waitForReadyNodes waits until the workload cluster has n Nodes, all Ready, and the Cluster n
// Machines, each with its Node.
func (s *suite) waitForReadyNodes(n int, timeout time.Duration) {
	s.waitFor(timeout, fmt.Sprintf("%d Ready Nodes", n), func() (bool, string, error) {
		nodes, ready, notReady, err := s.workloadNodes()
		if err != nil {
			return false, "", err
		}
		ms, err := s.machines(nil)
		if err != nil {
			return false, "", err
		}
		withNode := 0
		for _, m := range ms {
			if m.Status.NodeRef.Name != "" {
				withNode++
			}
		}
		return ready == n && nodes == n && withNode == n && len(ms) == n,
			fmt.Sprintf("%d Nodes, %d Ready (not: %v); %d Machines, %d with a Node", nodes, ready, notReady, len(ms), withNode), nil
	})
}
