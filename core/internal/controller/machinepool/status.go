package machinepool

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/conditions"
)

// setStatus computes every condition and the phase from what the reconcile read. It is
// the only place that writes status conditions, and it is deterministic: the same
// inputs give the same status, so a steady pool is never re-written. A paused pool
// keeps its status as it was, but for the Paused condition.
func setStatus(s *scope) {
	mp := s.pool
	if s.paused {
		return
	}
	mp.Status.ObservedGeneration = mp.Generation
	conditions.Set(mp, bootstrapCondition(s))
	conditions.Set(mp, infrastructureCondition(s))
	conditions.Set(mp, availableCondition(s))
	up, down := scalingConditions(mp)
	conditions.Set(mp, up)
	conditions.Set(mp, down)
	conditions.Set(mp, deletingCondition(s))
	mp.Status.Phase = string(phase(mp))
}

// desiredReplicas is spec.replicas; unset, it is 1, unless an autoscaler owns the count
// (the replicas-managed-by annotation): then it is whatever the pool has.
func desiredReplicas(mp *clusterv1.MachinePool) int32 {
	if mp.Spec.Replicas != nil {
		return *mp.Spec.Replicas
	}
	if autoscaled(mp) {
		return ptr.Deref(mp.Status.Replicas, 0)
	}
	return 1
}

func autoscaled(mp *clusterv1.MachinePool) bool {
	_, ok := mp.Annotations[clusterv1.ReplicasManagedByAnnotation]
	return ok
}

// phase follows upstream's MachinePool phases: Pending; Provisioning once the bootstrap
// data exists; Provisioned once Nodes are matched; with the infrastructure provisioned,
// Running when as many instances are ready as desired, else ScalingUp or ScalingDown
// (Scaling when an autoscaler owns the count); Deleting once deletion starts. Unlike
// upstream it is recomputed from scratch, so it never keeps a stale value.
func phase(mp *clusterv1.MachinePool) clusterv1.MachinePoolPhase {
	if !mp.DeletionTimestamp.IsZero() {
		return clusterv1.MachinePoolPhaseDeleting
	}
	if ptr.Deref(mp.Status.Initialization.InfrastructureProvisioned, false) {
		desired, ready := desiredReplicas(mp), ptr.Deref(mp.Status.ReadyReplicas, 0)
		switch {
		case desired == ready:
			return clusterv1.MachinePoolPhaseRunning
		case autoscaled(mp):
			return clusterv1.MachinePoolPhaseScaling
		case desired > ready:
			return clusterv1.MachinePoolPhaseScalingUp
		default:
			return clusterv1.MachinePoolPhaseScalingDown
		}
	}
	switch {
	case len(mp.Status.NodeRefs) > 0:
		return clusterv1.MachinePoolPhaseProvisioned
	case ptr.Deref(mp.Status.Initialization.BootstrapDataSecretCreated, false):
		return clusterv1.MachinePoolPhaseProvisioning
	}
	return clusterv1.MachinePoolPhasePending
}

func bootstrapCondition(s *scope) metav1.Condition {
	mp := s.pool
	const t = clusterv1.BootstrapConfigReadyCondition
	ref := mp.Spec.Template.Spec.Bootstrap.ConfigRef
	switch {
	case !ref.IsDefined() && mp.Spec.Template.Spec.Bootstrap.DataSecretName != nil:
		return conditions.True(t, clusterv1.MachineBootstrapDataSecretProvidedReason, "")
	case s.bootstrapErr != nil:
		return conditions.Unknown(t, clusterv1.InternalErrorReason, s.bootstrapErr.Error())
	case s.bootstrapNotFound && !mp.DeletionTimestamp.IsZero():
		return conditions.False(t, clusterv1.ObjectDeletedReason, fmt.Sprintf("%s %s has been deleted", ref.Kind, ref.Name))
	case s.bootstrapNotFound:
		return conditions.False(t, clusterv1.ObjectDoesNotExistReason,
			fmt.Sprintf("%s %s does not exist: create it, or fix spec.template.spec.bootstrap.configRef", ref.Kind, ref.Name))
	case !mp.DeletionTimestamp.IsZero() && s.bootstrapConfig == nil:
		// While deleting, the config is not re-read until its turn: keep what was last known.
		if c := conditions.Get(mp, t); c != nil {
			return *c
		}
	case ptr.Deref(mp.Status.Initialization.BootstrapDataSecretCreated, false):
		return conditions.MirrorOr(s.bootstrapConfig, clusterv1.ReadyCondition, t, conditions.True(t, clusterv1.ReadyReason, ""))
	}
	return conditions.MirrorOr(s.bootstrapConfig, clusterv1.ReadyCondition, t, conditions.False(t, clusterv1.NotReadyReason,
		fmt.Sprintf("Waiting for %s %s to report status.initialization.dataSecretCreated", ref.Kind, ref.Name)))
}

func infrastructureCondition(s *scope) metav1.Condition {
	mp := s.pool
	const t = clusterv1.InfrastructureReadyCondition
	ref := mp.Spec.Template.Spec.InfrastructureRef
	provisioned := ptr.Deref(mp.Status.Initialization.InfrastructureProvisioned, false)
	switch {
	case s.infraErr != nil:
		return conditions.Unknown(t, clusterv1.InternalErrorReason, s.infraErr.Error())
	case s.infraNotFound && (provisioned || !mp.DeletionTimestamp.IsZero()):
		return conditions.False(t, clusterv1.ObjectDeletedReason, fmt.Sprintf("%s %s has been deleted", ref.Kind, ref.Name))
	case s.infraNotFound:
		return conditions.False(t, clusterv1.ObjectDoesNotExistReason,
			fmt.Sprintf("%s %s does not exist: create it, or fix spec.template.spec.infrastructureRef", ref.Kind, ref.Name))
	case !mp.DeletionTimestamp.IsZero() && s.infraPool == nil:
		if c := conditions.Get(mp, t); c != nil {
			return *c
		}
	case provisioned:
		return conditions.MirrorOr(s.infraPool, clusterv1.ReadyCondition, t, conditions.True(t, clusterv1.ReadyReason, ""))
	}
	return conditions.MirrorOr(s.infraPool, clusterv1.ReadyCondition, t, conditions.False(t, clusterv1.NotReadyReason,
		fmt.Sprintf("Waiting for %s %s to report status.initialization.provisioned", ref.Kind, ref.Name)))
}

// availableCondition is True when at least the desired number of instances are
// available Nodes.
func availableCondition(s *scope) metav1.Condition {
	mp := s.pool
	const t = clusterv1.AvailableCondition
	desired, available := desiredReplicas(mp), ptr.Deref(mp.Status.AvailableReplicas, 0)
	switch {
	case !mp.DeletionTimestamp.IsZero():
		return conditions.False(t, clusterv1.NotAvailableReason, "MachinePool is being deleted")
	case !ptr.Deref(mp.Status.Initialization.InfrastructureProvisioned, false):
		return conditions.False(t, clusterv1.NotAvailableReason, "Waiting for the InfraMachinePool to be provisioned")
	case s.nodeErr != nil:
		return conditions.Unknown(t, clusterv1.AvailableUnknownReason, "Cannot read the pool's Nodes: "+s.nodeErr.Error())
	case available < desired:
		return conditions.False(t, clusterv1.NotAvailableReason, fmt.Sprintf(
			"%d of %d desired instances are available Nodes (Ready for spec.template.spec.minReadySeconds)", available, desired))
	}
	return conditions.True(t, clusterv1.AvailableReason, "")
}

// scalingConditions compare the desired replicas with the instances the
// InfraMachinePool has.
func scalingConditions(mp *clusterv1.MachinePool) (up, down metav1.Condition) {
	desired, current := desiredReplicas(mp), ptr.Deref(mp.Status.Replicas, 0)
	up = conditions.False(clusterv1.ScalingUpCondition, clusterv1.NotScalingUpReason, "")
	down = conditions.False(clusterv1.ScalingDownCondition, clusterv1.NotScalingDownReason, "")
	switch {
	case !mp.DeletionTimestamp.IsZero():
	case desired > current:
		up = conditions.True(clusterv1.ScalingUpCondition, clusterv1.ScalingUpReason,
			fmt.Sprintf("Scaling up from %d to %d replicas", current, desired))
	case desired < current:
		down = conditions.True(clusterv1.ScalingDownCondition, clusterv1.ScalingDownReason,
			fmt.Sprintf("Scaling down from %d to %d replicas", current, desired))
	}
	return up, down
}

func deletingCondition(s *scope) metav1.Condition {
	const t = clusterv1.DeletingCondition
	if s.pool.DeletionTimestamp.IsZero() {
		return conditions.False(t, clusterv1.NotDeletingReason, "")
	}
	if s.deleting.reason == "" {
		return conditions.True(t, clusterv1.DeletingReason, "Deletion started")
	}
	return conditions.True(t, s.deleting.reason, s.deleting.message)
}
