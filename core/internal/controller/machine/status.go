package machine

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/conditions"
	"capstan.dev/contracts/remote"
)

// setStatus computes every condition and the phase from what the reconcile read.
// It is the only place that writes status conditions, and it is deterministic: the
// same inputs give the same status, so a steady Machine is never re-written.
func setStatus(s *scope, now time.Time) {
	m := s.machine
	m.Status.ObservedGeneration = m.Generation
	conditions.Set(m, bootstrapCondition(s))
	conditions.Set(m, infrastructureCondition(s))
	nodeReady, nodeHealthy := nodeConditions(s, now)
	conditions.Set(m, nodeReady)
	conditions.Set(m, nodeHealthy)
	conditions.Set(m, deletingCondition(s))
	conditions.Set(m, readyCondition(m))
	conditions.Set(m, availableCondition(m, now))
	setPhase(m)
}

func bootstrapCondition(s *scope) metav1.Condition {
	m := s.machine
	t := clusterv1.MachineBootstrapConfigReadyCondition
	ref := m.Spec.Bootstrap.ConfigRef
	switch {
	case !ref.IsDefined() && m.Spec.Bootstrap.DataSecretName != nil:
		return conditions.True(t, clusterv1.MachineBootstrapDataSecretProvidedReason, "")
	case s.bootstrapErr != nil:
		return conditions.Unknown(t, clusterv1.InternalErrorReason, s.bootstrapErr.Error())
	case s.bootstrapNotFound && !m.DeletionTimestamp.IsZero():
		return conditions.False(t, clusterv1.MachineBootstrapConfigDeletedReason, fmt.Sprintf("%s %s has been deleted", ref.Kind, ref.Name))
	case s.bootstrapNotFound:
		return conditions.False(t, clusterv1.MachineBootstrapConfigDoesNotExistReason,
			fmt.Sprintf("%s %s does not exist: create it, or fix spec.bootstrap.configRef", ref.Kind, ref.Name))
	case ptr.Deref(m.Status.Initialization.BootstrapDataSecretCreated, false):
		return conditions.MirrorOr(s.bootstrapConfig, clusterv1.ReadyCondition, t, conditions.True(t, clusterv1.MachineBootstrapConfigReadyReason, ""))
	}
	return conditions.MirrorOr(s.bootstrapConfig, clusterv1.ReadyCondition, t, conditions.False(t, clusterv1.MachineBootstrapConfigNotReadyReason,
		fmt.Sprintf("Waiting for %s %s to report status.initialization.dataSecretCreated", ref.Kind, ref.Name)))
}

func infrastructureCondition(s *scope) metav1.Condition {
	m := s.machine
	t := clusterv1.MachineInfrastructureReadyCondition
	ref := m.Spec.InfrastructureRef
	provisioned := ptr.Deref(m.Status.Initialization.InfrastructureProvisioned, false)
	switch {
	case s.infraErr != nil:
		return conditions.Unknown(t, clusterv1.InternalErrorReason, s.infraErr.Error())
	case s.infraNotFound && (provisioned || !m.DeletionTimestamp.IsZero()):
		return conditions.False(t, clusterv1.MachineInfrastructureDeletedReason, fmt.Sprintf(
			"%s %s has been deleted: this Machine cannot recover; delete it (a MachineSet or MachineHealthCheck replaces it)", ref.Kind, ref.Name))
	case s.infraNotFound:
		return conditions.False(t, clusterv1.MachineInfrastructureDoesNotExistReason,
			fmt.Sprintf("%s %s does not exist: create it, or fix spec.infrastructureRef", ref.Kind, ref.Name))
	case provisioned:
		return conditions.MirrorOr(s.infraMachine, clusterv1.ReadyCondition, t, conditions.True(t, clusterv1.MachineInfrastructureReadyReason, ""))
	}
	return conditions.MirrorOr(s.infraMachine, clusterv1.ReadyCondition, t, conditions.False(t, clusterv1.MachineInfrastructureNotReadyReason,
		fmt.Sprintf("Waiting for %s %s to report status.initialization.provisioned", ref.Kind, ref.Name)))
}

func nodeConditions(s *scope, now time.Time) (ready, healthy metav1.Condition) {
	m := s.machine
	r, h := clusterv1.MachineNodeReadyCondition, clusterv1.MachineNodeHealthyCondition
	switch {
	case s.node != nil:
		ready = nodeReadyCondition(s.node)
		if problems := nodeProblems(s.node); len(problems) > 0 {
			return ready, conditions.False(h, clusterv1.MachineNodeNotHealthyReason,
				fmt.Sprintf("Node %s: %s", s.node.Name, strings.Join(problems, "; ")))
		}
		return ready, conditions.True(h, clusterv1.MachineNodeHealthyReason, "")
	case s.nodeGone:
		msg := fmt.Sprintf("Node %s has been deleted from the workload cluster", m.Status.NodeRef.Name)
		return conditions.False(r, clusterv1.MachineNodeDeletedReason, msg), conditions.False(h, clusterv1.MachineNodeDeletedReason, msg)
	case errors.Is(s.nodeErr, remote.ErrClusterNotConnected):
		return connectionDownConditions(s, now)
	case s.nodeErr != nil:
		msg := "Cannot read the Node: " + s.nodeErr.Error()
		return conditions.Unknown(r, clusterv1.MachineNodeConnectionDownReason, msg), conditions.Unknown(h, clusterv1.MachineNodeConnectionDownReason, msg)
	case !m.DeletionTimestamp.IsZero() && m.Status.NodeRef.Name != "":
		// While deleting, the Node is not re-read: keep what was last known.
		if c := conditions.Get(m, r); c != nil {
			ready = *c
		} else {
			ready = conditions.Unknown(r, clusterv1.MachineNodeDoesNotExistReason, "")
		}
		if c := conditions.Get(m, h); c != nil {
			healthy = *c
		} else {
			healthy = conditions.Unknown(h, clusterv1.MachineNodeDoesNotExistReason, "")
		}
		return ready, healthy
	}
	return nodeAwaitedConditions(s)
}

// nodeAwaitedConditions are NodeReady and NodeHealthy before any Node was seen: they
// describe the Machine's own progress towards one, which is always observable.
func nodeAwaitedConditions(s *scope) (ready, healthy metav1.Condition) {
	m := s.machine
	r, h := clusterv1.MachineNodeReadyCondition, clusterv1.MachineNodeHealthyCondition
	msg := fmt.Sprintf("Waiting for a Node with spec.providerID %s to register in the workload cluster", m.Spec.ProviderID)
	switch {
	case m.Spec.ProviderID == "":
		msg = "Waiting for the infrastructure provider to set spec.providerID"
	case s.cluster != nil && !controlPlaneInitialized(s.cluster):
		msg = "Waiting for the Cluster's control plane to be initialized"
	}
	return conditions.Unknown(r, clusterv1.MachineNodeDoesNotExistReason, msg), conditions.Unknown(h, clusterv1.MachineNodeDoesNotExistReason, msg)
}

// nodeConditionsFailedReason is NodeReady's reason when the Node reports no Ready condition
// (the API package does not define it).
const nodeConditionsFailedReason = "NodeConditionsFailed"

func nodeReadyCondition(n *corev1.Node) metav1.Condition {
	t := clusterv1.MachineNodeReadyCondition
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			reason := c.Reason
			if reason == "" {
				reason = "NodeReady" + string(c.Status)
			}
			return metav1.Condition{Type: t, Status: metav1.ConditionStatus(c.Status), Reason: reason, Message: c.Message}
		}
	}
	return conditions.Unknown(t, nodeConditionsFailedReason, fmt.Sprintf("Node %s does not report a Ready condition yet", n.Name))
}

// nodeProblems lists why a Node is unhealthy: not Ready, or under pressure.
func nodeProblems(n *corev1.Node) []string {
	var out []string
	ready := false
	for _, c := range n.Status.Conditions {
		switch c.Type {
		case corev1.NodeReady:
			ready = c.Status == corev1.ConditionTrue
		case corev1.NodeMemoryPressure, corev1.NodeDiskPressure, corev1.NodePIDPressure:
			if c.Status == corev1.ConditionTrue {
				out = append(out, string(c.Type))
			}
		}
	}
	if !ready {
		out = append(out, "not Ready")
	}
	sort.Strings(out)
	return out
}

func deletingCondition(s *scope) metav1.Condition {
	t := clusterv1.MachineDeletingCondition
	if s.machine.DeletionTimestamp.IsZero() {
		return conditions.False(t, clusterv1.MachineNotDeletingReason, "")
	}
	if s.deleting.reason == "" {
		return conditions.True(t, clusterv1.MachineDeletingReason, "Deletion started")
	}
	return conditions.True(t, s.deleting.reason, s.deleting.message)
}

// readyCondition summarises what makes a Machine Ready, as upstream's summary does:
// BootstrapConfigReady, InfrastructureReady and NodeHealthy True, HealthCheckSucceeded True when
// a MachineHealthCheck reported it, and every spec.readinessGates condition in its healthy state
// (True, or False for a Negative gate); a gate whose condition nobody reported yet is not.
func readyCondition(m *clusterv1.Machine) metav1.Condition {
	t := clusterv1.MachineReadyCondition
	if !m.DeletionTimestamp.IsZero() {
		return conditions.False(t, clusterv1.MachineNotReadyReason, "Machine is being deleted")
	}
	checked := []string{clusterv1.MachineBootstrapConfigReadyCondition, clusterv1.MachineInfrastructureReadyCondition, clusterv1.MachineNodeHealthyCondition}
	var notReady []string
	for _, ct := range checked {
		notReady = appendUnhealthy(notReady, ct, metav1.ConditionTrue, conditions.Get(m, ct))
	}
	if c := conditions.Get(m, clusterv1.MachineHealthCheckSucceededCondition); c != nil {
		notReady = appendUnhealthy(notReady, c.Type, metav1.ConditionTrue, c)
	}
	checked = append(checked, clusterv1.MachineHealthCheckSucceededCondition, t, clusterv1.MachineAvailableCondition)
	for _, g := range m.Spec.ReadinessGates {
		if slices.Contains(checked, g.ConditionType) {
			continue // already counted, or Ready's own outcome
		}
		checked = append(checked, g.ConditionType)
		want := metav1.ConditionTrue
		if g.Polarity == clusterv1.NegativePolarityCondition {
			want = metav1.ConditionFalse
		}
		notReady = appendUnhealthy(notReady, g.ConditionType, want, conditions.Get(m, g.ConditionType))
	}
	if len(notReady) == 0 {
		return conditions.True(t, clusterv1.MachineReadyReason, "")
	}
	return conditions.False(t, clusterv1.MachineNotReadyReason, strings.Join(notReady, "; "))
}

// appendUnhealthy adds to out why condition ct is not in its healthy state want, when it is not:
// its message, or that it is not want (also when nobody reported it).
func appendUnhealthy(out []string, ct string, want metav1.ConditionStatus, c *metav1.Condition) []string {
	switch {
	case c != nil && c.Status == want:
		return out
	case c != nil && c.Message != "":
		return append(out, ct+": "+c.Message)
	default:
		return append(out, ct+" is not "+string(want))
	}
}

// availableCondition is True once Ready has held for spec.minReadySeconds.
func availableCondition(m *clusterv1.Machine, now time.Time) metav1.Condition {
	t := clusterv1.MachineAvailableCondition
	ready := conditions.Get(m, clusterv1.MachineReadyCondition)
	if ready == nil || ready.Status != metav1.ConditionTrue {
		return conditions.False(t, clusterv1.NotAvailableReason, "Machine is not Ready")
	}
	min := time.Duration(ptr.Deref(m.Spec.MinReadySeconds, 0)) * time.Second
	if min > 0 && now.Sub(ready.LastTransitionTime.Time) < min {
		return conditions.False(t, clusterv1.MachineWaitingForMinReadySecondsReason,
			fmt.Sprintf("Machine is Ready, waiting for spec.minReadySeconds (%s) to pass", min))
	}
	return conditions.True(t, clusterv1.MachineAvailableReason, "")
}

func setPhase(m *clusterv1.Machine) {
	phase := clusterv1.MachinePhasePending
	switch {
	case !m.DeletionTimestamp.IsZero():
		phase = clusterv1.MachinePhaseDeleting
	case m.Status.NodeRef.Name != "" && ptr.Deref(m.Status.Initialization.InfrastructureProvisioned, false):
		phase = clusterv1.MachinePhaseRunning
	case m.Spec.ProviderID != "" && ptr.Deref(m.Status.Initialization.InfrastructureProvisioned, false):
		phase = clusterv1.MachinePhaseProvisioned
	case ptr.Deref(m.Status.Initialization.BootstrapDataSecretCreated, false):
		phase = clusterv1.MachinePhaseProvisioning
	}
	if m.Status.Phase != string(phase) {
		m.Status.Phase = string(phase)
		m.Status.LastUpdated = metav1.Now()
	}
}
