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
	"time"

	ctrl "sigs.k8s.io/controller-runtime"

	runtimev1 "capstan.dev/contracts/api/runtime/v1beta2"
	"capstan.dev/contracts/conditions"
)

// reconcileNormal discovers the extension when due (see due) and registers its handlers; a
// failed discovery unregisters them, so no caller reaches an extension Capstan cannot verify,
// and is retried with backoff.
func (r *Reconciler) reconcileNormal(ctx context.Context, s *scope) (ctrl.Result, error) {
	ext := s.ext
	if wait, ok := r.due(ext); !ok {
		r.Runtime.Registry.Register(ext)
		return ctrl.Result{RequeueAfter: wait}, nil
	}
	log := ctrl.LoggerFrom(ctx)
	log.V(4).Info("Discovering the extension")
	handlers, err := r.Runtime.Discover(ctx, ext, r.DiscoveryTimeout)
	if err != nil {
		s.discoveryErr = err
		r.Runtime.Registry.Unregister(ext.Name)
		r.forget(ext.UID)
		return ctrl.Result{}, err
	}
	s.discoveredNow = true
	ext.Status.Handlers = handlers
	r.Runtime.Registry.Register(ext)
	r.mu.Lock()
	r.discovered[ext.UID] = discovery{generation: ext.Generation, at: time.Now()}
	r.mu.Unlock()
	return ctrl.Result{RequeueAfter: r.RediscoveryInterval}, nil
}

// due says whether ext must be discovered now; if not, wait is when it will be. Discovery is due
// when this manager has not discovered ext at its current generation (so a new spec or
// caBundle, or a restart), or when the last one is RediscoveryInterval old. A Discovered
// condition at the current generation is not enough after a restart: the extension may have
// changed meanwhile.
func (r *Reconciler) due(ext *runtimev1.ExtensionConfig) (wait time.Duration, due bool) {
	r.mu.Lock()
	d, ok := r.discovered[ext.UID]
	r.mu.Unlock()
	if !ok || d.generation != ext.Generation || !conditions.IsTrue(ext, runtimev1.ExtensionConfigDiscoveredCondition) {
		return 0, true
	}
	if age := time.Since(d.at); age < r.RediscoveryInterval {
		return r.RediscoveryInterval - age, false
	}
	return 0, true
}
