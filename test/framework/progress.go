package framework

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
)

// Progress prints one line whenever what a user cares about changes while a cluster
// provisions or is deleted: the Cluster's phase and availability, each Machine's phase and
// the reason it is not ready yet, each workload Node's readiness. Nothing is printed when
// nothing changed, so a slow step shows as silence after its last line, not as noise.
type Progress struct {
	Out   io.Writer
	Now   func() time.Time
	state map[string]string
}

// Report prints the lines of objects whose state changed since the last call, and one line
// for each object that disappeared.
func (p *Progress) Report(current map[string]string) {
	if p.state == nil {
		p.state = map[string]string{}
	}
	now := time.Now
	if p.Now != nil {
		now = p.Now
	}
	keys := make([]string, 0, len(current))
	for k := range current {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if p.state[k] != current[k] {
			fmt.Fprintf(p.Out, "%s %s: %s\n", now().Format("15:04:05"), k, current[k])
		}
	}
	gone := []string{}
	for k := range p.state {
		if _, ok := current[k]; !ok {
			gone = append(gone, k)
		}
	}
	sort.Strings(gone)
	for _, k := range gone {
		fmt.Fprintf(p.Out, "%s %s: gone\n", now().Format("15:04:05"), k)
	}
	p.state = current
}

// ClusterState reads the Cluster and its Machines from the management cluster, and the Nodes
// from the workload cluster when workload is not nil, as the lines Progress compares.
func ClusterState(ctx context.Context, mgmt client.Reader, key client.ObjectKey, workload client.Reader) (map[string]string, error) {
	state := map[string]string{}
	cluster := &clusterv1.Cluster{}
	if err := mgmt.Get(ctx, key, cluster); err != nil {
		return nil, fmt.Errorf("reading Cluster %s: %w", key, err)
	}
	state["Cluster "+key.Name] = describe(cluster.Status.Phase, cluster.Status.Conditions, clusterv1.AvailableCondition)

	machines := &clusterv1.MachineList{}
	if err := mgmt.List(ctx, machines, client.InNamespace(key.Namespace), client.MatchingLabels{clusterv1.ClusterNameLabel: key.Name}); err != nil {
		return nil, fmt.Errorf("listing the Machines of %s: %w", key, err)
	}
	for _, m := range machines.Items {
		line := describe(m.Status.Phase, m.Status.Conditions, clusterv1.ReadyCondition)
		if m.Status.NodeRef.Name != "" {
			line += ", node " + m.Status.NodeRef.Name
		}
		state["Machine "+m.Name] = line
	}

	if workload != nil {
		nodes := &corev1.NodeList{}
		if err := workload.List(ctx, nodes); err == nil {
			for _, n := range nodes.Items {
				state["Node "+n.Name] = nodeReadiness(&n)
			}
		}
	}
	return state, nil
}

// describe is "<phase>, <condition> <status>" plus the reason and the first line of the
// message when the condition is not True: that is what says what is being waited for.
func describe(phase string, conditions []metav1.Condition, conditionType string) string {
	parts := []string{}
	if phase != "" {
		parts = append(parts, phase)
	}
	c := meta.FindStatusCondition(conditions, conditionType)
	switch {
	case c == nil:
		parts = append(parts, conditionType+" unknown")
	case c.Status == metav1.ConditionTrue:
		parts = append(parts, conditionType)
	default:
		msg := strings.SplitN(strings.TrimSpace(c.Message), "\n", 2)[0]
		s := fmt.Sprintf("not %s (%s)", conditionType, c.Reason)
		if msg != "" {
			s += ": " + msg
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, ", ")
}

// nodeReadyCondition is the Node's Ready condition, nil while the kubelet has posted none.
func nodeReadyCondition(n *corev1.Node) *corev1.NodeCondition {
	for i := range n.Status.Conditions {
		if n.Status.Conditions[i].Type == corev1.NodeReady {
			return &n.Status.Conditions[i]
		}
	}
	return nil
}

// NodeIsReady is true when the Node's Ready condition is True.
func NodeIsReady(n *corev1.Node) bool {
	c := nodeReadyCondition(n)
	return c != nil && c.Status == corev1.ConditionTrue
}

func nodeReadiness(n *corev1.Node) string {
	switch c := nodeReadyCondition(n); {
	case c == nil:
		return "NotReady (no Ready condition yet)"
	case c.Status == corev1.ConditionTrue:
		return "Ready"
	default:
		return fmt.Sprintf("NotReady (%s)", c.Reason)
	}
}

// Event prints a one-off line (something done rather than a state that changed).
func (p *Progress) Event(msg string) {
	now := time.Now
	if p.Now != nil {
		now = p.Now
	}
	fmt.Fprintf(p.Out, "%s %s\n", now().Format("15:04:05"), msg)
}
