package dockermachinepool

import (
	"fmt"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"capstan.dev/contracts/conditions"
	infrav1 "capstan.dev/infrastructure-docker/api/v1beta2"
	"capstan.dev/infrastructure-docker/internal/node"
)

// setStatus computes, in one place and deterministically, what the reconcile found: the
// instances, spec.providerIDList (sorted), status.replicas, the provisioned milestone and the
// conditions, so that a steady pool is never re-written. A reconcile that did not look (paused,
// or deleting: only Deleting and Ready change then) keeps what the last one recorded.
func setStatus(s *scope) {
	if s.paused {
		return
	}
	pool := s.pool
	conditions.Set(pool, deletingCondition(s))
	if s.listed {
		instances := make([]infrav1.DockerMachinePoolInstanceStatus, 0, len(s.instances))
		var ids []string
		for _, in := range s.instances {
			id := node.ProviderID(in.container.Name)
			ids = append(ids, id)
			instances = append(instances, infrav1.DockerMachinePoolInstanceStatus{
				InstanceName: in.container.Name, ProviderID: id, Addresses: node.Addresses(&in.container),
				Bootstrapped: in.bootstrapped, Ready: in.ready,
			})
		}
		slices.SortFunc(instances, func(a, b infrav1.DockerMachinePoolInstanceStatus) int {
			return strings.Compare(a.InstanceName, b.InstanceName)
		})
		slices.Sort(ids)
		if len(instances) == 0 {
			instances = nil
		}
		pool.Status.Instances = instances
		pool.Spec.ProviderIDList = ids
		pool.Status.Replicas = int32(len(instances)) //nolint:gosec // bounded by the MachinePool's int32 replicas
		if len(s.instances) == s.desired && s.wait == nil && allBootstrapped(s.instances) {
			pool.Status.Initialization.Provisioned = ptr.To(true)
		}
	}
	if s.reconciled {
		pool.Status.ObservedGeneration = pool.Generation
		conditions.Set(pool, replicasReadyCondition(s))
	}
	if s.reconciled || s.deleting != nil || conditions.Get(pool, infrav1.DockerMachinePoolReadyCondition) == nil {
		conditions.Set(pool, readyCondition(s))
	}
}

func allBootstrapped(instances []*instance) bool {
	for _, in := range instances {
		if !in.bootstrapped {
			return false
		}
	}
	return true
}

// replicasReadyCondition says whether every wanted instance exists, is bootstrapped and has its
// Node marked; otherwise the first thing missing, naming the instance.
func replicasReadyCondition(s *scope) metav1.Condition {
	t := infrav1.DockerMachinePoolReplicasReadyCondition
	if s.wait != nil {
		return conditions.False(t, s.wait.reason, s.wait.message)
	}
	if s.err != nil {
		return conditions.False(t, infrav1.DockerMachinePoolInternalErrorReason, s.err.Error())
	}
	if !s.listed {
		return conditions.False(t, infrav1.DockerMachinePoolInternalErrorReason, "The pool's node containers were not listed")
	}
	var failed, preLoading, bootstrapping, nodes []*instance
	for _, in := range s.instances {
		switch {
		case in.bootstrap != nil && (in.bootstrap.Phase == node.BootstrapFailed || in.bootstrap.Phase == node.BootstrapTimedOut):
			failed = append(failed, in)
		case in.bootstrap != nil && preLoadReasons[in.bootstrap.Phase] != "":
			preLoading = append(preLoading, in)
		case !in.bootstrapped:
			bootstrapping = append(bootstrapping, in)
		case !in.ready:
			nodes = append(nodes, in)
		}
	}
	n := len(s.instances)
	switch {
	case len(failed) > 0:
		return conditions.False(t, infrav1.DockerMachinePoolBootstrapFailedReason, fmt.Sprintf(
			"The bootstrap of %d of %d instances failed; instance %s: %s", len(failed), n, failed[0].container.Name, failed[0].bootstrap.Message))
	case len(preLoading) > 0:
		first := preLoading[0]
		return conditions.False(t, preLoadReasons[first.bootstrap.Phase], fmt.Sprintf(
			"The bootstrap of %d of %d instances waits for spec.template.preLoadImages; instance %s: %s", len(preLoading), n, first.container.Name, first.bootstrap.Message))
	case countOutdated(s.instances) > 0:
		return conditions.False(t, infrav1.DockerMachinePoolRollingOutReason, rollingOutMessage(s))
	case n < s.desired:
		return conditions.False(t, infrav1.DockerMachinePoolScalingUpReason, fmt.Sprintf(
			"%d of %d instances exist", n, s.desired))
	case len(bootstrapping) > 0:
		first := bootstrapping[0]
		msg := "waiting for its bootstrap to start"
		if first.bootstrap != nil {
			msg = first.bootstrap.Message
		}
		return conditions.False(t, infrav1.DockerMachinePoolScalingUpReason, fmt.Sprintf(
			"Waiting for %d of %d instances to be bootstrapped; instance %s: %s", len(bootstrapping), n, first.container.Name, msg))
	case len(nodes) > 0:
		return conditions.False(t, infrav1.DockerMachinePoolWaitingForNodesReason, fmt.Sprintf(
			"Waiting for the Nodes of %d of %d instances to carry their providerID; %s", len(nodes), n, nodes[0].nodeWait))
	}
	return conditions.True(t, infrav1.DockerMachinePoolReplicasReadyReason, "")
}

// preLoadReasons are the ReplicasReady reasons of the bootstrap phases that wait for
// spec.template.preLoadImages.
var preLoadReasons = map[node.BootstrapPhase]string{
	node.BootstrapPreLoadImageNotFound: infrav1.DockerMachinePoolPreLoadImageNotFoundReason,
	node.BootstrapPreLoadFailed:        infrav1.DockerMachinePoolPreLoadFailedReason,
}

func deletingCondition(s *scope) metav1.Condition {
	t := infrav1.DockerMachinePoolDeletingCondition
	if s.pool.DeletionTimestamp.IsZero() {
		return conditions.False(t, infrav1.DockerMachinePoolNotDeletingReason, "")
	}
	if s.deleting == nil {
		if c := conditions.Get(s.pool, t); c != nil && c.Status == metav1.ConditionTrue {
			return *c // paused while deleting: keep what was reported
		}
		return conditions.True(t, infrav1.DockerMachinePoolDeletingReason, "Deletion started")
	}
	return conditions.True(t, s.deleting.reason, s.deleting.message)
}

// readyCondition is ReplicasReady's verdict while the pool is not deleting: its message is
// what users read on the MachinePool (InfrastructureReady).
func readyCondition(s *scope) metav1.Condition {
	t := infrav1.DockerMachinePoolReadyCondition
	pool := s.pool
	if !pool.DeletionTimestamp.IsZero() {
		return conditions.False(t, infrav1.DockerMachinePoolNotReadyReason, "DockerMachinePool is being deleted")
	}
	c := conditions.Get(pool, infrav1.DockerMachinePoolReplicasReadyCondition)
	switch {
	case c == nil:
		return conditions.False(t, infrav1.DockerMachinePoolNotReadyReason, infrav1.DockerMachinePoolReplicasReadyCondition+" not reported yet")
	case c.Status == metav1.ConditionTrue:
		return conditions.True(t, infrav1.DockerMachinePoolReadyReason, "")
	case c.Message != "":
		return conditions.False(t, infrav1.DockerMachinePoolNotReadyReason, c.Message)
	}
	return conditions.False(t, infrav1.DockerMachinePoolNotReadyReason, infrav1.DockerMachinePoolReplicasReadyCondition+" is "+string(c.Status))
}

// rollingOutMessage says how far the replacement of the instances of an older template or
// version is, and what it waits for.
func rollingOutMessage(s *scope) string {
	var outdated []string
	for _, in := range s.instances {
		if in.outdated {
			outdated = append(outdated, in.container.Name)
		}
	}
	msg := fmt.Sprintf("Replacing %d of %d instances made from an older spec.template or version (new ones run %s), one at a time: %s",
		len(outdated), len(s.instances), s.spec.image, strings.Join(outdated, ", "))
	if s.rolloutWait != "" {
		msg += "; " + s.rolloutWait
	}
	return msg
}
