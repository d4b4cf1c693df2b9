//go:build e2e

package e2e

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
)

// componentFlags are command-line flags wanted on a control plane component's static Pod, by
// component (the Pods' "component" label: kube-apiserver, kube-controller-manager).
type componentFlags map[string]map[string]string

// controlPlaneConfiguration changes the apiServer and controllerManager extraArgs of the
// KubeadmControlPlane's one Machine and waits until the Machine was replaced and every running
// kube-apiserver and kube-controller-manager carries the flags: kubeadm join builds the new
// node's static Pods from the workload cluster's kubeadm-config, so this proves the
// KubeadmControlPlane wrote it before the join.
func (s *suite) controlPlaneConfiguration() {
	want := componentFlags{
		"kube-apiserver":          {"event-ttl": "2h"},
		"kube-controller-manager": {"node-monitor-grace-period": "50s"},
	}
	s.patchControlPlane(want, nil)
	s.waitForControlPlaneFlags(1, want, 10*time.Minute)
}

// patchControlPlane sets the extraArgs of the KubeadmControlPlane's apiServer and
// controllerManager to flags (the other clusterConfiguration fields are kept), and replicas
// when not nil, in one write.
func (s *suite) patchControlPlane(flags componentFlags, replicas *int) {
	s.mergePatchControlPlane(controlPlanePatch(flags, replicas))
}

// controlPlanePatch is patchControlPlane's JSON merge patch.
func controlPlanePatch(flags componentFlags, replicas *int) map[string]any {
	args := func(component string) []any {
		var out []any
		for _, k := range slices.Sorted(maps.Keys(flags[component])) {
			out = append(out, map[string]any{"name": k, "value": flags[component][k]})
		}
		return out
	}
	spec := map[string]any{"kubeadmConfigSpec": map[string]any{"clusterConfiguration": map[string]any{
		"apiServer":         map[string]any{"extraArgs": args("kube-apiserver")},
		"controllerManager": map[string]any{"extraArgs": args("kube-controller-manager")},
	}}}
	if replicas != nil {
		spec["replicas"] = int64(*replicas)
	}
	return map[string]any{"spec": spec}
}

// mergePatchControlPlane applies patch to the suite's KubeadmControlPlane as a JSON merge patch.
func (s *suite) mergePatchControlPlane(patch map[string]any) {
	body, err := json.Marshal(patch)
	require.NoError(s.t, err)
	kcp := &unstructured.Unstructured{}
	kcp.SetGroupVersionKind(controlPlaneGVK)
	kcp.SetNamespace(s.ns)
	kcp.SetName(s.kcpKey().Name)
	s.eventually(time.Minute, "patching the KubeadmControlPlane", func() error {
		return s.mgmt.Patch(s.ctx, kcp, client.RawPatch("application/merge-patch+json", body))
	})
}

// waitForControlPlaneFlags waits until the control plane is n Machines, none outdated or being
// deleted, each with a Node, and the kube-apiserver and kube-controller-manager Pods of exactly
// those Nodes are Ready with every flag of want on their command line.
func (s *suite) waitForControlPlaneFlags(n int, want componentFlags, timeout time.Duration) {
	s.waitFor(timeout, fmt.Sprintf("%d control plane Machines whose components run with %v", n, want), func() (bool, string, error) {
		nodes, seen, err := s.upToDateControlPlaneNodes(n)
		if err != nil || nodes == nil {
			return false, seen, err
		}
		var problems []string
		for _, component := range slices.Sorted(maps.Keys(want)) {
			problems = append(problems, s.componentProblems(component, nodes, want[component])...)
		}
		return len(problems) == 0, strings.Join(problems, "; "), nil
	})
}

// upToDateControlPlaneNodes returns the Node names of the control plane Machines once there are
// n, all up to date (status.upToDateReplicas), none deleting, each with a Node; nil and what it
// saw otherwise.
func (s *suite) upToDateControlPlaneNodes(n int) (map[string]bool, string, error) {
	kcp := &unstructured.Unstructured{}
	kcp.SetGroupVersionKind(schema.GroupVersionKind{Group: "controlplane.cluster.x-k8s.io", Version: "v1beta2", Kind: "KubeadmControlPlane"})
	if err := s.mgmt.Get(s.ctx, s.kcpKey(), kcp); err != nil {
		return nil, "", err
	}
	upToDate, _, _ := unstructured.NestedInt64(kcp.Object, "status", "upToDateReplicas")
	ms, err := s.machines(client.MatchingLabels{clusterv1.MachineControlPlaneLabel: ""})
	if err != nil {
		return nil, "", err
	}
	nodes := map[string]bool{}
	var names []string
	for _, m := range ms {
		names = append(names, m.Name)
		if m.DeletionTimestamp.IsZero() && m.Status.NodeRef.Name != "" {
			nodes[m.Status.NodeRef.Name] = true
		}
	}
	seen := fmt.Sprintf("Machines %v, %d with a Node, upToDateReplicas %d", names, len(nodes), upToDate)
	if len(ms) != n || len(nodes) != n || upToDate != int64(n) {
		return nil, seen, nil
	}
	return nodes, seen, nil
}

// componentProblems lists what keeps the component's static Pods on the Nodes of nodes from being
// exactly one Ready Pod per Node, each running with flags.
func (s *suite) componentProblems(component string, nodes map[string]bool, flags map[string]string) []string {
	pods := &corev1.PodList{}
	if err := s.workload.List(s.ctx, pods, client.InNamespace(metav1.NamespaceSystem), client.MatchingLabels{"component": component}); err != nil {
		return []string{err.Error()}
	}
	var problems []string
	on := map[string]bool{}
	for _, p := range pods.Items {
		if !nodes[p.Spec.NodeName] {
			continue // the mirror Pod of a Machine that is gone, until the Pod garbage collector takes it
		}
		on[p.Spec.NodeName] = true
		if !podReady(&p) {
			problems = append(problems, p.Name+" not Ready")
		}
		if missing := missingFlags(p.Spec.Containers, flags); len(missing) > 0 {
			problems = append(problems, fmt.Sprintf("%s runs without %v", p.Name, missing))
		}
	}
	for node := range nodes {
		if !on[node] {
			problems = append(problems, fmt.Sprintf("no %s Pod on Node %s", component, node))
		}
	}
	sort.Strings(problems)
	return problems
}

// missingFlags lists the --name=value of flags no container's command carries.
func missingFlags(containers []corev1.Container, flags map[string]string) []string {
	var missing []string
	for _, k := range slices.Sorted(maps.Keys(flags)) {
		flag := fmt.Sprintf("--%s=%s", k, flags[k])
		if !slices.ContainsFunc(containers, func(c corev1.Container) bool { return slices.Contains(c.Command, flag) }) {
			missing = append(missing, flag)
		}
	}
	return missing
}

func podReady(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}
