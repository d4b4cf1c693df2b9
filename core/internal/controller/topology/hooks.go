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
	"time"

	ctrl "sigs.k8s.io/controller-runtime"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	hooksv1 "capstan.dev/contracts/api/runtime/hooks/v1alpha1"
	"capstan.dev/core/internal/topology/clusterstate"
	"capstan.dev/core/internal/topology/patches"
)

// callBeforeClusterCreate calls the BeforeClusterCreate handlers (Runtime SDK) while the Cluster
// has neither an InfrastructureCluster nor a ControlPlane, i.e. before any topology object is
// created, as upstream does. An answer with retryAfterSeconds > 0 holds the creation
// (TopologyReconciled False, ClusterCreating, naming the hook and its message) and asks again
// after that long (not before: heldHooks); a failed call fails the reconcile (its error names
// the extension and the hook). Without a runtime client or a registered handler nothing is called.
func (r *Reconciler) callBeforeClusterCreate(ctx context.Context, s *scope) (ctrl.Result, error) {
	c := s.cluster
	if c.Spec.InfrastructureRef.IsDefined() || c.Spec.ControlPlaneRef.IsDefined() {
		return ctrl.Result{}, nil
	}
	req := &hooksv1.BeforeClusterCreateRequest{TypeMeta: hooksv1.TypeMeta(hooksv1.BeforeClusterCreate, "Request"), Cluster: hookCluster(c)}
	held, err := r.callHoldingHook(ctx, c, hooksv1.BeforeClusterCreate, req, func() hooksv1.Response { return &hooksv1.BeforeClusterCreateResponse{} })
	if err != nil || held == nil {
		return ctrl.Result{}, err
	}
	s.blocked = &blockedReason{clusterv1.ClusterTopologyReconciledClusterCreatingReason,
		fmt.Sprintf("Following hooks are blocking create: %s: %s", hooksv1.BeforeClusterCreate, held.message)}
	r.recordHookBlocking(s, s.blocked.reason, s.blocked.message)
	return ctrl.Result{RequeueAfter: held.after}, nil
}

// hookCluster is the Cluster as hook requests carry it (clusterstate.HookCluster).
func hookCluster(c *clusterv1.Cluster) clusterv1.Cluster { return clusterstate.HookCluster(c) }

// externalPatcher is what calls the extensions of a class's external patches: the Runtime SDK
// client, or nil (an untyped nil, so that patches sees none) when the controller has no client.
func (r *Reconciler) externalPatcher() patches.ExternalPatcher {
	if r.Runtime == nil {
		return nil
	}
	return r.Runtime
}

// upgradePlanner is what calls a class's GenerateUpgradePlan handler, through the answers'
// cache, or nil (untyped).
func (r *Reconciler) upgradePlanner() clusterstate.UpgradePlanner {
	if r.Runtime == nil {
		return nil
	}
	r.plansOnce.Do(func() { r.plans = &cachedPlanner{next: r.Runtime, now: time.Now} })
	return r.plans
}
