//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/conditions"
	"capstan.dev/test/framework"
)

func TestE2E(t *testing.T) {
	s := newSuite(t)
	deleted := s.deleteAtEnd(t)

	ok := t.Run("Quickstart", func(t *testing.T) { s.t = t; s.timed("quickstart: apply to every node Ready", s.quickstart) }) &&
		t.Run("WorkloadTraffic", func(t *testing.T) { s.t = t; s.timed("service traffic across nodes", s.workloadTraffic) })
	if !ok {
		return // nothing else can work without the cluster
	}
	t.Run("EtcdSnapshot", func(t *testing.T) { s.t = t; s.timed("capstanctl etcd snapshot", s.etcdSnapshot) })
	t.Run("ScaleMachineDeployment", func(t *testing.T) { s.t = t; s.timed("MachineDeployment 1→3→1", s.scaleMachineDeployment) })
	t.Run("RollingUpgrade", func(t *testing.T) { s.t = t; s.timed("MachineDeployment rolling upgrade", s.rollingUpgrade) })
	t.Run("MachineHealthCheck", func(t *testing.T) { s.t = t; s.timed("MachineHealthCheck remediation", s.machineHealthCheck) })
	// The pool's spec spends minutes waiting for its join token to expire: the control plane's
	// rollout runs meanwhile (5 nodes at most: inotify allows about 6, see docs/status.md).
	t.Run("PoolAndControlPlane", func(t *testing.T) {
		t.Run("MachinePoolTokenRotation", func(t *testing.T) {
			t.Parallel()
			p := s.forSubtest(t)
			p.timed("MachinePool of 2 rolled out to a new template after its first join token expired", p.machinePoolTokenRotation)
		})
		t.Run("ControlPlaneConfiguration", func(t *testing.T) {
			t.Parallel()
			c := s.forSubtest(t)
			c.timed("KubeadmControlPlane apiServer and controllerManager extraArgs on its one Machine", c.controlPlaneConfiguration)
		})
	})
	t.Run("ControlPlaneScaleUp", func(t *testing.T) {
		s.t = t
		s.timed("KubeadmControlPlane 1→3 with new extraArgs", s.controlPlaneScaleUp)
	})
	t.Run("EtcdRestore", func(t *testing.T) {
		s.t = t
		s.timed("capstanctl etcd restore of three members", s.etcdRestore)
	})
	hosting := t.Run("SelfHosting", func(t *testing.T) {
		s.t = t
		s.timed("self-hosting: init in the workload cluster, move into it, scale there, move back", s.selfHosting)
	})
	// The workload cluster is now a management cluster running Capstan's managers.
	t.Run("ThirdPartyProvider", func(t *testing.T) {
		s.t = t
		if !hosting {
			t.Fatal("SelfHosting failed: the workload cluster runs no Capstan managers to host a third-party provider")
		}
		s.timed("third-party provider: init v0.1.0, cluster, upgrade to v0.2.0, move away and back, delete", s.thirdPartyProvider)
	})
	t.Run("ControlPlaneNodeStopped", func(t *testing.T) {
		s.t = t
		s.timed("API through the load balancer with one control plane node stopped", s.controlPlaneNodeStopped)
	})
	s.runDeleteCluster(t, deleted)
}

// deleteAtEnd makes sure the cluster is deleted when t ends, unless runDeleteCluster did it
// (it sets the flag returned), and logs the specs' timings.
func (s *suite) deleteAtEnd(t *testing.T) *bool {
	deleted := false
	t.Cleanup(func() {
		if !deleted {
			s.deleteCluster(10 * time.Minute)
		}
		t.Logf("e2e timings:\n  %s", s.timings)
	})
	return &deleted
}

// runDeleteCluster deletes the cluster as the last subtest of t, recording that it is gone.
func (s *suite) runDeleteCluster(t *testing.T, deleted *bool) {
	t.Run("DeleteCluster", func(t *testing.T) {
		s.t = t
		s.timed("cluster deletion", func() { s.deleteCluster(5 * time.Minute) })
		*deleted = true
	})
}

func (s *suite) quickstart() {
	s.applyAndWaitForNodes(s.clusterManifest(), 10*time.Minute)
	cfg, err := clientcmd.RESTConfigFromKubeConfig(s.kubeconfig)
	require.NoError(s.t, err)
	s.clientset, err = kubernetes.NewForConfig(cfg)
	require.NoError(s.t, err)
	nodes := &corev1.NodeList{}
	require.NoError(s.t, s.workload.List(s.ctx, nodes))
	require.Len(s.t, nodes.Items, 2, "one control plane node and one worker")
}

// applyAndWaitForNodes applies a cluster's objects (their ClusterResourceSet delivers the CNI)
// and waits until every node is Ready; it keeps the workload kubeconfig and a client of it.
func (s *suite) applyAndWaitForNodes(objs []*framework.Object, timeout time.Duration) {
	require.NoError(s.t, framework.Apply(s.ctx, s.mgmt, objs))
	s.waitForWorkload(timeout)
}

// waitForWorkload waits for the suite's Cluster's Nodes to be Ready and keeps its kubeconfig and a
// client of it.
func (s *suite) waitForWorkload(timeout time.Duration) {
	ctx, cancel := context.WithTimeout(s.ctx, timeout)
	defer cancel()
	kc, err := framework.WaitForNodesReady(ctx, framework.WaitInput{
		Mgmt: s.mgmt, Cluster: client.ObjectKey{Namespace: s.ns, Name: s.name},
		Progress: &framework.Progress{Out: testWriter{s.t}},
	})
	require.NoError(s.t, err)
	s.kubeconfig = kc
	s.workload, err = framework.WorkloadClient(kc, clientgoscheme.Scheme)
	require.NoError(s.t, err)
}

// testWriter sends progress lines to the test log.
type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

func (s *suite) mdKey() client.ObjectKey {
	return client.ObjectKey{Namespace: s.ns, Name: s.name + "-md-0"}
}

func (s *suite) kcpKey() client.ObjectKey {
	return client.ObjectKey{Namespace: s.ns, Name: s.name + "-control-plane"}
}

// waitForWorkers waits until the MachineDeployment has n Machines, each with a Ready Node,
// n worker containers exist and the workload cluster has n+cp Nodes, all Ready.
func (s *suite) waitForWorkers(n, cp int, timeout time.Duration) {
	s.waitFor(timeout, fmt.Sprintf("%d workers and %d control plane nodes", n, cp), func() (bool, string, error) {
		ms, err := s.machines(client.MatchingLabels{clusterv1.MachineDeploymentNameLabel: s.mdKey().Name})
		if err != nil {
			return false, "", err
		}
		withNode := 0
		for _, m := range ms {
			if m.Status.NodeRef.Name != "" && m.DeletionTimestamp.IsZero() {
				withNode++
			}
		}
		cs, err := s.containers(roleLabel + "=worker")
		if err != nil {
			return false, "", err
		}
		nodes, ready, notReady, err := s.workloadNodes()
		if err != nil {
			return false, "", err
		}
		seen := fmt.Sprintf("%d Machines (%d with a Node), %d worker containers, %d Nodes (%d Ready; not: %v)", len(ms), withNode, len(cs), nodes, ready, notReady)
		return len(ms) == n && withNode == n && len(cs) == n && nodes == n+cp && ready == n+cp, seen, nil
	})
}

func (s *suite) scaleMachineDeployment() {
	for _, n := range []int32{3, 1} {
		s.patchReplicas(&clusterv1.MachineDeployment{}, s.mdKey(), n)
		s.waitForWorkers(int(n), 1, 8*time.Minute)
	}
}

// patchReplicas sets spec.replicas with a merge patch (no conflict with the controllers'
// status writes).
func (s *suite) patchReplicas(obj client.Object, key client.ObjectKey, n int32) {
	s.t.Helper()
	s.patchReplicasOn(s.mgmt, obj, key, n)
}

// patchReplicasOn is patchReplicas on management cluster c.
func (s *suite) patchReplicasOn(c client.Client, obj client.Object, key client.ObjectKey, n int32) {
	s.t.Helper()
	obj.SetNamespace(key.Namespace)
	obj.SetName(key.Name)
	patch := client.RawPatch("application/merge-patch+json", fmt.Appendf(nil, `{"spec":{"replicas":%d}}`, n))
	require.NoError(s.t, c.Patch(s.ctx, obj, patch))
}

// rollingUpgrade points the MachineDeployment at a new DockerMachineTemplate while `capstanctl
// rollout pause` holds it (`rollout status` fails at once), resumes it and watches the
// replacement: at no observed point are fewer Machines available than desired − maxUnavailable
// (1 − 0 with the default rollout), it ends with the Machine replaced, and `rollout status`
// ends with it. Then `rollout restart` replaces the Machine once more.
func (s *suite) rollingUpgrade() {
	before, err := s.machines(client.MatchingLabels{clusterv1.MachineDeploymentNameLabel: s.mdKey().Name})
	require.NoError(s.t, err)
	require.Len(s.t, before, 1)

	// The new template is the old one with a label added to the machines it describes.
	gvk := schema.GroupVersionKind{Group: "infrastructure.cluster.x-k8s.io", Version: "v1beta2", Kind: "DockerMachineTemplate"}
	md := &clusterv1.MachineDeployment{}
	require.NoError(s.t, s.mgmt.Get(s.ctx, s.mdKey(), md))
	old := &unstructured.Unstructured{}
	old.SetGroupVersionKind(gvk)
	require.NoError(s.t, s.mgmt.Get(s.ctx, client.ObjectKey{Namespace: s.ns, Name: md.Spec.Template.Spec.InfrastructureRef.Name}, old))
	spec, _, err := unstructured.NestedMap(old.Object, "spec", "template")
	require.NoError(s.t, err)
	tmpl := &unstructured.Unstructured{}
	tmpl.SetGroupVersionKind(gvk)
	tmpl.SetNamespace(s.ns)
	tmpl.SetName(s.mdKey().Name + "-v2")
	require.NoError(s.t, unstructured.SetNestedMap(tmpl.Object, spec, "spec", "template"))
	require.NoError(s.t, unstructured.SetNestedField(tmpl.Object, "v2", "spec", "template", "metadata", "labels", "e2e.capstan.dev/template"))
	require.NoError(s.t, s.mgmt.Create(s.ctx, tmpl))

	// Paused with capstanctl, the edit is held: `rollout status` says so and fails at once.
	mdRef := "md/" + s.mdKey().Name
	s.capstanctl("rollout", "pause", mdRef, "-n", s.ns, "--kubeconfig", s.mgmtKubeconfig())
	patch := client.RawPatch("application/merge-patch+json",
		fmt.Appendf(nil, `{"spec":{"template":{"spec":{"infrastructureRef":{"name":%q}}}}}`, tmpl.GetName()))
	require.NoError(s.t, s.mgmt.Patch(s.ctx, &clusterv1.MachineDeployment{ObjectMeta: metav1.ObjectMeta{Namespace: s.ns, Name: s.mdKey().Name}}, patch))
	require.Error(s.t, s.runCapstanctl("rollout", "status", mdRef, "-n", s.ns, "--kubeconfig", s.mgmtKubeconfig(), "--timeout", "1m"),
		"rollout status of a paused MachineDeployment fails")
	s.capstanctl("rollout", "resume", mdRef, "-n", s.ns, "--kubeconfig", s.mgmtKubeconfig())
	// `rollout status` follows the rollout the loop below watches, and ends with it.
	status := make(chan error, 1)
	go func() {
		status <- s.runCapstanctl("rollout", "status", mdRef, "-n", s.ns, "--kubeconfig", s.mgmtKubeconfig(), "--timeout", "10m")
	}()

	minAvailable := 1
	s.waitFor(10*time.Minute, "the worker replaced by one of the new template", func() (bool, string, error) {
		ms, err := s.machines(client.MatchingLabels{clusterv1.MachineDeploymentNameLabel: s.mdKey().Name})
		if err != nil {
			return false, "", err
		}
		available, replaced := 0, 0
		names := []string{}
		for _, m := range ms {
			names = append(names, m.Name)
			if m.DeletionTimestamp.IsZero() && meta.IsStatusConditionTrue(m.Status.Conditions, clusterv1.AvailableCondition) {
				available++
			}
			if m.Spec.InfrastructureRef.Name != before[0].Spec.InfrastructureRef.Name && m.Status.NodeRef.Name != "" {
				replaced++
			}
		}
		if available < minAvailable {
			s.t.Fatalf("only %d Machines available during the rollout (Machines %v), fewer than desired − maxUnavailable = %d", available, names, minAvailable)
		}
		return len(ms) == 1 && replaced == 1 && available == 1, fmt.Sprintf("Machines %v, %d available, %d of the new template", names, available, replaced), nil
	})
	require.NoError(s.t, <-status, "capstanctl rollout status ends with the rollout")
	s.waitForWorkers(1, 1, 5*time.Minute)

	// `rollout restart` replaces the worker again; `rollout status` waits for it.
	upgraded, err := s.machines(client.MatchingLabels{clusterv1.MachineDeploymentNameLabel: s.mdKey().Name})
	require.NoError(s.t, err)
	require.Len(s.t, upgraded, 1)
	s.capstanctl("rollout", "restart", mdRef, "-n", s.ns, "--kubeconfig", s.mgmtKubeconfig())
	s.capstanctl("rollout", "status", mdRef, "-n", s.ns, "--kubeconfig", s.mgmtKubeconfig(), "--timeout", "10m")
	all, err := s.machines(client.MatchingLabels{clusterv1.MachineDeploymentNameLabel: s.mdKey().Name})
	require.NoError(s.t, err)
	var restarted []string // the replaced Machine may still be draining: it no longer counts
	for _, m := range all {
		if m.DeletionTimestamp.IsZero() {
			restarted = append(restarted, m.Name)
		}
	}
	require.Len(s.t, restarted, 1)
	require.NotEqual(s.t, upgraded[0].Name, restarted[0], "the restart replaced the worker")
	s.waitForWorkers(1, 1, 5*time.Minute)
}

// machineHealthCheck kills and removes a worker's container through the Engine API: its Node
// stops reporting, the MachineHealthCheck marks the Machine, the MachineSet replaces it and a new
// Node becomes Ready.
func (s *suite) machineHealthCheck() {
	mhc := &clusterv1.MachineHealthCheck{
		ObjectMeta: metav1.ObjectMeta{Namespace: s.ns, Name: s.name + "-workers"},
		Spec: clusterv1.MachineHealthCheckSpec{
			ClusterName: s.name,
			Selector:    metav1.LabelSelector{MatchLabels: map[string]string{clusterv1.MachineDeploymentNameLabel: s.mdKey().Name}},
			Checks: clusterv1.MachineHealthCheckChecks{
				NodeStartupTimeoutSeconds: ptr.To[int32](600),
				UnhealthyNodeConditions: []clusterv1.UnhealthyNodeCondition{
					{Type: corev1.NodeReady, Status: corev1.ConditionUnknown, TimeoutSeconds: ptr.To[int32](30)},
					{Type: corev1.NodeReady, Status: corev1.ConditionFalse, TimeoutSeconds: ptr.To[int32](30)},
				},
			},
		},
	}
	require.NoError(s.t, s.mgmt.Create(s.ctx, mhc))
	defer func() { _ = s.mgmt.Delete(s.ctx, mhc) }()

	ms, err := s.machines(client.MatchingLabels{clusterv1.MachineDeploymentNameLabel: s.mdKey().Name})
	require.NoError(s.t, err)
	require.Len(s.t, ms, 1)
	victim := ms[0]
	s.waitFor(2*time.Minute, "the MachineHealthCheck to see the worker healthy", func() (bool, string, error) {
		got := &clusterv1.MachineHealthCheck{}
		if err := s.mgmt.Get(s.ctx, client.ObjectKeyFromObject(mhc), got); err != nil {
			return false, "", err
		}
		h := ptr.Deref(got.Status.CurrentHealthy, 0)
		return h == 1, fmt.Sprintf("%d healthy", h), nil
	})
	// A killed container comes back (restart policy unless-stopped, as a rebooted machine
	// would): a machine that is gone for good is a container killed and removed.
	s.t.Logf("killing and removing the container of Machine %s", victim.Name)
	require.NoError(s.t, s.docker.ContainerRemove(s.ctx, victim.Name, container.RemoveOptions{Force: true}))

	s.waitFor(10*time.Minute, "the killed worker's Machine replaced by a new one with a Ready Node", func() (bool, string, error) {
		ms, err := s.machines(client.MatchingLabels{clusterv1.MachineDeploymentNameLabel: s.mdKey().Name})
		if err != nil {
			return false, "", err
		}
		names := []string{}
		victimLeft := false
		for _, m := range ms {
			names = append(names, m.Name)
			victimLeft = victimLeft || m.Name == victim.Name
		}
		return !victimLeft && len(ms) == 1, fmt.Sprintf("Machines %v", names), nil
	})
	s.waitForWorkers(1, 1, 8*time.Minute)
}

// controlPlaneScaleUp scales the KubeadmControlPlane to 3 and changes its apiServer and
// controllerManager extraArgs in the same write, after `capstanctl plan` said what that write
// does: the Machine of the old configuration is replaced while two more join, and every
// kube-apiserver and kube-controller-manager of the three Machines runs with the new flags;
// three etcd members.
func (s *suite) controlPlaneScaleUp() {
	want := componentFlags{
		"kube-apiserver":          {"event-ttl": "3h"},
		"kube-controller-manager": {"node-monitor-grace-period": "45s"},
	}
	// Planned first: the one Machine replaced, two added, one at a time, and etcd at three
	// members (quorum 2) at the end; then the plan is held against what the controller did.
	before := s.controlPlaneMachineNames()
	require.Len(s.t, before, 1)
	p := s.planControlPlanePatch(controlPlanePatch(want, ptr.To(3)))
	require.Equal(s.t, "replace", p.Outcome, p.Notes)
	require.Equal(s.t, before, p.Replaced)
	require.Equal(s.t, 2, p.Added)
	require.Len(s.t, p.Steps, 4, "three Machines created (the third a surge), then the old one deleted")
	last := p.Steps[len(p.Steps)-1]
	require.Equal(s.t, before, last.Delete)
	require.Equal(s.t, [2]int{3, 2}, [2]int{last.EtcdMembers, last.EtcdQuorum})

	s.patchControlPlane(want, ptr.To(3))
	s.capstanctl("rollout", "status", "kcp/"+s.kcpKey().Name, "-n", s.ns, "--kubeconfig", s.mgmtKubeconfig(), "--timeout", "15m")
	s.waitForControlPlaneFlags(3, want, 15*time.Minute)
	s.waitForThreeEtcdMembers()
	after := s.controlPlaneMachineNames()
	require.Len(s.t, after, 3)
	require.NotContains(s.t, after, before[0], "the Machine the plan replaced is gone")
}

// controlPlaneNodeStopped stops one of the three control plane containers: the load balancer's
// health checks drop it and every request through it succeeds. It runs last, before the
// deletion, and the container is not started again: the engine gives a restarted container the
// lowest free address of its network, after the rollouts' deletions another one than etcd and
// the kube-apiserver of that node are bound to (a run saw its kubelet stop posting for good).
func (s *suite) controlPlaneNodeStopped() {
	cps, err := s.machines(client.MatchingLabels{clusterv1.MachineControlPlaneLabel: ""})
	require.NoError(s.t, err)
	require.Len(s.t, cps, 3)
	stopped := cps[0].Name
	s.t.Logf("stopping the container of control plane Machine %s", stopped)
	require.NoError(s.t, s.docker.ContainerStop(s.ctx, stopped, container.StopOptions{Timeout: ptr.To(10)}))

	consecutive := 0
	s.waitFor(2*time.Minute, "five consecutive API requests through the load balancer with one control plane node stopped", func() (bool, string, error) {
		ctx, cancel := context.WithTimeout(s.ctx, 5*time.Second)
		defer cancel()
		_, err := s.clientset.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
		if err != nil {
			consecutive = 0
			return false, err.Error(), nil
		}
		consecutive++
		return consecutive >= 5, fmt.Sprintf("%d consecutive successes", consecutive), nil
	})
}

// waitForThreeEtcdMembers waits until the KubeadmControlPlane has three ready replicas, the
// workload cluster three Ready etcd Pods and EtcdClusterHealthy is True.
func (s *suite) waitForThreeEtcdMembers() {
	kcp := &unstructured.Unstructured{}
	kcp.SetGroupVersionKind(controlPlaneGVK)
	s.waitFor(15*time.Minute, "three control plane Machines with Ready Nodes and three etcd members", func() (bool, string, error) {
		if err := s.mgmt.Get(s.ctx, s.kcpKey(), kcp); err != nil {
			return false, "", err
		}
		ready, _, _ := unstructured.NestedInt64(kcp.Object, "status", "readyReplicas")
		etcdHealthy := ""
		if c, _ := conditions.UnstructuredGet(kcp, "EtcdClusterHealthy"); c != nil {
			etcdHealthy = fmt.Sprintf("%v %v", c.Status, c.Message)
		}
		pods := &corev1.PodList{}
		if err := s.workload.List(s.ctx, pods, client.InNamespace(metav1.NamespaceSystem), client.MatchingLabels{"component": "etcd"}); err != nil {
			return false, "", err
		}
		etcdReady := 0
		for _, p := range pods.Items {
			for _, c := range p.Status.Conditions {
				if c.Type == corev1.PodReady && c.Status == corev1.ConditionTrue {
					etcdReady++
				}
			}
		}
		seen := fmt.Sprintf("%d ready replicas, %d etcd Pods Ready, EtcdClusterHealthy %s", ready, etcdReady, etcdHealthy)
		return ready == 3 && etcdReady == 3 && strings.HasPrefix(etcdHealthy, "True"), seen, nil
	})

}
