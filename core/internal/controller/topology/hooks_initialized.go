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

package topology

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	hooksv1 "capstan.dev/contracts/api/runtime/hooks/v1alpha1"
	"capstan.dev/contracts/conditions"
	"capstan.dev/core/internal/runtime/tracking"
)

// trackAfterControlPlaneInitialized keeps upstream's promise of one AfterControlPlaneInitialized
// call per Cluster, after its control plane first comes up. A Cluster without infrastructureRef
// and controlPlaneRef is about to have its topology created: the hook is marked pending on it
// (the pending-hooks annotation) before anything is created, so a restart at any point still
// owes the call. A pending hook is called once the Cluster's ControlPlaneInitialized condition is
// True, and unmarked when every handler answered Success (without a handler it is just
// unmarked). The hook does not block: its answer only decides whether it is asked again.
//
// It runs before the reconcile's patch helper takes its snapshot: the annotation writes replace
// c with what the server stored, and the end-of-reconcile patch must be based on that.
func (r *Reconciler) trackAfterControlPlaneInitialized(ctx context.Context, c *clusterv1.Cluster) error {
	if r.Runtime == nil {
		return nil
	}
	if !c.Spec.InfrastructureRef.IsDefined() && !c.Spec.ControlPlaneRef.IsDefined() {
		return tracking.MarkPending(ctx, r.Client, c, hooksv1.AfterControlPlaneInitialized)
	}
	if !tracking.IsPending(c, hooksv1.AfterControlPlaneInitialized) || !controlPlaneInitialized(c) {
		return nil
	}
	req := &hooksv1.AfterControlPlaneInitializedRequest{
		TypeMeta: hooksv1.TypeMeta(hooksv1.AfterControlPlaneInitialized, "Request"), Cluster: hookCluster(c)}
	resp := &hooksv1.AfterControlPlaneInitializedResponse{}
	notes, err := r.Runtime.CallAll(ctx, hooksv1.AfterControlPlaneInitialized, c.Namespace, req, resp,
		func() hooksv1.Response { return &hooksv1.AfterControlPlaneInitializedResponse{} })
	for _, n := range notes {
		ctrl.LoggerFrom(ctx).Info("Runtime Extension call ignored", "note", n)
	}
	if err != nil {
		return err
	}
	return tracking.MarkDone(ctx, r.Client, c, hooksv1.AfterControlPlaneInitialized)
}

// controlPlaneInitialized says whether the Cluster controller found the control plane initialized.
func controlPlaneInitialized(c *clusterv1.Cluster) bool {
	cond := conditions.Get(c, clusterv1.ClusterControlPlaneInitializedCondition)
	return cond != nil && cond.Status == metav1.ConditionTrue
}

// controlPlaneInitializedChanged passes the status update that turns a Cluster's
// ControlPlaneInitialized condition True: a pending AfterControlPlaneInitialized is called then
// (the Cluster watch otherwise ignores status).
var controlPlaneInitializedChanged = predicate.Funcs{
	CreateFunc:  func(event.CreateEvent) bool { return false },
	DeleteFunc:  func(event.DeleteEvent) bool { return false },
	GenericFunc: func(event.GenericEvent) bool { return false },
	UpdateFunc: func(e event.UpdateEvent) bool {
		o, okO := e.ObjectOld.(*clusterv1.Cluster)
		n, okN := e.ObjectNew.(*clusterv1.Cluster)
		return okO && okN && !controlPlaneInitialized(o) && controlPlaneInitialized(n)
	},
}
