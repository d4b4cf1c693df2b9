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

// Package kubeadmcontrolplane reconciles KubeadmControlPlanes: it runs a Cluster's control plane on
// Machines it creates, each bootstrapped by a KubeadmConfig (the first with "kubeadm init", the
// others with "kubeadm join") and an InfraMachine cloned from
// spec.machineTemplate.spec.infrastructureRef. Under the ControlPlane contract it owns the
// <cluster>-kubeconfig Secret (an admin kubeconfig whose client certificate is rotated at half its
// one-year life) and makes sure the cluster certificates exist before the control plane is
// initialized.
//
// Machines are created one per reconcile, and only while every existing Machine has a Node: the
// first while the Cluster's control plane is not initialized, the others once the workload cluster
// holds kube-system/kubeadm-config. Scale down and rollout (maxSurge 0 or 1) first choose the
// Machine to remove (delete-machine annotation, then outdated, then the oldest in the failure
// domain with the most Machines), then run the preflight checks without that Machine, then delete
// it, so a controller that stopped half-way through removing a Machine is never blocked by that
// very Machine. Its etcd member goes later, as upstream HEAD does (preterminate.go): every Machine
// carries the pre-terminate hook PreTerminateHookCleanupAnnotation; once the core's Machine
// controller has drained a deleting Machine and waits on its hooks (Deleting reason
// WaitingForPreTerminateHook, ours last), its member is removed through another member (its
// leadership moved away first), if the healthy members left keep quorum, and then the hook. A
// member is removed only from a deleting Machine, so the preflight checks, which skip deleting
// Machines, are never blocked by a member this controller removed. Deleting the KubeadmControlPlane
// drops the hooks without touching etcd.
//
// A Machine is outdated, and replaced by a rollout, when its version differs from spec.version, it
// predates spec.rollout.after, its certificates expire within spec.rollout.before.
// certificatesExpiryDays (certificates-expiry annotation), its InfraMachine was cloned from another
// template than machineTemplate.spec.infrastructureRef (cloned-from annotations), or its
// KubeadmConfig differs from the one the controller would create now (outdated.go): the init
// Machine is compared without joinConfiguration and the others without initConfiguration, the join
// discovery is ignored and empty objects equal unset ones, as upstream. What cannot be read never
// makes a Machine outdated. While certificatesExpiryDays is set, a Machine with a Node and no known
// expiry gets the expiry of its API server's serving certificate (a TLS handshake through a
// port-forward to kube-apiserver-<node>, as upstream reads it) recorded on its KubeadmConfig
// (certificates_expiry.go). machineTemplate.metadata and the deletion timeouts are synced in place
// onto the Machines (and the metadata onto their KubeadmConfigs and InfraMachines), each object
// recording the template keys it got so that only those are removed later (metadata.go).
//
// Once the control plane is initialized, every reconcile reads the static Pods
// kube-system/{kube-apiserver,kube-controller-manager,kube-scheduler,etcd}-<node> of each Machine
// (live reads: workload caches hold no Pods) and the etcd members, reached through the workload API
// server by a port-forward to etcd-<node> (capstan.dev/contracts/etcd). The expected members are the nodeRef
// names of the Machines (upstream #3971), never a Node label list; members no Machine accounts for
// are removed one per pass, never the last, only with quorum kept, and not at all while a Machine
// lacks its nodeRef (etcd.go). Each member's health is asked of that member alone, through its own
// Pod (etcdhealth.go, as upstream's EtcdMemberHealthy): it must answer Status as itself without
// errors, see the same member list, and have no alarm raised; a member that cannot be reached is
// unhealthy. Every removal of a member (scale down, remediation, pre-terminate hook, stale member)
// requires the healthy members left to keep their quorum. Each Machine gets the conditions
// APIServerPodHealthy, ControllerManagerPodHealthy, SchedulerPodHealthy, EtcdPodHealthy and
// EtcdMemberHealthy, written by server-side apply of those status.conditions entries only, under
// MachineConditionsFieldManager (as the core's MachineHealthCheck does), so the core's Machine
// controller keeps its own; the KubeadmControlPlane aggregates them in
// ControlPlaneComponentsHealthy and EtcdClusterHealthy. The preflight checks require every other
// Machine's etcd member to be healthy (upstream's preflight on EtcdMemberHealthy); static Pod
// health is reported but does not block. With clusterConfiguration.etcd.external none of the etcd
// work happens, as upstream: no member is read, reconciled, removed or guarded, the Machines get
// no etcd conditions, and EtcdClusterHealthy is True saying that etcd is external.
//
// Machines are named by spec.machineNaming.template (naming.go) and get this controller's own
// readiness gates (APIServerPodHealthy, ControllerManagerPodHealthy, SchedulerPodHealthy and,
// with stacked etcd, EtcdPodHealthy and EtcdMemberHealthy, as upstream: a control plane Machine is
// Ready only while its components are healthy), then machineTemplate.spec.readinessGates, and
// the template's taints; all are kept in place like the template's metadata and deletion
// timeouts (metadata.go), without a rollout.
//
// Remediation: a Machine a MachineHealthCheck marked (HealthCheckSucceeded=False and
// OwnerRemediated=False) is deleted, oldest first and one at a time (its etcd member goes at its
// pre-terminate hook), and the scale up that follows replaces it. Once the control plane is
// initialized it is never done to the only Machine, while another Machine is deleting, or when
// the healthy members left would be below quorum; the Remediating condition says which. Before
// it is initialized, a failed first Machine is deleted and created again (kubeadm init anew), as
// upstream. A remediation annotation that is not the JSON
// record stops remediation with a Remediating message naming it (never read as "no record"). The
// remediation is recorded on the KubeadmControlPlane (remediation-in-progress, written before the
// deletion) and carried by the replacement (remediation-for): a replacement that fails within
// minHealthyPeriodSeconds is a retry, retries are spaced by retryPeriodSeconds and stop past
// maxRetry.
//
// Deleting the KubeadmControlPlane deletes nothing while the Cluster still has worker Machines or
// MachinePools (Deleting reason WaitingForWorkersDeletion, as upstream): their drain and Node
// deletion need the control plane. An InfraMachine or KubeadmConfig created for a Machine that was
// never created (the controller stopped in between) is deleted (orphans.go).
//
// Not in this package yet: the kubeadm-config ClusterStatus cleanup of removed members, adoption of
// orphan Machines, in-place updates.
//
// In the workload cluster it writes, as upstream does: kube-system/kubeadm-config's
// ClusterConfiguration (kubernetesVersion, imageRepository, featureGates, apiServer,
// controllerManager, scheduler, etcd, certificateValidityPeriod, encryptionAlgorithm: the
// spec's) before a Machine of a rollout joins, whatever made the Machines outdated: kubeadm join
// builds the joining node's static Pods from it (clusterconfiguration.go); the kube-proxy
// DaemonSet's image tag once no Machine is outdated (workloadversion.go); CoreDNS (coredns.go).
// It must not write a Machine beyond its own
// status conditions and its pre-terminate hook annotation, must not modify a <cluster>-kubeconfig Secret it does not control
// (a user-supplied one is left alone), and never caches Secrets or ConfigMaps: it reads them
// through the manager's uncached APIReader.
package kubeadmcontrolplane
