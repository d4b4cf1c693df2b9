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
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	hooksv1 "capstan.dev/contracts/api/runtime/hooks/v1alpha1"
)

// hookHoldTTL bounds how long a remembered hold is kept (upstream's hook cache keeps its entries
// a day): a longer retryAfterSeconds is asked again after that.
const hookHoldTTL = 24 * time.Hour

// hookHold is a blocking hook's answer: its message and how long before asking again.
type hookHold struct {
	message string
	after   time.Duration
}

// retrySeconds is after in whole seconds, at least 1 (a hold of less than a second is still a
// hold).
func (h *hookHold) retrySeconds() int32 {
	return max(int32((h.after+time.Second-1)/time.Second), 1)
}

// heldHooks remembers, per Cluster and hook, the last blocking answer until its
// retryAfterSeconds have passed, as upstream's hook cache does: a held Cluster is reconciled on
// every event of its objects (a control plane upgrading, Machines coming up), and the extension
// asked not to be called before then. Lost on a restart, which only costs another call.
type heldHooks struct {
	mu      sync.Mutex
	entries map[heldHookKey]heldHookEntry
}

type heldHookKey struct {
	cluster types.UID
	hook    string
}

type heldHookEntry struct {
	message string
	until   time.Time
}

// held is the remembered hold of hook for cluster at now, nil when there is none or it ended.
func (h *heldHooks) held(cluster types.UID, hook string, now time.Time) *hookHold {
	h.mu.Lock()
	defer h.mu.Unlock()
	e, ok := h.entries[heldHookKey{cluster, hook}]
	if !ok || !now.Before(e.until) {
		return nil
	}
	return &hookHold{message: e.message, after: e.until.Sub(now)}
}

// remember keeps a blocking answer (retry > 0) until now+retry, or forgets the hook's hold
// (retry 0: it let go). Ended holds are dropped on the way, so entries do not pile up.
func (h *heldHooks) remember(cluster types.UID, hook, message string, retry time.Duration, now time.Time) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for k, e := range h.entries {
		if !now.Before(e.until) {
			delete(h.entries, k)
		}
	}
	key := heldHookKey{cluster, hook}
	if retry <= 0 {
		delete(h.entries, key)
		return
	}
	if h.entries == nil {
		h.entries = map[heldHookKey]heldHookEntry{}
	}
	h.entries[key] = heldHookEntry{message: message, until: now.Add(min(retry, hookHoldTTL))}
}

// callHoldingHook calls every handler of a blocking hook (BeforeClusterCreate, an upgrade hook,
// BeforeClusterDelete) for c, unless its last answer still holds: then that answer is returned
// without a call. The answer is a hold (retryAfterSeconds > 0) or nil (it lets go). A hook no
// handler serves lets go without a call.
func (r *Reconciler) callHoldingHook(ctx context.Context, c *clusterv1.Cluster, hook string, req hooksv1.Request,
	newResp func() hooksv1.Response) (*hookHold, error) {
	if r.Runtime == nil || len(r.Runtime.Registry.ForHook(hook)) == 0 {
		return nil, nil
	}
	if held := r.holds.held(c.UID, hook, r.now()); held != nil {
		ctrl.LoggerFrom(ctx).V(5).Info("Not calling the lifecycle hook again before its retryAfterSeconds", "hook", hook, "after", held.after)
		return held, nil
	}
	resp := newResp()
	notes, err := r.Runtime.CallAll(ctx, hook, c.Namespace, req, resp, newResp)
	for _, n := range notes {
		ctrl.LoggerFrom(ctx).Info("Runtime Extension call ignored", "hook", hook, "note", n)
	}
	if err != nil {
		return nil, err
	}
	var after time.Duration
	if retry, ok := resp.(hooksv1.RetryResponse); ok {
		after = time.Duration(retry.GetRetryAfterSeconds()) * time.Second
	}
	r.holds.remember(c.UID, hook, resp.GetMessage(), after, r.now())
	if after <= 0 {
		return nil, nil
	}
	return &hookHold{message: resp.GetMessage(), after: after}, nil
}

// now is the Reconciler's clock.
func (r *Reconciler) now() time.Time {
	if r.Now != nil {
		return r.Now()
	}
	return time.Now()
}
