package machine

import (
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/conditions"
)

// startupConnectAttempts is how many connect attempts a ClusterCache that never
// reached the workload cluster (a manager that just started) gets before the
// Node-derived conditions it cannot observe are reported Unknown: upstream's 5.
const startupConnectAttempts = 5

// connectionDownConditions are NodeReady and NodeHealthy while the workload cluster
// is not connected. A short outage, or a manager restart that has not connected
// yet, must not flip them (and so Ready and Available, which MachineSets,
// MachineDeployments and the Cluster count): the last observed values are kept
// for the grace period, counted from the last successful probe. After it, or when
// nothing was ever observed, they are Unknown and say since when the connection
// is down. Before any Node was seen they follow the Machine's own progress.
func connectionDownConditions(s *scope, now time.Time) (ready, healthy metav1.Condition) {
	m := s.machine
	r, h := clusterv1.MachineNodeReadyCondition, clusterv1.MachineNodeHealthyCondition
	lastReady, lastHealthy := conditions.Get(m, r), conditions.Get(m, h)
	if lastReady != nil && lastHealthy != nil && withinGracePeriod(s, now) {
		if lastHealthy.Reason == clusterv1.MachineNodeDoesNotExistReason && m.Status.NodeRef.Name == "" {
			// No Node was observed yet: what was kept is the Machine's own progress
			// (e.g. "waiting for spec.providerID"), which is current without the connection.
			return nodeAwaitedConditions(s)
		}
		return *lastReady, *lastHealthy
	}
	msg := connectionDownMessage(s)
	return conditions.Unknown(r, clusterv1.MachineNodeConnectionDownReason, msg),
		conditions.Unknown(h, clusterv1.MachineNodeConnectionDownReason, msg)
}

// withinGracePeriod follows upstream: a ClusterCache that has not tried often
// enough to connect (right after a restart) gets the benefit of the doubt;
// otherwise the grace period runs from the later of the last successful probe
// and the control plane's initialization.
func withinGracePeriod(s *scope, now time.Time) bool {
	if s.connection.LastProbeSuccessTime.IsZero() && s.connection.ConsecutiveFailures < startupConnectAttempts {
		return true
	}
	start := graceStart(s)
	return !start.IsZero() && now.Before(start.Add(s.gracePeriod))
}

// graceStart is the later of the last successful probe and the control plane's
// initialization (a connection is not expected before the latter).
func graceStart(s *scope) time.Time {
	start := s.connection.LastProbeSuccessTime
	if s.cluster != nil {
		if c := conditions.Get(s.cluster, clusterv1.ClusterControlPlaneInitializedCondition); c != nil &&
			c.Status == metav1.ConditionTrue && c.LastTransitionTime.After(start) {
			start = c.LastTransitionTime.Time
		}
	}
	return start
}

// graceLeft is when to look again while kept Node conditions are reported, so
// they turn Unknown at the end of the grace period without any other event; a
// manager still connecting for the first time looks again a grace period later.
// Zero when nothing is kept.
func graceLeft(s *scope, now time.Time) time.Duration {
	if !withinGracePeriod(s, now) {
		return 0
	}
	if left := graceStart(s).Add(s.gracePeriod).Sub(now); left > 0 {
		return left + 100*time.Millisecond // land after the end, not on it
	}
	return s.gracePeriod
}

func connectionDownMessage(s *scope) string {
	last := s.connection.LastProbeSuccessTime
	if last.IsZero() {
		return "Remote connection not established yet: the Node's state is unknown until the workload cluster can be reached"
	}
	msg := fmt.Sprintf("The workload cluster cannot be reached since %s (last successful probe): the Node's state is unknown",
		last.UTC().Format(time.RFC3339))
	if err := s.connection.LastProbeError; err != nil {
		msg += "; last error: " + err.Error()
	}
	return msg
}
