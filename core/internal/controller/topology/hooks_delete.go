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
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	hooksv1 "capstan.dev/contracts/api/runtime/hooks/v1alpha1"
	"capstan.dev/contracts/patch"
	"capstan.dev/core/internal/runtime/tracking"
)

// deletingMessage is TopologyReconciled's message once the Cluster is being deleted (upstream's).
const deletingMessage = "Cluster is deleting"

// reconcileDelete is the topology controller's part of a Cluster's deletion, as upstream: the
// topology is no longer reconciled; until the Cluster has the ok-to-delete annotation, the
// BeforeClusterDelete handlers are asked whether the deletion may go on, and the Cluster
// controller and the ClusterResourceSetBinding controller delete nothing meanwhile. An answer
// with retryAfterSeconds > 0 holds the whole deletion (TopologyReconciled False, Deleting, naming
// the hook and its message) and asks again after that long; an allowing answer, or no handler
// registered, sets the annotation. A kill between the allowing answer and the annotation's write
// only costs another call.
func (r *Reconciler) reconcileDelete(ctx context.Context, c *clusterv1.Cluster) (res ctrl.Result, retErr error) {
	s := &scope{cluster: c, blocked: &blockedReason{clusterv1.ClusterTopologyReconciledDeletingReason, deletingMessage}}
	var err error
	if !tracking.IsOkToDelete(c) {
		// The annotation is written before the helper's snapshot, so the condition's write below
		// is based on the Cluster it produced.
		res, err = r.callBeforeClusterDelete(ctx, s)
	}
	helper, herr := patch.NewHelper(c, r.Client)
	if herr != nil {
		return ctrl.Result{}, herr
	}
	setStatus(s, err)
	r.endHold(s)
	if perr := helper.Patch(ctx, c); perr != nil && !apierrors.IsNotFound(perr) && err == nil {
		return ctrl.Result{}, fmt.Errorf("patching Cluster %s: %w", c.Name, perr)
	}
	return res, err
}

// callBeforeClusterDelete calls the BeforeClusterDelete handlers; a hold is recorded in s (the
// condition and an Event, once per hold), anything else sets the ok-to-delete annotation.
func (r *Reconciler) callBeforeClusterDelete(ctx context.Context, s *scope) (ctrl.Result, error) {
	c := s.cluster
	req := &hooksv1.BeforeClusterDeleteRequest{TypeMeta: hooksv1.TypeMeta(hooksv1.BeforeClusterDelete, "Request"), Cluster: hookCluster(c)}
	held, err := r.callHoldingHook(ctx, c, hooksv1.BeforeClusterDelete, req, func() hooksv1.Response { return &hooksv1.BeforeClusterDeleteResponse{} })
	if err != nil {
		return ctrl.Result{}, err
	}
	if held != nil {
		s.blocked.message = fmt.Sprintf("%s. Following hooks are blocking delete: %s: %s", deletingMessage, hooksv1.BeforeClusterDelete, held.message)
		r.recordHookBlocking(s, s.blocked.reason, s.blocked.message)
		return ctrl.Result{RequeueAfter: held.after}, nil
	}
	ctrl.LoggerFrom(ctx).Info("Marking the Cluster ok-to-delete: no BeforeClusterDelete hook holds its deletion")
	return ctrl.Result{}, tracking.MarkOkToDelete(ctx, r.Client, c)
}

// deletionStarted passes the update that sets a Cluster's deletionTimestamp (the Cluster watch
// otherwise filters on generation, annotations and labels).
var deletionStarted = predicate.Funcs{
	CreateFunc:  func(event.CreateEvent) bool { return false },
	DeleteFunc:  func(event.DeleteEvent) bool { return false },
	GenericFunc: func(event.GenericEvent) bool { return false },
	UpdateFunc: func(e event.UpdateEvent) bool {
		return e.ObjectOld != nil && e.ObjectNew != nil &&
			e.ObjectOld.GetDeletionTimestamp().IsZero() && !e.ObjectNew.GetDeletionTimestamp().IsZero()
	},
}
