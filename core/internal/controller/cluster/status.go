package cluster

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/conditions"
)

// remoteProbeFailureGrace is how long the workload connection may fail before the
// cluster source re-triggers the Cluster to report it.
const remoteProbeFailureGrace = 30 * time.Second

// holdCounterOnlyStatus holds back a status write that changes only the control plane's or the
// workers' counters (or a condition's message) while the Cluster's last status write is more
// recent than the limiter's spacing (10 s, growing to 60 s while only counters move), and asks
// to come back when it may be written
// (patch.SummaryLimiter): one Cluster summarises every Machine, and while a hundred come up its
// counters move with each. Anything else (initialization, failure domains, phase, a condition's
// status or reason, observedGeneration) is written at once.
func (r *Reconciler) holdCounterOnlyStatus(c *clusterv1.Cluster, orig *clusterv1.ClusterStatus, res ctrl.Result) ctrl.Result {
	changed := !equality.Semantic.DeepEqual(*orig, c.Status)
	if changed && !onlyCountersDiffer(orig, &c.Status) {
		r.summaries.Wrote(c.UID, time.Now())
		return res
	}
	return r.summaries.Apply(c.UID, changed, orig.Conditions, c.Status.Conditions, orig.ObservedGeneration, c.Status.ObservedGeneration,
		func() { c.Status = *orig }, res)
}

// onlyCountersDiffer reports whether two Cluster statuses are equal but for their control plane
// and workers counters and their conditions (which the SummaryLimiter compares itself).
func onlyCountersDiffer(a, b *clusterv1.ClusterStatus) bool {
	a, b = a.DeepCopy(), b.DeepCopy()
	a.ControlPlane, b.ControlPlane = nil, nil
	a.Workers, b.Workers = nil, nil
	a.Conditions, b.Conditions = nil, nil
	return equality.Semantic.DeepEqual(a, b)
}

// setStatus computes all conditions, the workers summary and the phase in one
// place, deterministically, so a steady Cluster is never re-written.
func (r *Reconciler) setStatus(s *scope) {
	c := s.cluster
	c.Status.ObservedGeneration = c.Generation
	if s.listedDescendants {
		workers := workersStatus(s.descendants)
		if c.Status.Workers != nil {
			workers.UpgradePlan = c.Status.Workers.UpgradePlan // the topology controller's
		}
		c.Status.Workers = workers
	}
	conditions.Set(c, infrastructureCondition(s))
	conditions.Set(c, controlPlaneInitializedCondition(s))
	conditions.Set(c, controlPlaneAvailableCondition(s))
	if s.listedDescendants {
		conditions.Set(c, workersAvailableCondition(s.descendants))
	}
	conditions.Set(c, r.remoteConnectionCondition(c))
	conditions.Set(c, deletingCondition(s))
	conditions.Set(c, availableCondition(c, s.availabilityGates))
	setPhase(c)
}

func infrastructureCondition(s *scope) metav1.Condition {
	c := s.cluster
	t := clusterv1.ClusterInfrastructureReadyCondition
	ref := c.Spec.InfrastructureRef
	provisioned := ptr.Deref(c.Status.Initialization.InfrastructureProvisioned, false)
	switch {
	case !ref.IsDefined() && c.Spec.Topology.IsDefined() && !provisioned:
		return conditions.False(t, clusterv1.ClusterInfrastructureDoesNotExistReason,
			"Waiting for the topology to create the InfraCluster and set spec.infrastructureRef (see the TopologyReconciled condition)")
	case !ref.IsDefined():
		return conditions.True(t, clusterv1.ClusterInfrastructureReadyReason, "")
	case s.infraErr != nil:
		return conditions.Unknown(t, clusterv1.ClusterInfrastructureInternalErrorReason, s.infraErr.Error())
	case s.infraNotFound && (provisioned || !c.DeletionTimestamp.IsZero()):
		return conditions.False(t, clusterv1.ClusterInfrastructureDeletedReason, objectName(ref)+" has been deleted")
	case s.infraNotFound:
		return conditions.False(t, clusterv1.ClusterInfrastructureDoesNotExistReason,
			objectName(ref)+" does not exist: create it, or fix spec.infrastructureRef")
	case provisioned:
		return conditions.MirrorOr(s.infra, clusterv1.ReadyCondition, t, conditions.True(t, clusterv1.ClusterInfrastructureReadyReason, ""))
	case s.infra == nil: // not read in this reconcile (deleting): keep what was known
		return keep(c, t)
	}
	return conditions.MirrorOr(s.infra, clusterv1.ReadyCondition, t, conditions.False(t, clusterv1.ClusterInfrastructureNotReadyReason,
		"Waiting for "+objectName(ref)+" to report status.initialization.provisioned"))
}

func controlPlaneInitializedCondition(s *scope) metav1.Condition {
	c := s.cluster
	t := clusterv1.ClusterControlPlaneInitializedCondition
	if ptr.Deref(c.Status.Initialization.ControlPlaneInitialized, false) {
		return conditions.True(t, clusterv1.ClusterControlPlaneInitializedReason, "")
	}
	if s.controlPlaneErr != nil {
		return conditions.Unknown(t, clusterv1.ClusterControlPlaneInitializedInternalErrorReason, s.controlPlaneErr.Error())
	}
	if ref := c.Spec.ControlPlaneRef; ref.IsDefined() {
		return conditions.False(t, clusterv1.ClusterControlPlaneNotInitializedReason,
			"Waiting for "+objectName(ref)+" to report status.initialization.controlPlaneInitialized")
	}
	return conditions.False(t, clusterv1.ClusterControlPlaneNotInitializedReason,
		"Waiting for the first control-plane Machine to get a Node")
}

func controlPlaneAvailableCondition(s *scope) metav1.Condition {
	c := s.cluster
	t := clusterv1.ClusterControlPlaneAvailableCondition
	ref := c.Spec.ControlPlaneRef
	switch {
	case ref.IsDefined() && s.controlPlaneNotFound:
		return conditions.False(t, clusterv1.ClusterControlPlaneDoesNotExistReason,
			objectName(ref)+" does not exist: create it, or fix spec.controlPlaneRef")
	case ref.IsDefined() && s.controlPlane == nil:
		return keep(c, t)
	case ref.IsDefined():
		return conditions.MirrorOr(s.controlPlane, clusterv1.AvailableCondition, t, conditions.Unknown(t, clusterv1.AvailableUnknownReason,
			objectName(ref)+" does not report an Available condition"))
	case !s.listedDescendants:
		return keep(c, t)
	}
	for _, m := range s.descendants.controlPlaneMachines {
		if conditions.IsTrue(&m, clusterv1.MachineAvailableCondition) {
			return conditions.True(t, clusterv1.ClusterControlPlaneAvailableReason, "")
		}
	}
	return conditions.False(t, clusterv1.ClusterControlPlaneNotAvailableReason, "No control-plane Machine is available yet")
}

func workersAvailableCondition(d descendants) metav1.Condition {
	t := clusterv1.ClusterWorkersAvailableCondition
	if len(d.machineDeployments) == 0 && len(d.machinePools) == 0 {
		return conditions.True(t, clusterv1.ClusterWorkersAvailableNoWorkersReason, "")
	}
	var notAvailable []string
	for _, md := range d.machineDeployments {
		if !conditions.IsTrue(&md, clusterv1.AvailableCondition) {
			notAvailable = append(notAvailable, "MachineDeployment "+md.Name)
		}
	}
	for _, mp := range d.machinePools {
		if ptr.Deref(mp.Status.AvailableReplicas, 0) < ptr.Deref(mp.Spec.Replicas, 1) {
			notAvailable = append(notAvailable, "MachinePool "+mp.Name)
		}
	}
	if len(notAvailable) == 0 {
		return conditions.True(t, clusterv1.ClusterWorkersAvailableReason, "")
	}
	sort.Strings(notAvailable)
	return conditions.False(t, clusterv1.ClusterWorkersNotAvailableReason, strings.Join(notAvailable, ", ")+" not available")
}

func (r *Reconciler) remoteConnectionCondition(c *clusterv1.Cluster) metav1.Condition {
	t := clusterv1.ClusterRemoteConnectionProbeCondition
	h := r.Health.GetHealthCheckingState(client.ObjectKeyFromObject(c))
	if h.Connected && h.LastProbeError == nil {
		return conditions.True(t, clusterv1.ClusterRemoteConnectionProbeSucceededReason, "")
	}
	if !ptr.Deref(c.Status.Initialization.ControlPlaneInitialized, false) && h.LastProbeSuccessTime.IsZero() {
		return conditions.Unknown(t, clusterv1.ClusterRemoteConnectionProbeFailedReason,
			"Waiting for the control plane to be initialized and the kubeconfig to be written")
	}
	if h.LastProbeSuccessTime.IsZero() {
		return conditions.False(t, clusterv1.ClusterRemoteConnectionProbeFailedReason,
			"Remote connection probe failed, the workload cluster was never reached; check the <cluster>-kubeconfig Secret and the control plane endpoint")
	}
	return conditions.False(t, clusterv1.ClusterRemoteConnectionProbeFailedReason,
		fmt.Sprintf("Remote connection probe failed, probe last succeeded at %s", h.LastProbeSuccessTime.UTC().Format(time.RFC3339)))
}

func deletingCondition(s *scope) metav1.Condition {
	t := clusterv1.ClusterDeletingCondition
	if s.cluster.DeletionTimestamp.IsZero() {
		return conditions.False(t, clusterv1.ClusterNotDeletingReason, "")
	}
	if s.deleting.reason == "" {
		return conditions.True(t, clusterv1.DeletingReason, "Deletion started")
	}
	return conditions.True(t, s.deleting.reason, s.deleting.message)
}

// availableCondition summarises the others, and the conditions of the availability gates: each
// must be True, or False for a gate of negative polarity; a missing one counts as Unknown.
func availableCondition(c *clusterv1.Cluster, gates []clusterv1.ClusterAvailabilityGate) metav1.Condition {
	t := clusterv1.ClusterAvailableCondition
	if !c.DeletionTimestamp.IsZero() {
		return conditions.False(t, clusterv1.ClusterNotAvailableReason, "Cluster is being deleted")
	}
	var problems []string
	for _, ct := range []string{clusterv1.ClusterInfrastructureReadyCondition, clusterv1.ClusterControlPlaneAvailableCondition,
		clusterv1.ClusterWorkersAvailableCondition, clusterv1.ClusterRemoteConnectionProbeCondition} {
		cond := conditions.Get(c, ct)
		switch {
		case cond == nil:
			problems = append(problems, ct+" not reported yet")
		case cond.Status != metav1.ConditionTrue && cond.Message != "":
			problems = append(problems, ct+": "+cond.Message)
		case cond.Status != metav1.ConditionTrue:
			problems = append(problems, ct+" is "+string(cond.Status))
		}
	}
	for _, g := range gates {
		want := metav1.ConditionTrue
		if g.Polarity == clusterv1.NegativePolarityCondition {
			want = metav1.ConditionFalse
		}
		cond := conditions.Get(c, g.ConditionType)
		switch {
		case cond == nil:
			problems = append(problems, g.ConditionType+" not reported yet (spec.availabilityGates)")
		case cond.Status != want:
			msg := fmt.Sprintf("%s is %s, the availability gate wants %s", g.ConditionType, cond.Status, want)
			if cond.Message != "" {
				msg += ": " + cond.Message
			}
			problems = append(problems, msg)
		}
	}
	if len(problems) == 0 {
		return conditions.True(t, clusterv1.ClusterAvailableReason, "")
	}
	return conditions.False(t, clusterv1.ClusterNotAvailableReason, strings.Join(problems, "; "))
}

func workersStatus(d descendants) *clusterv1.WorkersStatus {
	var desired, replicas, ready, available, upToDate int32
	for _, md := range d.machineDeployments {
		desired += ptr.Deref(md.Spec.Replicas, 0)
	}
	// A MachinePool's instances are not Machines here: its counts come from its status (as
	// upstream adds them), and a Machine a MachinePool owns is not counted again below.
	for _, mp := range d.machinePools {
		desired += ptr.Deref(mp.Spec.Replicas, 0)
		replicas += ptr.Deref(mp.Status.Replicas, 0)
		ready += ptr.Deref(mp.Status.ReadyReplicas, 0)
		available += ptr.Deref(mp.Status.AvailableReplicas, 0)
		upToDate += ptr.Deref(mp.Status.UpToDateReplicas, 0)
	}
	for _, ms := range d.machineSets {
		if !ownedBy(&ms, "MachineDeployment") {
			desired += ptr.Deref(ms.Spec.Replicas, 0)
		}
	}
	for _, m := range d.workerMachines {
		if ownedBy(&m, "MachinePool") {
			continue
		}
		replicas++
		if conditions.IsTrue(&m, clusterv1.MachineReadyCondition) {
			ready++
		}
		if conditions.IsTrue(&m, clusterv1.MachineAvailableCondition) {
			available++
		}
		if c := conditions.Get(&m, clusterv1.MachineUpToDateCondition); c == nil || c.Status == metav1.ConditionTrue {
			upToDate++
		}
	}
	return &clusterv1.WorkersStatus{DesiredReplicas: &desired, Replicas: &replicas, ReadyReplicas: &ready,
		AvailableReplicas: &available, UpToDateReplicas: &upToDate}
}

// keep returns the condition as last written (Unknown when there is none).
func keep(c *clusterv1.Cluster, t string) metav1.Condition {
	if cond := conditions.Get(c, t); cond != nil {
		return *cond
	}
	return conditions.Unknown(t, clusterv1.AvailableUnknownReason, "")
}

func setPhase(c *clusterv1.Cluster) {
	phase := clusterv1.ClusterPhasePending
	switch {
	case !c.DeletionTimestamp.IsZero():
		phase = clusterv1.ClusterPhaseDeleting
	case ptr.Deref(c.Status.Initialization.InfrastructureProvisioned, false) && c.Spec.ControlPlaneEndpoint.IsValid():
		phase = clusterv1.ClusterPhaseProvisioned
	case c.Spec.InfrastructureRef.IsDefined() || c.Spec.ControlPlaneRef.IsDefined():
		phase = clusterv1.ClusterPhaseProvisioning
	}
	c.Status.Phase = string(phase)
}
