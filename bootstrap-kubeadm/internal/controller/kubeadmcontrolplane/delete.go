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
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	controlplanev1 "capstan.dev/bootstrap-kubeadm/api/controlplane/v1beta2"
	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
)

// reconcileDelete deletes every Machine of the KubeadmControlPlane and removes the finalizer once
// they are all gone. The core's Machine controller drains each Machine's Node and deletes its
// infrastructure; the kubeconfig Secret goes with the KubeadmControlPlane through garbage
// collection, the certificates with the Cluster. As upstream, nothing of the control plane goes
// while the Cluster still has worker Machines or MachinePools: their drain and Node deletion
// need the workload API server.
func (r *Reconciler) reconcileDelete(ctx context.Context, s *scope) (ctrl.Result, error) {
	log := ctrl.LoggerFrom(ctx)
	if !controllerutil.ContainsFinalizer(s.kcp, controlplanev1.KubeadmControlPlaneFinalizer) {
		return ctrl.Result{}, nil
	}
	if s.cluster != nil {
		workers, err := r.workersOf(ctx, s)
		if err != nil {
			return ctrl.Result{}, err
		}
		if workers != "" {
			s.workersWait = workers
			// Worker deletions are not watched (nor is every Machine of the Cluster mapped to
			// its control plane): check again after WaitRequeue.
			return ctrl.Result{RequeueAfter: r.WaitRequeue}, nil
		}
	}
	if len(s.machines) == 0 {
		// The cache may not have seen a Machine created just before the deletion started: ask the
		// API server before letting the KubeadmControlPlane go, or that Machine would be orphaned.
		if err := r.readMachines(ctx, s, r.APIReader); err != nil {
			return ctrl.Result{}, err
		}
	}
	if len(s.machines) == 0 {
		log.Info("All control plane Machines are gone, removing the finalizer")
		controllerutil.RemoveFinalizer(s.kcp, controlplanev1.KubeadmControlPlaneFinalizer)
		return ctrl.Result{}, nil
	}
	var errs []error
	for _, m := range s.machines {
		if deleting(m) {
			// The whole etcd cluster goes: no member is removed, and the core's Machine
			// controller must not wait on a hook nothing would run any more.
			errs = append(errs, r.removePreTerminateHook(ctx, m))
			continue
		}
		log.Info("Deleting Machine", "Machine", klog.KObj(m))
		if err := r.Client.Delete(ctx, m); err != nil && !apierrors.IsNotFound(err) {
			errs = append(errs, fmt.Errorf("deleting Machine %s: %w", m.Name, err))
		}
	}
	// Machine deletions bring the next reconcile through the Machine watch; their hooks go then.
	return ctrl.Result{}, errors.Join(errs...)
}

// workersOf names the Cluster's Machines that are not this control plane's and its MachinePools,
// a few of each with a count; empty when there are none.
func (r *Reconciler) workersOf(ctx context.Context, s *scope) (string, error) {
	inCluster := []client.ListOption{client.InNamespace(s.cluster.Namespace), client.MatchingLabels{clusterv1.ClusterNameLabel: s.cluster.Name}}
	machines := &clusterv1.MachineList{}
	if err := r.Client.List(ctx, machines, inCluster...); err != nil {
		return "", fmt.Errorf("listing the Machines of Cluster %s: %w", s.cluster.Name, err)
	}
	var workers []*clusterv1.Machine
	for i := range machines.Items {
		if !metav1.IsControlledBy(&machines.Items[i], s.kcp) {
			workers = append(workers, &machines.Items[i])
		}
	}
	// MachinePools are read live: they are looked at only while the control plane is deleted, so
	// an informer would cache every MachinePool for nothing the rest of the time.
	pools := &clusterv1.MachinePoolList{}
	if err := r.APIReader.List(ctx, pools, inCluster...); err != nil {
		return "", fmt.Errorf("listing the MachinePools of Cluster %s: %w", s.cluster.Name, err)
	}
	var parts []string
	if len(workers) > 0 {
		parts = append(parts, "worker "+machineNames(workers))
	}
	if n := len(pools.Items); n > 0 {
		names := make([]string, 0, n)
		for _, p := range pools.Items {
			names = append(names, p.Name)
		}
		parts = append(parts, "MachinePools "+listNames(names))
	}
	return strings.Join(parts, " and "), nil
}
