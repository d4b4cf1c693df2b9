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

package extensionconfig

import (
	"context"
	"fmt"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	runtimev1 "capstan.dev/contracts/api/runtime/v1beta2"
	"capstan.dev/contracts/patch"
	"capstan.dev/contracts/predicates"
	runtimeclient "capstan.dev/core/internal/runtime/client"
)

// +kubebuilder:rbac:groups=runtime.cluster.x-k8s.io,resources=extensionconfigs;extensionconfigs/status,verbs=get;list;watch;update;patch

// DefaultRediscoveryInterval is how often a discovered extension is discovered again.
const DefaultRediscoveryInterval = 10 * time.Minute

// Reconciler reconciles ExtensionConfigs.
type Reconciler struct {
	Client client.Client
	// Runtime calls the extensions; its Registry is where handlers are registered.
	Runtime *runtimeclient.Client
	// WatchFilterValue limits reconciliation to labelled objects (--watch-filter).
	WatchFilterValue string
	// DiscoveryTimeout bounds a discovery call (0: runtimeclient.DefaultDiscoveryTimeout).
	DiscoveryTimeout time.Duration
	// RediscoveryInterval (0: DefaultRediscoveryInterval) is how long a discovery is trusted.
	RediscoveryInterval time.Duration

	mu sync.Mutex
	// discovered is when each ExtensionConfig (by UID) was last discovered, and at which
	// generation: in memory, so a restarted manager discovers every extension once again.
	discovered map[types.UID]discovery
}

type discovery struct {
	generation int64
	at         time.Time
}

// SetupWithManager registers the controller.
func (r *Reconciler) SetupWithManager(_ context.Context, mgr ctrl.Manager, opts controller.Options) error {
	if r.Client == nil || r.Runtime == nil || r.Runtime.Registry == nil {
		return fmt.Errorf("extensionconfig reconciler needs Client and Runtime with a Registry")
	}
	if r.DiscoveryTimeout == 0 {
		r.DiscoveryTimeout = runtimeclient.DefaultDiscoveryTimeout
	}
	if r.RediscoveryInterval == 0 {
		r.RediscoveryInterval = DefaultRediscoveryInterval
	}
	r.discovered = map[types.UID]discovery{}
	if err := mgr.Add(manager.RunnableFunc(func(ctx context.Context) error { return r.warmUp(ctx, mgr.GetAPIReader()) })); err != nil {
		return fmt.Errorf("adding the Runtime Extension registry's warm-up: %w", err)
	}
	err := ctrl.NewControllerManagedBy(mgr).
		For(&runtimev1.ExtensionConfig{}, builder.WithPredicates(predicates.ResourceHasFilterLabel(r.WatchFilterValue))).
		WithOptions(opts).
		Complete(patch.RequeueOnConflict(r))
	if err != nil {
		return fmt.Errorf("creating the extensionconfig controller: %w", err)
	}
	return nil
}

// warmUp fills the registry with the handlers every ExtensionConfig's status holds (the last
// discovery, by this or an earlier manager) and makes it Ready, before the callers of hooks act:
// they wait for it (the topology and ClusterClass controllers requeue while it is not Ready). The
// reconciles that follow discover each extension again and replace what was registered here.
func (r *Reconciler) warmUp(ctx context.Context, reader client.Reader) error {
	if r.Runtime.Registry.Ready() {
		return nil
	}
	var opts []client.ListOption
	if r.WatchFilterValue != "" {
		opts = append(opts, client.MatchingLabels{clusterv1.WatchLabel: r.WatchFilterValue})
	}
	list := &runtimev1.ExtensionConfigList{}
	err := wait.ExponentialBackoffWithContext(ctx, wait.Backoff{Duration: 100 * time.Millisecond, Factor: 2, Steps: 30, Cap: 10 * time.Second},
		func(ctx context.Context) (bool, error) {
			if err := reader.List(ctx, list, opts...); err != nil {
				ctrl.LoggerFrom(ctx).Error(err, "Listing ExtensionConfigs to warm up the Runtime Extension registry; retrying")
				return false, nil
			}
			return true, nil
		})
	if err != nil {
		return fmt.Errorf("warming up the Runtime Extension registry: listing ExtensionConfigs: %w", err)
	}
	r.Runtime.Registry.WarmUp(list.Items)
	ctrl.LoggerFrom(ctx).Info("Runtime Extension registry warmed up", "extensionConfigs", len(list.Items))
	return nil
}

// Reconcile discovers the extension when due, and registers its handlers.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (res ctrl.Result, retErr error) {
	ext := &runtimev1.ExtensionConfig{}
	if err := r.Client.Get(ctx, req.NamespacedName, ext); err != nil {
		if apierrors.IsNotFound(err) {
			r.Runtime.Registry.Unregister(req.Name)
			return ctrl.Result{}, nil
		}
		return ctrl.Result{}, err
	}
	if !ext.DeletionTimestamp.IsZero() {
		r.Runtime.Registry.Unregister(ext.Name)
		r.forget(ext.UID)
		return ctrl.Result{}, nil
	}
	helper, err := patch.NewHelper(ext, r.Client)
	if err != nil {
		return ctrl.Result{}, err
	}
	s := &scope{ext: ext}
	defer func() {
		setStatus(s)
		if err := helper.Patch(ctx, ext); err != nil && !apierrors.IsNotFound(err) && retErr == nil {
			retErr = fmt.Errorf("patching ExtensionConfig %s: %w", ext.Name, err)
		}
	}()
	if s.paused = predicates.SetPausedCondition(ext, nil); s.paused {
		return ctrl.Result{}, nil
	}
	return r.reconcileNormal(ctx, s)
}

// scope holds what one reconcile found.
type scope struct {
	ext    *runtimev1.ExtensionConfig
	paused bool
	// discoveryErr is the failed discovery of this reconcile; nil when it succeeded or did
	// not run.
	discoveryErr error
	// discoveredNow: discovery ran and succeeded in this reconcile.
	discoveredNow bool
}

func (r *Reconciler) forget(uid types.UID) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.discovered, uid)
}
