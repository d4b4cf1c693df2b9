//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/image"
	"capstan.dev/test/framework"
)

// upgradeCoreDNSTag is the CoreDNS the upgraded cluster runs: kubeadm's for the version upgraded
// to (the node image of that version holds it), set through the quick-start class's
// coreDNSImageTag variable as upstream's upgrade tests set it.
const upgradeCoreDNSTag = "v1.14.6"

// TestTopologyMinorUpgrade (make e2e-upgrade; not in CI, whose cold run has no time for the
// previous minor's Kubernetes build): a topology cluster of the quick-start class created at the
// previous minor is upgraded to the current one by one edit of the Cluster (topology.version and
// the coreDNSImageTag variable). The control plane goes first: no worker Machine of the new
// version exists while a control plane Machine of the old one does (checked on every Machine
// event); the workload API answers throughout (probed every 2 s); at the end every Node runs the
// new kubelet, kube-proxy and CoreDNS run the new images and CoreDNS is available. The test
// Runtime Extension holds the upgrade twice: BeforeClusterUpgrade (no Machine of the new version
// on any Machine event, every Node still at the old kubelet) and BeforeWorkersUpgrade (the
// control plane Node upgraded, the worker's kubelet still the old one, no worker Machine of the
// new version on any event) until each lets go.
func TestTopologyMinorUpgrade(t *testing.T) {
	from, to := os.Getenv("CAPSTAN_E2E_PREVIOUS_VERSION"), os.Getenv("CAPSTAN_E2E_VERSION")
	require.True(t, from != "" && to != "", "run through make e2e-upgrade: CAPSTAN_E2E_PREVIOUS_VERSION and CAPSTAN_E2E_VERSION name the versions")
	s := newSuite(t)
	deleted := false
	t.Cleanup(func() {
		if !deleted {
			s.deleteCluster(10 * time.Minute)
		}
	})
	ext := s.startTestExtension()
	objs := s.topologyManifest()
	variableIndex := -1
	for _, o := range objs {
		if o.GetKind() != "Cluster" {
			continue
		}
		require.NoError(t, unstructured.SetNestedField(o.Object, from, "spec", "topology", "version"))
		vars, _, _ := unstructured.NestedSlice(o.Object, "spec", "topology", "variables")
		for i, v := range vars {
			if v.(map[string]any)["name"] == "coreDNSImageTag" {
				variableIndex = i
			}
		}
	}
	require.GreaterOrEqual(t, variableIndex, 0, "the development flavor sets coreDNSImageTag")
	s.applyAndWaitForNodes(objs, 12*time.Minute)
	s.waitForNodesAt(from, 2, 5*time.Minute)

	controlPlaneFirst := s.watchUpgradeOrder(from, to)
	var cpReleased, workersReleased atomic.Bool
	aheadOfHooks := s.watchHeldUpgrade(to, &cpReleased, &workersReleased)
	outages := s.probeWorkloadAPI(2 * time.Second)
	ext.hold("BeforeClusterUpgrade", "held by the e2e")
	ext.hold("BeforeWorkersUpgrade", "held by the e2e")
	s.timed(fmt.Sprintf("minor upgrade %s → %s (1 control plane, 1 worker), held by two hooks", from, to), func() {
		patch := client.RawPatch(types.JSONPatchType, []byte(fmt.Sprintf(`[
			{"op":"replace","path":"/spec/topology/version","value":%q},
			{"op":"replace","path":"/spec/topology/variables/%d/value","value":%q}]`, to, variableIndex, upgradeCoreDNSTag)))
		require.NoError(t, s.mgmt.Patch(s.ctx, &clusterv1.Cluster{ObjectMeta: metav1.ObjectMeta{Namespace: s.ns, Name: s.name}}, patch))
		s.waitForTopologyHold(clusterv1.ClusterTopologyReconciledClusterUpgradingReason, "BeforeClusterUpgrade", "held by the e2e")
		s.requireNodeVersions(map[bool]string{true: from, false: from}) // nothing moved while it held
		cpReleased.Store(true)
		ext.allow("BeforeClusterUpgrade")
		s.waitForControlPlaneNodeAt(to, 15*time.Minute)
		s.waitForTopologyHold(clusterv1.ClusterTopologyReconciledClusterUpgradingReason, "BeforeWorkersUpgrade", "held by the e2e")
		s.requireNodeVersions(map[bool]string{true: to, false: from}) // the worker still runs the old kubelet
		workersReleased.Store(true)
		ext.allow("BeforeWorkersUpgrade")
		s.waitForNodesAt(to, 2, 25*time.Minute)
	})
	s.waitForAddonsAt(to, 5*time.Minute)
	s.requireTopologyReconciled()
	require.Empty(t, controlPlaneFirst(), "worker Machines of %s existed while control plane Machines of %s did", to, from)
	require.Empty(t, aheadOfHooks(), "Machines of %s were created while a hook held them", to)
	require.Empty(t, outages(), "the workload API did not answer (two probes in a row)")

	s.deleteCluster(5 * time.Minute)
	deleted = true
}

// waitForNodesAt waits until the Cluster has n Machines, all of version, and the workload
// cluster n Ready Nodes, all running the kubelet of version.
func (s *suite) waitForNodesAt(version string, n int, timeout time.Duration) {
	s.waitFor(timeout, fmt.Sprintf("%d Ready Nodes at %s", n, version), func() (bool, string, error) {
		ms, err := s.machines(nil)
		if err != nil {
			return false, "", err
		}
		machinesAt := 0
		for _, m := range ms {
			if m.Spec.Version == version && m.DeletionTimestamp.IsZero() && m.Status.NodeRef.Name != "" {
				machinesAt++
			}
		}
		nodes := &corev1.NodeList{}
		if err := s.workload.List(s.ctx, nodes); err != nil {
			return false, fmt.Sprintf("listing Nodes: %v", err), nil // the API may be moving between control planes
		}
		var seen []string
		readyAt := 0
		for i := range nodes.Items {
			node := &nodes.Items[i]
			seen = append(seen, node.Name+"="+node.Status.NodeInfo.KubeletVersion)
			if node.Status.NodeInfo.KubeletVersion == version && framework.NodeIsReady(node) {
				readyAt++
			}
		}
		return len(ms) == n && machinesAt == n && len(nodes.Items) == n && readyAt == n,
			fmt.Sprintf("%d Machines, %d at %s with a Node; Nodes %s", len(ms), machinesAt, version, strings.Join(seen, " ")), nil
	})
}

// waitForControlPlaneNodeAt waits until the workload cluster's control plane Node is Ready with
// the kubelet of version (the worker's may be at any).
func (s *suite) waitForControlPlaneNodeAt(version string, timeout time.Duration) {
	s.waitFor(timeout, "the control plane Node Ready at "+version, func() (bool, string, error) {
		nodes := &corev1.NodeList{}
		if err := s.workload.List(s.ctx, nodes, client.HasLabels{"node-role.kubernetes.io/control-plane"}); err != nil {
			return false, fmt.Sprintf("listing Nodes: %v", err), nil // the API may be moving between control planes
		}
		var seen []string
		for i := range nodes.Items {
			n := &nodes.Items[i]
			seen = append(seen, n.Name+"="+n.Status.NodeInfo.KubeletVersion)
		}
		ok := len(nodes.Items) == 1 && nodes.Items[0].Status.NodeInfo.KubeletVersion == version && framework.NodeIsReady(&nodes.Items[0])
		return ok, strings.Join(seen, " "), nil
	})
}

// requireNodeVersions checks the kubelet version every Node runs now, by whether it is a control
// plane Node: what the user sees of an upgrade (or of its hold).
func (s *suite) requireNodeVersions(want map[bool]string) {
	s.t.Helper()
	nodes := &corev1.NodeList{}
	require.NoError(s.t, s.workload.List(s.ctx, nodes))
	require.NotEmpty(s.t, nodes.Items)
	for _, n := range nodes.Items {
		_, cp := n.Labels["node-role.kubernetes.io/control-plane"]
		require.Equal(s.t, want[cp], n.Status.NodeInfo.KubeletVersion, "Node %s (control plane: %v)", n.Name, cp)
	}
}

// waitForAddonsAt waits until kube-proxy runs the image of version on every Node and CoreDNS
// runs upgradeCoreDNSTag with every replica available.
func (s *suite) waitForAddonsAt(version string, timeout time.Duration) {
	s.waitFor(timeout, "kube-proxy at "+version+" and CoreDNS at "+upgradeCoreDNSTag+", available", func() (bool, string, error) {
		ds, dns := &appsv1.DaemonSet{}, &appsv1.Deployment{}
		if err := s.workload.Get(s.ctx, client.ObjectKey{Namespace: metav1.NamespaceSystem, Name: "kube-proxy"}, ds); err != nil {
			return false, "", err
		}
		if err := s.workload.Get(s.ctx, client.ObjectKey{Namespace: metav1.NamespaceSystem, Name: "coredns"}, dns); err != nil {
			return false, "", err
		}
		proxyTag := image.Parse(ds.Spec.Template.Spec.Containers[0].Image).Tag
		dnsTag := image.Parse(dns.Spec.Template.Spec.Containers[0].Image).Tag
		ok := proxyTag == version && ds.Status.UpdatedNumberScheduled == ds.Status.DesiredNumberScheduled &&
			ds.Status.NumberAvailable == ds.Status.DesiredNumberScheduled &&
			dnsTag == upgradeCoreDNSTag && dns.Status.UpdatedReplicas == dns.Status.Replicas &&
			dns.Status.AvailableReplicas == dns.Status.Replicas && dns.Status.Replicas > 0
		return ok, fmt.Sprintf("kube-proxy %s (%d/%d updated, %d available); coredns %s (%d/%d updated, %d available)",
			proxyTag, ds.Status.UpdatedNumberScheduled, ds.Status.DesiredNumberScheduled, ds.Status.NumberAvailable,
			dnsTag, dns.Status.UpdatedReplicas, dns.Status.Replicas, dns.Status.AvailableReplicas), nil
	})
}

// watchUpgradeOrder watches the Cluster's Machines until the test ends and returns what it saw
// break the upgrade order: a worker Machine of to while a control plane Machine of from exists.
func (s *suite) watchUpgradeOrder(from, to string) func() []string {
	return s.watchMachines(func(machines map[string]*clusterv1.Machine) string {
		return upgradeOrderViolation(machines, from, to)
	})
}

// watchHeldUpgrade watches the Cluster's Machines until the test ends and returns what it saw
// run ahead of the hooks: a control plane Machine of to before cpReleased, a worker Machine of to
// before workersReleased.
func (s *suite) watchHeldUpgrade(to string, cpReleased, workersReleased *atomic.Bool) func() []string {
	return s.watchMachines(func(machines map[string]*clusterv1.Machine) string {
		for _, m := range machines {
			_, cp := m.Labels[clusterv1.MachineControlPlaneLabel]
			switch {
			case m.Spec.Version != to:
			case cp && !cpReleased.Load():
				return "control plane Machine " + m.Name + " at " + to + " while BeforeClusterUpgrade held the upgrade"
			case !cp && !workersReleased.Load():
				return "worker Machine " + m.Name + " at " + to + " while BeforeWorkersUpgrade held the workers"
			}
		}
		return ""
	})
}

// watchMachines watches the Cluster's Machines until the test ends, calls check with all of them
// on every event and returns what check reported.
func (s *suite) watchMachines(check func(map[string]*clusterv1.Machine) string) func() []string {
	wc, err := client.NewWithWatch(s.mgmtConfig, client.Options{Scheme: s.mgmt.Scheme()})
	require.NoError(s.t, err)
	ctx, cancel := context.WithCancel(s.ctx)
	w, err := wc.Watch(ctx, &clusterv1.MachineList{}, client.InNamespace(s.ns), client.MatchingLabels{clusterv1.ClusterNameLabel: s.name})
	require.NoError(s.t, err)
	var mu sync.Mutex
	var violations []string
	done := make(chan struct{})
	go func() {
		defer close(done)
		machines := map[string]*clusterv1.Machine{}
		for ev := range w.ResultChan() {
			m, ok := ev.Object.(*clusterv1.Machine)
			if !ok {
				continue
			}
			if ev.Type == watch.Deleted {
				delete(machines, m.Name)
				continue
			}
			machines[m.Name] = m
			if v := check(machines); v != "" {
				mu.Lock()
				violations = append(violations, v)
				mu.Unlock()
			}
		}
	}()
	s.t.Cleanup(func() { cancel(); w.Stop(); <-done })
	return func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), violations...)
	}
}

func upgradeOrderViolation(machines map[string]*clusterv1.Machine, from, to string) string {
	var oldCP, newWorkers []string
	for _, m := range machines {
		_, cp := m.Labels[clusterv1.MachineControlPlaneLabel]
		switch {
		case cp && m.Spec.Version == from:
			oldCP = append(oldCP, m.Name)
		case !cp && m.Spec.Version == to:
			newWorkers = append(newWorkers, m.Name)
		}
	}
	if len(oldCP) == 0 || len(newWorkers) == 0 {
		return ""
	}
	return fmt.Sprintf("workers %v at %s beside control plane Machines %v at %s", newWorkers, to, oldCP, from)
}

// probeWorkloadAPI lists the workload cluster's Nodes every interval and returns a function that
// stops it and returns the times two probes in a row failed (one failure is a connection the
// load balancer cut while it moved to another control plane; two are an outage).
func (s *suite) probeWorkloadAPI(interval time.Duration) func() []string {
	ctx, cancel := context.WithCancel(s.ctx)
	var mu sync.Mutex
	var outages []string
	done := make(chan struct{})
	go func() {
		defer close(done)
		failedBefore := false
		tick := time.NewTicker(interval)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			pctx, pcancel := context.WithTimeout(ctx, 5*time.Second)
			err := s.workload.List(pctx, &corev1.NodeList{}, client.Limit(1))
			pcancel()
			if ctx.Err() != nil {
				return
			}
			if err != nil {
				s.t.Logf("workload API probe: %v", err)
				if failedBefore {
					mu.Lock()
					outages = append(outages, fmt.Sprintf("%s: %v", time.Now().Format(time.TimeOnly), err))
					mu.Unlock()
				}
			}
			failedBefore = err != nil
		}
	}()
	stop := func() { cancel(); <-done }
	s.t.Cleanup(stop)
	return func() []string {
		stop()
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), outages...)
	}
}
