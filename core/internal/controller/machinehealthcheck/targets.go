package machinehealthcheck

import (
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/conditions"
)

// requeueSlack is added to the time a timeout expires before looking again, so the
// check runs just after the deadline rather than a hair before it.
const requeueSlack = 250 * time.Millisecond

// unhealthyMachineReason is HealthCheckSucceeded's reason when a Machine condition
// failed checks.unhealthyMachineConditions (upstream's UnhealthyMachine; the API
// package does not define it yet).
const unhealthyMachineReason = "UnhealthyMachine"

// target is one Machine a MachineHealthCheck checks, with its Node.
type target struct {
	machine *clusterv1.Machine
	// deleting says the Machine is being deleted: it is not checked or marked, and counts as
	// not healthy.
	deleting bool
	// node is the Node named by status.nodeRef; nil when there is none (yet).
	node *corev1.Node
	// nodeMissing says status.nodeRef names a Node that no longer exists.
	nodeMissing bool

	// Outcome of health.
	unhealthy bool
	condition metav1.Condition // HealthCheckSucceeded as computed
	next      time.Duration    // when to look again; 0: no timeout pending
}

// health judges a target against the MachineHealthCheck's checks at now. It returns
// whether the Machine is unhealthy, the HealthCheckSucceeded condition saying why, and,
// for a healthy Machine, how long until a pending timeout expires (0 when none is).
func health(t *target, mhc *clusterv1.MachineHealthCheck, cluster *clusterv1.Cluster, now time.Time) (bool, metav1.Condition, time.Duration) {
	const ct = clusterv1.MachineHealthCheckSucceededCondition
	m := t.machine
	if _, ok := m.Annotations[clusterv1.RemediateMachineAnnotation]; ok {
		return true, conditions.False(ct, clusterv1.MachineHealthCheckHasRemediateAnnotationReason,
			"Health check failed: marked for remediation via "+clusterv1.RemediateMachineAnnotation+" annotation"), 0
	}
	if t.nodeMissing {
		return true, conditions.False(ct, clusterv1.MachineHealthCheckNodeDeletedReason,
			fmt.Sprintf("Health check failed: Node %s has been deleted", m.Status.NodeRef.Name)), 0
	}
	healthy := conditions.True(ct, clusterv1.MachineHealthCheckSucceededReason, "")

	// A Machine is not blamed for a cluster that is not up yet; the first control-plane
	// Machine is the exception, so that it can be replaced when it never comes up.
	if !isTrue(cluster.Status.Initialization.ControlPlaneInitialized) && !isControlPlane(m) {
		return false, healthy, 0
	}
	if !isTrue(cluster.Status.Initialization.InfrastructureProvisioned) {
		return false, healthy, 0
	}

	var next []time.Duration
	if t.node == nil {
		timeout := time.Duration(ptr.Deref(mhc.Spec.Checks.NodeStartupTimeoutSeconds, clusterv1.DefaultNodeStartupTimeoutSeconds)) * time.Second
		if timeout == 0 {
			return false, healthy, 0
		}
		deadline := nodeStartupSince(m, cluster).Add(timeout)
		if !now.Before(deadline) {
			return true, conditions.False(ct, clusterv1.MachineHealthCheckNodeStartupTimeoutReason,
				fmt.Sprintf("Health check failed: Node failed to report startup in %s", timeout)), 0
		}
		next = append(next, deadline.Sub(now))
	} else {
		for _, c := range mhc.Spec.Checks.UnhealthyNodeConditions {
			nc := nodeCondition(t.node, c.Type)
			if nc == nil || nc.Status != c.Status {
				continue
			}
			timeout := time.Duration(ptr.Deref(c.TimeoutSeconds, 0)) * time.Second
			deadline := nc.LastTransitionTime.Add(timeout)
			if !now.Before(deadline) {
				return true, conditions.False(ct, clusterv1.MachineHealthCheckUnhealthyNodeReason,
					fmt.Sprintf("Health check failed: Condition %s on Node is reported as %s for more than %s", c.Type, c.Status, timeout)), 0
			}
			next = append(next, deadline.Sub(now))
		}
	}
	for _, c := range mhc.Spec.Checks.UnhealthyMachineConditions {
		mc := conditions.Get(m, c.Type)
		if mc == nil || mc.Status != c.Status {
			continue
		}
		timeout := time.Duration(ptr.Deref(c.TimeoutSeconds, 0)) * time.Second
		deadline := mc.LastTransitionTime.Add(timeout)
		if !now.Before(deadline) {
			return true, conditions.False(ct, unhealthyMachineReason,
				fmt.Sprintf("Health check failed: Condition %s on Machine is reported as %s for more than %s", c.Type, c.Status, timeout)), 0
		}
		next = append(next, deadline.Sub(now))
	}
	return false, healthy, soonest(next)
}

// nodeStartupSince is when the node startup timeout starts counting: the latest of the
// Machine's creation, its infrastructure becoming ready, and the Cluster's infrastructure
// and control plane becoming ready, so that a slow cluster is not charged to its Machines.
func nodeStartupSince(m *clusterv1.Machine, cluster *clusterv1.Cluster) time.Time {
	since := m.CreationTimestamp.Time
	for _, c := range []*metav1.Condition{
		conditions.Get(m, clusterv1.MachineInfrastructureReadyCondition),
		conditions.Get(cluster, clusterv1.ClusterInfrastructureReadyCondition),
		conditions.Get(cluster, clusterv1.ClusterControlPlaneInitializedCondition),
	} {
		if c != nil && c.Status == metav1.ConditionTrue && c.LastTransitionTime.After(since) {
			since = c.LastTransitionTime.Time
		}
	}
	return since
}

func nodeCondition(n *corev1.Node, t corev1.NodeConditionType) *corev1.NodeCondition {
	for i := range n.Status.Conditions {
		if n.Status.Conditions[i].Type == t {
			return &n.Status.Conditions[i]
		}
	}
	return nil
}

// soonest is the smallest positive duration, plus requeueSlack; 0 when there is none.
func soonest(ds []time.Duration) time.Duration {
	var out time.Duration
	for _, d := range ds {
		if d > 0 && (out == 0 || d < out) {
			out = d
		}
	}
	if out == 0 {
		return 0
	}
	return out + requeueSlack
}

func isControlPlane(m *clusterv1.Machine) bool {
	_, ok := m.Labels[clusterv1.MachineControlPlaneLabel]
	return ok
}

func isTrue(b *bool) bool { return b != nil && *b }
