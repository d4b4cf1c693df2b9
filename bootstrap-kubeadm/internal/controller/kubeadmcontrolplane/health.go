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

package kubeadmcontrolplane

import (
	"context"
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	controlplanev1 "capstan.dev/bootstrap-kubeadm/api/controlplane/v1beta2"
	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/conditions"
	"capstan.dev/contracts/etcd"
	"capstan.dev/contracts/remote"
	"capstan.dev/contracts/secret"
)

// MachineConditionsFieldManager owns, through server-side apply, the health conditions this
// controller sets on its Machines (the entries of status.conditions of the types in
// machineHealthConditions): every other entry stays with the core's controllers.
const MachineConditionsFieldManager = "capstan-kubeadmcontrolplane"

// staticPod is one control plane component kubeadm runs as a static Pod <prefix><node>.
type staticPod struct {
	prefix, condition, component string
}

// staticPods are the components whose Pods give the per-Machine conditions, in condition order.
var staticPods = []staticPod{
	{"kube-apiserver-", controlplanev1.KubeadmControlPlaneMachineAPIServerPodHealthyCondition, "kube-apiserver"},
	{"kube-controller-manager-", controlplanev1.KubeadmControlPlaneMachineControllerManagerPodHealthyCondition, "kube-controller-manager"},
	{"kube-scheduler-", controlplanev1.KubeadmControlPlaneMachineSchedulerPodHealthyCondition, "kube-scheduler"},
	{"etcd-", controlplanev1.KubeadmControlPlaneMachineEtcdPodHealthyCondition, "etcd"},
}

// machineHealthConditions are the condition types reconcileHealth writes on every Machine with a
// Node: one per static Pod (the etcd Pod only with stacked etcd), then, with stacked etcd, the
// etcd member's.
func machineHealthConditions(withEtcd bool) []string {
	out := make([]string, 0, len(staticPods)+1)
	for _, sp := range staticPods {
		if sp.component != "etcd" || withEtcd {
			out = append(out, sp.condition)
		}
	}
	if withEtcd {
		out = append(out, controlplanev1.KubeadmControlPlaneMachineEtcdMemberHealthyCondition)
	}
	return out
}

// reconcileHealth runs once the control plane is initialized: it reads the static Pods of every
// Machine with a Node (live: workload caches never hold Pods), reconciles the etcd members, and
// writes each Machine's health conditions. A workload cluster that cannot be reached is waited
// for (the ClusterCache's source brings us back on connect); the Machines keep what they had.
func (r *Reconciler) reconcileHealth(ctx context.Context, s *scope) (ctrl.Result, bool, error) {
	if !initialized(s) {
		return ctrl.Result{}, false, nil
	}
	c := s.cluster
	wc, err := r.Workload.GetUncachedClient(ctx, client.ObjectKeyFromObject(c))
	if errors.Is(err, remote.ErrClusterNotConnected) {
		s.workloadWait = fmt.Sprintf("Waiting for the connection to the workload cluster of Cluster %s (through Secret %s)",
			c.Name, secret.Name(c.Name, secret.Kubeconfig))
		return ctrl.Result{}, false, nil
	}
	if err != nil {
		return ctrl.Result{}, false, err
	}
	s.health = map[string][]metav1.Condition{}
	for _, m := range s.machines {
		if hasNode(m) {
			s.health[m.Name] = podConditions(ctx, wc, m.Status.NodeRef.Name, s.etcdManaged())
		}
	}
	var res ctrl.Result
	if s.etcdManaged() {
		if res, err = r.reconcileEtcdMembers(ctx, s); err != nil {
			return ctrl.Result{}, false, err
		}
	}
	for _, m := range s.machines {
		if !hasNode(m) {
			continue
		}
		if s.etcdManaged() {
			s.health[m.Name] = append(s.health[m.Name], etcdMemberCondition(s, m))
		}
		for _, c := range s.health[m.Name] {
			if c.Status != metav1.ConditionTrue {
				// Nothing watches Pods or etcd in a workload cluster: look again while unhealthy.
				res = sooner(res, ctrl.Result{RequeueAfter: r.WaitRequeue})
			}
		}
	}
	return res, false, r.applyMachineHealth(ctx, s)
}

// podConditions reads the static Pods of node and turns each into its condition; the etcd Pod
// only when etcd runs on the control plane nodes (withEtcd).
func podConditions(ctx context.Context, wc client.Reader, node string, withEtcd bool) []metav1.Condition {
	out := make([]metav1.Condition, 0, len(staticPods))
	for _, sp := range staticPods {
		if sp.component == "etcd" && !withEtcd {
			continue
		}
		key := client.ObjectKey{Namespace: metav1.NamespaceSystem, Name: sp.prefix + node}
		pod := &corev1.Pod{}
		err := wc.Get(ctx, key, pod)
		switch {
		case apierrors.IsNotFound(err):
			out = append(out, conditions.False(sp.condition, controlplanev1.KubeadmControlPlaneMachinePodDoesNotExistReason,
				fmt.Sprintf("Pod %s does not exist: kubeadm runs %s as a static Pod from /etc/kubernetes/manifests on the node; check the kubelet there", key, sp.component)))
		case err != nil:
			out = append(out, conditions.Unknown(sp.condition, controlplanev1.KubeadmControlPlaneInspectionFailedReason,
				fmt.Sprintf("Reading Pod %s failed: %v", key, err)))
		default:
			out = append(out, podCondition(sp.condition, key, pod))
		}
	}
	return out
}

// podCondition judges one static Pod as upstream does: Running and Ready is healthy; a
// container waiting in a crash or image error, or a failed Pod, has failed; anything else is
// still provisioning.
func podCondition(t string, key client.ObjectKey, pod *corev1.Pod) metav1.Condition {
	for _, cs := range pod.Status.ContainerStatuses {
		if w := cs.State.Waiting; w != nil {
			switch w.Reason {
			case "CrashLoopBackOff", "ErrImagePull", "ImagePullBackOff", "CreateContainerConfigError", "CreateContainerError", "RunContainerError":
				return conditions.False(t, controlplanev1.KubeadmControlPlaneMachinePodFailedReason,
					fmt.Sprintf("Pod %s: container %s is waiting: %s %s", key, cs.Name, w.Reason, w.Message))
			}
		}
	}
	switch pod.Status.Phase {
	case corev1.PodFailed, corev1.PodSucceeded:
		return conditions.False(t, controlplanev1.KubeadmControlPlaneMachinePodFailedReason,
			fmt.Sprintf("Pod %s is %s: %s", key, pod.Status.Phase, pod.Status.Message))
	case corev1.PodRunning:
		for _, c := range pod.Status.Conditions {
			if c.Type == corev1.PodReady && c.Status == corev1.ConditionTrue {
				return conditions.True(t, controlplanev1.KubeadmControlPlaneMachinePodRunningReason, "")
			}
		}
		return conditions.False(t, controlplanev1.KubeadmControlPlaneMachinePodProvisioningReason,
			fmt.Sprintf("Pod %s is running but not ready (its readiness probe fails)", key))
	}
	return conditions.False(t, controlplanev1.KubeadmControlPlaneMachinePodProvisioningReason,
		fmt.Sprintf("Pod %s is %s", key, orDefault(string(pod.Status.Phase), "Pending")))
}

// etcdMemberCondition is a Machine's EtcdMemberHealthy: its Node has a member of its name, and
// that member is healthy (checkMembersHealth): listed alone is not healthy.
func etcdMemberCondition(s *scope, m *clusterv1.Machine) metav1.Condition {
	t := controlplanev1.KubeadmControlPlaneMachineEtcdMemberHealthyCondition
	node := m.Status.NodeRef.Name
	switch {
	case s.etcd == nil || s.etcd.err != nil:
		msg := "The etcd members could not be read"
		if s.etcd != nil {
			msg += ": " + s.etcd.err.Error()
		}
		return conditions.Unknown(t, controlplanev1.KubeadmControlPlaneHealthUnknownReason, msg)
	}
	_, listed := s.etcd.memberNamed(node)
	if ok, why := s.etcd.memberHealthy(node); ok {
		return conditions.True(t, controlplanev1.KubeadmControlPlaneHealthyReason, "")
	} else if listed {
		return conditions.False(t, controlplanev1.KubeadmControlPlaneNotHealthyReason,
			fmt.Sprintf("%s; check the etcd Pod %s on the node", why, klog.KRef(metav1.NamespaceSystem, etcd.PodName(node))))
	}
	if deleting(m) {
		return conditions.False(t, controlplanev1.KubeadmControlPlaneNotHealthyReason,
			fmt.Sprintf("The etcd member of Node %s was removed: the Machine is being deleted", node))
	}
	return conditions.False(t, controlplanev1.KubeadmControlPlaneNotHealthyReason,
		fmt.Sprintf("etcd has no member named %s (members: %s): kubeadm join adds it; check the etcd Pod %s on the node",
			node, membersMessage(s.etcd.members), klog.KRef(metav1.NamespaceSystem, etcd.PodName(node))))
}

// applyMachineHealth writes each Machine's health conditions that changed, with one
// server-side apply of status.conditions under MachineConditionsFieldManager: the entries of
// the core's Machine controller (and of a MachineHealthCheck) are left as they are, and theirs
// never touch ours.
func (r *Reconciler) applyMachineHealth(ctx context.Context, s *scope) error {
	var errs []error
	for _, m := range s.machines {
		want, ok := s.health[m.Name]
		if !ok {
			continue
		}
		changed := false
		stamped := make([]metav1.Condition, 0, len(want))
		for _, c := range want {
			c = conditions.Stamp(m, c, s.now)
			if cur := conditions.Get(m, c.Type); cur == nil || !conditions.Same(*cur, c) {
				changed = true
			}
			stamped = append(stamped, c)
		}
		if !changed {
			continue
		}
		ctrl.LoggerFrom(ctx).V(2).Info("Setting the health conditions of Machine", "Machine", klog.KObj(m))
		if err := r.applyConditions(ctx, m, stamped); err != nil {
			errs = append(errs, err)
			continue
		}
		for _, c := range stamped {
			conditions.Set(m, c)
		}
	}
	return errors.Join(errs...)
}

// applyConditions server-side applies the conditions to the Machine's status.
func (r *Reconciler) applyConditions(ctx context.Context, m *clusterv1.Machine, conds []metav1.Condition) error {
	err := conditions.Apply(ctx, r.Client, m, clusterv1.GroupVersion.String(), "Machine", conds,
		conditions.ApplyOptions{FieldManager: MachineConditionsFieldManager})
	if apierrors.IsNotFound(err) {
		return nil // gone since it was read: a status apply never creates it
	}
	if err != nil {
		return fmt.Errorf("setting the health conditions of Machine %s: %w", m.Name, err)
	}
	return nil
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
