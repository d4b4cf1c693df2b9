//go:build e2e

package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/test/framework"
)

// clusterShape is what a converged chaos cluster has.
type clusterShape struct {
	controlPlane, workers int
}

// negativeConditions are the condition types that are True while something is wrong or in
// progress; every other condition of a converged object is True.
var negativeConditions = map[string]bool{
	clusterv1.PausedCondition: true, clusterv1.DeletingCondition: true, "RollingOut": true,
	"ScalingUp": true, "ScalingDown": true, "Remediating": true,
}

// remediationConditions appear only on a Machine a MachineHealthCheck found unhealthy.
var remediationConditions = map[string]bool{"OwnerRemediated": true, "ExternallyRemediated": true}

// divergence lists how the cluster differs from a converged one of that shape: exactly the
// desired Machines, each with a Ready Node; one node container per Machine and a load
// balancer, nothing more; one volume per node container; three (or the control plane's
// count of) etcd members reported healthy; every object's conditions True; and exactly the
// Secrets the cluster needs. An empty list means converged.
func (s *suite) divergence(want clusterShape) []string {
	var out []string
	add := func(format string, args ...any) { out = append(out, fmt.Sprintf(format, args...)) }

	ms, err := s.machines(nil)
	if err != nil {
		return []string{"listing Machines: " + err.Error()}
	}
	cp, workers := 0, 0
	machineNames := map[string]bool{}
	nodeNames := map[string]bool{}
	for _, m := range ms {
		machineNames[m.Name] = true
		if _, ok := m.Labels[clusterv1.MachineControlPlaneLabel]; ok {
			cp++
		} else {
			workers++
		}
		if !m.DeletionTimestamp.IsZero() {
			add("Machine %s is deleting", m.Name)
		}
		if m.Status.NodeRef.Name == "" {
			add("Machine %s has no Node", m.Name)
		}
		nodeNames[m.Status.NodeRef.Name] = true
		out = append(out, conditionProblems("Machine "+m.Name, m.Status.Conditions)...)
	}
	if cp != want.controlPlane || workers != want.workers {
		add("%d control plane and %d worker Machines, want %d and %d", cp, workers, want.controlPlane, want.workers)
	}
	out = append(out, s.nodeProblems(nodeNames)...)
	out = append(out, s.dockerProblems(machineNames)...)
	out = append(out, s.objectConditionProblems()...)
	out = append(out, s.etcdProblems(want.controlPlane)...)
	out = append(out, s.secretProblems()...)
	return out
}

func conditionProblems(what string, conds []metav1.Condition) []string {
	var out []string
	for _, c := range conds {
		switch {
		case remediationConditions[c.Type]:
			out = append(out, fmt.Sprintf("%s: %s %s (%s)", what, c.Type, c.Status, c.Message))
		case negativeConditions[c.Type] && c.Status == metav1.ConditionTrue:
			out = append(out, fmt.Sprintf("%s: %s True (%s)", what, c.Type, c.Message))
		case !negativeConditions[c.Type] && c.Status != metav1.ConditionTrue:
			out = append(out, fmt.Sprintf("%s: %s %s %s (%s)", what, c.Type, c.Status, c.Reason, c.Message))
		}
	}
	return out
}

func (s *suite) nodeProblems(want map[string]bool) []string {
	nodes := &corev1.NodeList{}
	if err := s.workload.List(s.ctx, nodes); err != nil {
		return []string{"listing Nodes: " + err.Error()}
	}
	var out []string
	seen := map[string]bool{}
	for i := range nodes.Items {
		n := &nodes.Items[i]
		seen[n.Name] = true
		if !want[n.Name] {
			out = append(out, "Node "+n.Name+" belongs to no Machine")
		}
		if !framework.NodeIsReady(n) {
			out = append(out, "Node "+n.Name+" is not Ready")
		}
	}
	for name := range want {
		if name != "" && !seen[name] {
			out = append(out, "Node "+name+" of a Machine is missing")
		}
	}
	return out
}

// dockerProblems: one running node container per Machine (named after it), one load
// balancer, and one volume per node container.
func (s *suite) dockerProblems(machines map[string]bool) []string {
	var out []string
	cs, err := s.containers()
	if err != nil {
		return []string{"listing containers: " + err.Error()}
	}
	lbs, nodes := 0, map[string]bool{}
	for _, c := range cs {
		name := strings.TrimPrefix(c.Names[0], "/")
		if c.State != "running" {
			out = append(out, fmt.Sprintf("container %s is %s", name, c.State))
		}
		if c.Labels[roleLabel] == "load-balancer" {
			lbs++
			continue
		}
		nodes[name] = true
		if !machines[name] {
			out = append(out, "container "+name+" belongs to no Machine")
		}
	}
	if lbs != 1 {
		out = append(out, fmt.Sprintf("%d load balancer containers, want 1", lbs))
	}
	for m := range machines {
		if !nodes[m] {
			out = append(out, "Machine "+m+" has no container")
		}
	}
	vs, err := s.volumes()
	if err != nil {
		return append(out, "listing volumes: "+err.Error())
	}
	if len(vs) != len(nodes) {
		names := []string{}
		for _, v := range vs {
			names = append(names, v.Name)
		}
		sort.Strings(names)
		out = append(out, fmt.Sprintf("%d volumes %v for %d node containers", len(vs), names, len(nodes)))
	}
	return out
}

// chaosKinds are the provider objects whose conditions must all be settled.
var chaosKinds = []schema.GroupVersionKind{
	{Group: "cluster.x-k8s.io", Version: "v1beta2", Kind: "Cluster"},
	{Group: "cluster.x-k8s.io", Version: "v1beta2", Kind: "MachineDeployment"},
	{Group: "cluster.x-k8s.io", Version: "v1beta2", Kind: "MachineSet"},
	{Group: "controlplane.cluster.x-k8s.io", Version: "v1beta2", Kind: "KubeadmControlPlane"},
	{Group: "bootstrap.cluster.x-k8s.io", Version: "v1beta2", Kind: "KubeadmConfig"},
	{Group: "infrastructure.cluster.x-k8s.io", Version: "v1beta2", Kind: "DockerCluster"},
	{Group: "infrastructure.cluster.x-k8s.io", Version: "v1beta2", Kind: "DockerMachine"},
}

func (s *suite) objectConditionProblems() []string {
	var out []string
	for _, gvk := range chaosKinds {
		list := &unstructured.UnstructuredList{}
		list.SetGroupVersionKind(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
		if err := s.mgmt.List(s.ctx, list, client.InNamespace(s.ns)); err != nil {
			out = append(out, fmt.Sprintf("listing %s: %v", gvk.Kind, err))
			continue
		}
		for _, o := range list.Items {
			if gvk.Kind == "MachineSet" && replicasOf(&o) == 0 {
				continue // an old MachineSet scaled to zero by a rollout reports nothing to settle
			}
			out = append(out, conditionProblems(gvk.Kind+" "+o.GetName(), unstructuredConditions(&o))...)
		}
	}
	return out
}

func replicasOf(o *unstructured.Unstructured) int64 {
	n, _, _ := unstructured.NestedInt64(o.Object, "spec", "replicas")
	return n
}

func unstructuredConditions(o *unstructured.Unstructured) []metav1.Condition {
	raw, _, _ := unstructured.NestedSlice(o.Object, "status", "conditions")
	out := make([]metav1.Condition, 0, len(raw))
	for _, r := range raw {
		m, _ := r.(map[string]any)
		c := metav1.Condition{}
		c.Type, _ = m["type"].(string)
		status, _ := m["status"].(string)
		c.Status = metav1.ConditionStatus(status)
		c.Reason, _ = m["reason"].(string)
		c.Message, _ = m["message"].(string)
		out = append(out, c)
	}
	return out
}

// etcdProblems: every etcd Pod Ready, as many as control plane Machines, and the
// KubeadmControlPlane reporting EtcdClusterHealthy (each Machine's EtcdMemberHealthy is
// checked with the Machines' conditions).
func (s *suite) etcdProblems(members int) []string {
	pods := &corev1.PodList{}
	if err := s.workload.List(s.ctx, pods, client.InNamespace(metav1.NamespaceSystem), client.MatchingLabels{"component": "etcd"}); err != nil {
		return []string{"listing etcd Pods: " + err.Error()}
	}
	ready := 0
	for _, p := range pods.Items {
		for _, c := range p.Status.Conditions {
			if c.Type == corev1.PodReady && c.Status == corev1.ConditionTrue {
				ready++
			}
		}
	}
	if len(pods.Items) != members || ready != members {
		return []string{fmt.Sprintf("%d etcd Pods, %d Ready, want %d", len(pods.Items), ready, members)}
	}
	return nil
}

// secretProblems: the cluster's certificate and kubeconfig Secrets plus one bootstrap data
// Secret per existing KubeadmConfig; nothing else (a leaked data Secret of a deleted Machine,
// a duplicate certificate) and nothing missing.
func (s *suite) secretProblems() []string {
	want := map[string]bool{}
	for _, suffix := range []string{"ca", "etcd", "proxy", "sa", "kubeconfig"} {
		want[s.name+"-"+suffix] = true
	}
	configs := &unstructured.UnstructuredList{}
	configs.SetGroupVersionKind(schema.GroupVersionKind{Group: "bootstrap.cluster.x-k8s.io", Version: "v1beta2", Kind: "KubeadmConfigList"})
	if err := s.mgmt.List(s.ctx, configs, client.InNamespace(s.ns)); err != nil {
		return []string{"listing KubeadmConfigs: " + err.Error()}
	}
	for _, c := range configs.Items {
		name, _, _ := unstructured.NestedString(c.Object, "status", "dataSecretName")
		if name == "" {
			name = c.GetName()
		}
		want[name] = true
	}
	secrets := &corev1.SecretList{}
	if err := s.mgmt.List(s.ctx, secrets, client.InNamespace(s.ns)); err != nil {
		return []string{"listing Secrets: " + err.Error()}
	}
	var out []string
	for _, sec := range secrets.Items {
		if !want[sec.Name] {
			out = append(out, "unexpected Secret "+sec.Name)
		}
		delete(want, sec.Name)
	}
	for name := range want {
		out = append(out, "missing Secret "+name)
	}
	sort.Strings(out)
	return out
}

// managerLogSizes records how long each manager log is, so a later scan reads only what
// was written since (the logs are appended to across runs).
func managerLogSizes(repo string) map[string]int64 {
	out := map[string]int64{}
	for _, name := range managerNames {
		if fi, err := os.Stat(filepath.Join(repo, ".capstan", "logs", name+".log")); err == nil {
			out[name] = fi.Size()
		}
	}
	return out
}

// panicsInManagerLogs returns the lines the local managers logged since the recorded sizes
// that report a panic (a crash, or one controller-runtime recovered).
func panicsInManagerLogs(repo string, since map[string]int64) []string {
	var out []string
	for _, name := range managerNames {
		data, err := os.ReadFile(filepath.Join(repo, ".capstan", "logs", name+".log"))
		if err != nil {
			out = append(out, fmt.Sprintf("reading the log of %s: %v", name, err))
			continue
		}
		if off := since[name]; off <= int64(len(data)) {
			data = data[off:]
		}
		for _, line := range strings.Split(string(data), "\n") {
			if strings.Contains(line, "panic:") || strings.Contains(line, "Observed a panic") {
				out = append(out, name+": "+line)
			}
		}
	}
	return out
}
