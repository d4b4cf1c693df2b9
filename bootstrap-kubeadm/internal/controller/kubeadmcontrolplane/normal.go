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
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"capstan.dev/bootstrap-kubeadm/internal/certs"
	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/owner"
	"capstan.dev/contracts/remote"
	"capstan.dev/contracts/secret"
)

// kubeadmConfigMap is the ConfigMap "kubeadm init" writes into the workload cluster: once it
// exists, the control plane is initialized (as upstream judges it).
var kubeadmConfigMap = client.ObjectKey{Namespace: metav1.NamespaceSystem, Name: "kubeadm-config"}

// step is one step of reconcileNormal. It returns stop when nothing after it may run yet (the
// reason is recorded in the scope for the status).
type step func(ctx context.Context, s *scope) (res ctrl.Result, stop bool, err error)

// reconcileNormal runs the steps in order, upstream's: the Cluster, the Machines' metadata and
// the clones of Machines never created, the certificates, the kubeconfig, initialization, the health of the Machines and the etcd members, the etcd member of
// a deleting Machine (its pre-terminate hook), remediation, the version kubeadm and kube-proxy
// read in the workload cluster, the Machines, then CoreDNS.
func (r *Reconciler) reconcileNormal(ctx context.Context, s *scope) (ctrl.Result, error) {
	var result ctrl.Result
	for _, st := range []step{r.waitForCluster, r.syncMachines, r.sweepOrphanedClones, r.reconcileCertificates, r.reconcileKubeconfig, r.reconcileInitialized, r.reconcileHealth, r.reconcileEtcdSnapshots,
		r.reconcileCertificatesExpiry, r.reconcilePreTerminateHook, r.reconcileRemediation, r.reconcileWorkloadVersion, r.reconcileReplicas, r.reconcileCoreDNS} {
		res, stop, err := st(ctx, s)
		result = sooner(result, res)
		if err != nil {
			return ctrl.Result{}, err
		}
		if stop {
			return result, nil
		}
	}
	return result, nil
}

// sooner merges two results, keeping the earliest requeue.
func sooner(a, b ctrl.Result) ctrl.Result {
	switch {
	case a.RequeueAfter == 0:
		return b
	case b.RequeueAfter == 0 || a.RequeueAfter < b.RequeueAfter:
		return a
	default:
		return b
	}
}

// waitForCluster stops until the Cluster owns the control plane, its infrastructure is
// provisioned and it has a control plane endpoint. The Cluster watch brings us back.
func (r *Reconciler) waitForCluster(_ context.Context, s *scope) (ctrl.Result, bool, error) {
	c := s.cluster
	switch {
	case s.clusterWait != "":
	case !ptr.Deref(c.Status.Initialization.InfrastructureProvisioned, false):
		s.clusterWait = fmt.Sprintf("Waiting for Cluster %s to report status.initialization.infrastructureProvisioned (its infrastructure provider is still provisioning)", c.Name)
	case !c.Spec.ControlPlaneEndpoint.IsValid():
		s.clusterWait = fmt.Sprintf("Waiting for Cluster %s to have spec.controlPlaneEndpoint, the address of the API server the kubeconfig and joining nodes use", c.Name)
	}
	return ctrl.Result{}, s.clusterWait != "", nil
}

// reconcileCertificates makes sure the cluster certificates exist. Before the control plane is
// initialized the missing ones are generated; afterwards a new CA would split the cluster, so
// missing ones are only reported.
//
// They are owned by the Cluster, not by the KubeadmControlPlane as upstream does: the KubeadmConfig
// controller also generates them (for the Machine holding the init lock) with the Cluster as owner,
// and which of the two gets there first must not change who owns them. It also keeps the cluster's
// identity when the KubeadmControlPlane object is replaced.
func (r *Reconciler) reconcileCertificates(ctx context.Context, s *scope) (ctrl.Result, bool, error) {
	c := s.cluster
	key := client.ObjectKeyFromObject(c)
	plan := certs.PlanFor(s.kcp.Spec.KubeadmConfigSpec.ClusterConfiguration)
	var err error
	if !initialized(s) {
		_, err = certs.LookupOrGenerate(ctx, r.APIReader, r.Client, key, owner.ClusterReference(c), s.now, plan)
	} else {
		_, err = certs.LookupAll(ctx, r.APIReader, key, plan)
	}
	var missing *certs.MissingError
	switch {
	case errors.As(err, &missing):
		s.certs = &certsResult{missing: missing.Names}
		return ctrl.Result{RequeueAfter: r.WaitRequeue}, true, nil
	case err != nil:
		s.certs = &certsResult{err: err}
		return ctrl.Result{}, true, err
	}
	s.certs = &certsResult{}
	return ctrl.Result{}, false, nil
}

// reconcileInitialized records, once, that the workload cluster holds kube-system/kubeadm-config.
// Nothing watches ConfigMaps in a workload cluster, so while Machines exist it re-checks every
// WaitRequeue; a lost connection is waited for (the ClusterCache's source brings us back on
// connect). It never stops the Machines step: the first Machine is what initializes.
func (r *Reconciler) reconcileInitialized(ctx context.Context, s *scope) (ctrl.Result, bool, error) {
	if initialized(s) {
		return ctrl.Result{}, false, nil
	}
	c := s.cluster
	wc, err := r.Workload.GetClient(ctx, client.ObjectKeyFromObject(c))
	if errors.Is(err, remote.ErrClusterNotConnected) {
		s.initWait = fmt.Sprintf("Waiting for the connection to the workload cluster of Cluster %s (through Secret %s) to check for ConfigMap %s",
			c.Name, secret.Name(c.Name, secret.Kubeconfig), kubeadmConfigMap)
		return ctrl.Result{}, false, nil
	}
	if err != nil {
		return ctrl.Result{}, false, err
	}
	err = wc.Get(ctx, kubeadmConfigMap, &corev1.ConfigMap{})
	switch {
	case apierrors.IsNotFound(err):
		s.initWait = fmt.Sprintf("Waiting for kubeadm init to finish on the first Machine: the workload cluster has no ConfigMap %s yet", kubeadmConfigMap)
		if len(s.machines) == 0 {
			return ctrl.Result{}, false, nil // the Machine's creation brings us back
		}
		return ctrl.Result{RequeueAfter: r.WaitRequeue}, false, nil
	case err != nil:
		s.initWait = fmt.Sprintf("Reading ConfigMap %s in the workload cluster failed: %v", kubeadmConfigMap, err)
		return ctrl.Result{RequeueAfter: r.WaitRequeue}, false, nil
	}
	ctrl.LoggerFrom(ctx).Info("The control plane is initialized", "ConfigMap", kubeadmConfigMap)
	s.kcp.Status.Initialization.ControlPlaneInitialized = ptr.To(true)
	return ctrl.Result{}, false, nil
}

// initialized reports whether the control plane was found initialized; it never goes back.
func initialized(s *scope) bool {
	return ptr.Deref(s.kcp.Status.Initialization.ControlPlaneInitialized, false)
}

// clusterInitialized reports whether the Cluster says its control plane is initialized (the core
// copies it from this object, or judged it from Nodes before there was one).
func clusterInitialized(c *clusterv1.Cluster) bool {
	return ptr.Deref(c.Status.Initialization.ControlPlaneInitialized, false)
}

// until is how long from now to t, at least a second.
func until(now, t time.Time) time.Duration {
	return max(t.Sub(now), time.Second)
}
