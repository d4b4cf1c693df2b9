// Package rollout implements `capstanctl rollout`: restarting, pausing, resuming and following
// the rollout of a MachineDeployment or a KubeadmControlPlane, as upstream clusterctl's
// `alpha rollout` does. It owns the RESOURCE argument (kind/name), the few spec fields and
// annotations those commands write, and the reading of rollout progress from status.
//
// The core must not compile the kubeadm provider's types in, so a KubeadmControlPlane is read as
// unstructured: its replica counts through the ControlPlane contract accessors, and the two
// KubeadmControlPlane fields the contract does not define (spec.rollout.after and
// status.observedGeneration) at their v1beta2 paths. A MachineDeployment is read with the core
// types.
//
// Pausing follows upstream v1beta2: a MachineDeployment is paused by spec.paused (its controller
// still scales it but rolls nothing out), a KubeadmControlPlane by the cluster.x-k8s.io/paused
// annotation. Restart refuses an object paused either way, since nothing would roll out.
//
// A rollout is complete when the controller has observed the latest spec
// (status.observedGeneration) and status.upToDateReplicas, availableReplicas, readyReplicas and
// replicas all equal spec.replicas (no outdated Machine is left). It is stuck, and status fails
// at once instead of waiting for --timeout, when it cannot progress without a user: the object is
// paused (by spec.paused, the annotation, or a Paused condition that is True, e.g. because its
// Cluster is paused) or being deleted.
//
// The package writes nothing but spec.rollout.after, spec.paused and the paused annotation, each
// with a merge patch of that one field.
package rollout
