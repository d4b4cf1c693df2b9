/*
Copyright 2026 The Capstan Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package v1beta2

import (
	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
)

// DockerCluster's Ready condition and reasons. The Cluster controller mirrors Ready into the
// Cluster's InfrastructureReady condition, so its message is what users see on the Cluster.
const (
	// DockerClusterReadyCondition is true when the DockerCluster is not deleting and its load
	// balancer is available.
	DockerClusterReadyCondition = clusterv1.ReadyCondition

	// DockerClusterReadyReason is used when the DockerCluster is ready.
	DockerClusterReadyReason = clusterv1.ReadyReason

	// DockerClusterNotReadyReason is used when the DockerCluster is not ready; the message says why.
	DockerClusterNotReadyReason = clusterv1.NotReadyReason
)

// DockerCluster's LoadBalancerAvailable condition and reasons.
const (
	// DockerClusterLoadBalancerAvailableCondition is true when the <cluster>-lb container runs,
	// publishes the API port and serves the current configuration.
	DockerClusterLoadBalancerAvailableCondition = "LoadBalancerAvailable"

	// DockerClusterLoadBalancerAvailableReason is used when the load balancer is available.
	DockerClusterLoadBalancerAvailableReason = clusterv1.AvailableReason

	// DockerClusterLoadBalancerNotAvailableReason is used while the load balancer is being
	// created or started.
	DockerClusterLoadBalancerNotAvailableReason = clusterv1.NotAvailableReason

	// DockerClusterLoadBalancerNameTakenReason is used when a container with the load balancer's
	// name exists but does not carry this provider's labels for this cluster: the provider never
	// touches it, the user must remove or rename it.
	DockerClusterLoadBalancerNameTakenReason = "NameTaken"

	// DockerClusterLoadBalancerInternalErrorReason is used on unexpected errors talking to the
	// Docker Engine; the message carries the error.
	DockerClusterLoadBalancerInternalErrorReason = clusterv1.InternalErrorReason

	// DockerClusterWaitingForClusterReason is used while the DockerCluster has no owner Cluster:
	// the core's Cluster controller sets that owner reference.
	DockerClusterWaitingForClusterReason = "WaitingForCluster"
)

// DockerCluster's Deleting condition and reasons.
const (
	// DockerClusterDeletingCondition reports the progress of the DockerCluster's deletion.
	DockerClusterDeletingCondition = clusterv1.DeletingCondition

	// DockerClusterNotDeletingReason is used when the DockerCluster has no deletionTimestamp.
	DockerClusterNotDeletingReason = clusterv1.NotDeletingReason

	// DockerClusterDeletingReason is used while the load balancer is being removed.
	DockerClusterDeletingReason = clusterv1.DeletingReason

	// DockerClusterDeletingWaitingForMachinesReason is used while DockerMachines of the cluster
	// still exist: the load balancer stays until the last node is gone.
	DockerClusterDeletingWaitingForMachinesReason = "WaitingForDockerMachines"
)

// DockerMachine's Ready condition and reasons. The Machine controller mirrors Ready into the
// Machine's InfrastructureReady condition.
const (
	// DockerMachineReadyCondition is true when the node container runs and is bootstrapped.
	DockerMachineReadyCondition = clusterv1.ReadyCondition

	// DockerMachineReadyReason is used when the DockerMachine is ready.
	DockerMachineReadyReason = clusterv1.ReadyReason

	// DockerMachineNotReadyReason is used when the DockerMachine is not ready.
	DockerMachineNotReadyReason = clusterv1.NotReadyReason
)

// DockerMachine's ContainerProvisioned condition and reasons.
const (
	// DockerMachineContainerProvisionedCondition is true when the node container exists and runs.
	DockerMachineContainerProvisionedCondition = "ContainerProvisioned"

	// DockerMachineContainerProvisionedReason is used when the node container runs.
	DockerMachineContainerProvisionedReason = clusterv1.ProvisionedReason

	// DockerMachineWaitingForMachineReason is used while the DockerMachine has no owner Machine:
	// the core's Machine controller sets that owner reference.
	DockerMachineWaitingForMachineReason = "WaitingForMachine"

	// DockerMachineWaitingForClusterInfrastructureReason is used while the Cluster's
	// infrastructure (the load balancer) is not provisioned.
	DockerMachineWaitingForClusterInfrastructureReason = clusterv1.WaitingForClusterInfrastructureReadyReason

	// DockerMachineWaitingForBootstrapDataReason is used while the Machine has no
	// spec.bootstrap.dataSecretName.
	DockerMachineWaitingForBootstrapDataReason = clusterv1.WaitingForBootstrapDataReason

	// DockerMachineImageNotFoundReason is used when the node image is not on the Docker Engine;
	// the message names the make command that builds it.
	DockerMachineImageNotFoundReason = "ImageNotFound"

	// DockerMachineNameTakenReason is used when a container with the node's name exists that is
	// not this DockerMachine's.
	DockerMachineNameTakenReason = "NameTaken"

	// DockerMachineContainerDeletedReason is used when the node container, once created, no
	// longer exists: the provider does not re-create it (a MachineHealthCheck remediates).
	DockerMachineContainerDeletedReason = "ContainerDeleted"

	// DockerMachineInternalErrorReason is used on unexpected errors; the message carries them.
	DockerMachineInternalErrorReason = clusterv1.InternalErrorReason
)

// DockerMachine's BootstrapExecSucceeded condition and reasons.
const (
	// DockerMachineBootstrapExecSucceededCondition is true once the bootstrap data ran to the end
	// in the node container and wrote /run/cluster-api/bootstrap-success.complete. It never goes
	// back: the provider bootstraps a node once.
	DockerMachineBootstrapExecSucceededCondition = "BootstrapExecSucceeded"

	// DockerMachineBootstrapExecSucceededReason is used once the bootstrap succeeded.
	DockerMachineBootstrapExecSucceededReason = "Succeeded"

	// DockerMachineBootstrapWaitingForContainerReason is used before the node container runs.
	DockerMachineBootstrapWaitingForContainerReason = "WaitingForContainer"

	// DockerMachineBootstrappingReason is used while the bootstrap commands run.
	DockerMachineBootstrappingReason = "Bootstrapping"

	// DockerMachineBootstrapFailedReason is used when a bootstrap command failed or the bootstrap
	// data cannot be executed; the message carries the command and the tail of its output.
	DockerMachineBootstrapFailedReason = "BootstrapFailed"

	// DockerMachineBootstrapTimedOutReason is used when the bootstrap ran longer than
	// spec.bootstrapTimeout; the message carries the running command and its output's tail.
	DockerMachineBootstrapTimedOutReason = "BootstrapTimedOut"

	// DockerMachinePreLoadImageNotFoundReason is used while an image of spec.preLoadImages is
	// not on the Docker Engine: nothing is pulled, the bootstrap waits until the user builds or
	// loads it. The message names the images.
	DockerMachinePreLoadImageNotFoundReason = "PreLoadImageNotFound"

	// DockerMachinePreLoadFailedReason is used when importing an image of spec.preLoadImages into
	// the node's containerd failed; it is retried, and the message carries the import's output.
	DockerMachinePreLoadFailedReason = "PreLoadFailed"
)

// DockerMachine's Deleting condition and reasons.
const (
	// DockerMachineDeletingCondition reports the progress of the DockerMachine's deletion.
	DockerMachineDeletingCondition = clusterv1.DeletingCondition

	// DockerMachineNotDeletingReason is used when the DockerMachine has no deletionTimestamp.
	DockerMachineNotDeletingReason = clusterv1.NotDeletingReason

	// DockerMachineDeletingReason is used while the node container is being removed.
	DockerMachineDeletingReason = clusterv1.DeletingReason
)

// DockerMachinePool's Ready condition and reasons. The MachinePool controller mirrors Ready into
// the MachinePool's InfrastructureReady condition.
const (
	// DockerMachinePoolReadyCondition is true when the pool is not deleting and ReplicasReady is
	// true; otherwise its message is the first thing missing.
	DockerMachinePoolReadyCondition = clusterv1.ReadyCondition

	// DockerMachinePoolReadyReason is used when the DockerMachinePool is ready.
	DockerMachinePoolReadyReason = clusterv1.ReadyReason

	// DockerMachinePoolNotReadyReason is used when the DockerMachinePool is not ready.
	DockerMachinePoolNotReadyReason = clusterv1.NotReadyReason
)

// DockerMachinePool's ReplicasReady condition and reasons (upstream CAPD's condition name).
const (
	// DockerMachinePoolReplicasReadyCondition is true when the pool has as many node containers
	// as the MachinePool's spec.replicas, every one bootstrapped and its Node carrying the
	// providerID.
	DockerMachinePoolReplicasReadyCondition = "ReplicasReady"

	// DockerMachinePoolReplicasReadyReason is used when every replica is ready.
	DockerMachinePoolReplicasReadyReason = clusterv1.ReadyReason

	// DockerMachinePoolWaitingForMachinePoolReason is used while the DockerMachinePool has no
	// owner MachinePool using it: the core's MachinePool controller sets that owner reference.
	DockerMachinePoolWaitingForMachinePoolReason = "WaitingForMachinePool"

	// DockerMachinePoolWaitingForClusterInfrastructureReason is used while the Cluster's
	// infrastructure (the load balancer) is not provisioned.
	DockerMachinePoolWaitingForClusterInfrastructureReason = clusterv1.WaitingForClusterInfrastructureReadyReason

	// DockerMachinePoolWaitingForBootstrapDataReason is used while the MachinePool has no
	// spec.template.spec.bootstrap.dataSecretName.
	DockerMachinePoolWaitingForBootstrapDataReason = clusterv1.WaitingForBootstrapDataReason

	// DockerMachinePoolImageNotFoundReason is used when the node image is not on the Docker
	// Engine; the message names the make command that builds it.
	DockerMachinePoolImageNotFoundReason = "ImageNotFound"

	// DockerMachinePoolScalingUpReason is used while instances are created or bootstrapped.
	DockerMachinePoolScalingUpReason = clusterv1.ScalingUpReason

	// DockerMachinePoolRollingOutReason is used while instances of an older template or version
	// are replaced.
	DockerMachinePoolRollingOutReason = clusterv1.RollingOutReason

	// DockerMachinePoolBootstrapFailedReason is used when the bootstrap of an instance failed or
	// timed out; the message names the instance and carries the tail of the commands' output.
	DockerMachinePoolBootstrapFailedReason = "BootstrapFailed"

	// DockerMachinePoolPreLoadImageNotFoundReason is used while an image of
	// spec.template.preLoadImages is not on the Docker Engine: nothing is pulled, the instances'
	// bootstrap waits until the user builds or loads it. The message names the images.
	DockerMachinePoolPreLoadImageNotFoundReason = "PreLoadImageNotFound"

	// DockerMachinePoolPreLoadFailedReason is used when importing an image of
	// spec.template.preLoadImages into an instance's containerd failed; it is retried, and the
	// message names the instance and carries the import's output.
	DockerMachinePoolPreLoadFailedReason = "PreLoadFailed"

	// DockerMachinePoolWaitingForNodesReason is used while the Nodes of bootstrapped instances
	// have not registered or do not carry their providerID yet.
	DockerMachinePoolWaitingForNodesReason = "WaitingForNodes"

	// DockerMachinePoolInternalErrorReason is used on unexpected errors; the message carries them.
	DockerMachinePoolInternalErrorReason = clusterv1.InternalErrorReason
)

// DockerMachinePool's Deleting condition and reasons.
const (
	// DockerMachinePoolDeletingCondition reports the progress of the DockerMachinePool's deletion.
	DockerMachinePoolDeletingCondition = clusterv1.DeletingCondition

	// DockerMachinePoolNotDeletingReason is used when the DockerMachinePool has no
	// deletionTimestamp.
	DockerMachinePoolNotDeletingReason = clusterv1.NotDeletingReason

	// DockerMachinePoolDeletingReason is used while the pool's node containers are being removed.
	DockerMachinePoolDeletingReason = clusterv1.DeletingReason
)
