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

package remote

import (
	"context"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/rest"
)

// HealthCheckingState is what the ClusterCache knows about a workload cluster's health, for
// the core Cluster controller's RemoteConnectionProbe condition
// (clusterv1.ClusterRemoteConnectionProbeCondition). A failed connect counts as a failed
// probe, so a Cluster whose kubeconfig is rejected or whose API server never answers shows
// up here too.
type HealthCheckingState struct {
	// Connected is true while clients are available.
	Connected bool
	// LastProbeTime is when the last probe (or connect attempt) finished; zero if never.
	LastProbeTime time.Time
	// LastProbeSuccessTime is when the last probe (or connect) succeeded; zero if never.
	LastProbeSuccessTime time.Time
	// ConsecutiveFailures counts probes and connect attempts that failed since the last success.
	ConsecutiveFailures int
	// LastProbeError is the error of the last probe or connect attempt; nil after a success.
	LastProbeError error
}

// healthState is HealthCheckingState plus the verdict the reconciler acts on. It is guarded by
// the accessor's lock.
type healthState struct {
	HealthCheckingState
	// disconnectReason is set when the probe decided the connection must go; the reconciler
	// disconnects and clears it.
	disconnectReason string
	// unauthorized is true when the last failure was Unauthorized: the kubeconfig may have
	// been rotated, so reconnecting at once is worth a try.
	unauthorized bool
}

// recordSuccess resets the failure count after a probe or a connect succeeded.
func (h *healthState) recordSuccess(now time.Time) {
	h.LastProbeTime = now
	h.LastProbeSuccessTime = now
	h.ConsecutiveFailures = 0
	h.LastProbeError = nil
	h.disconnectReason = ""
	h.unauthorized = false
}

// recordFailure counts a failed probe or connect attempt.
func (h *healthState) recordFailure(now time.Time, err error) {
	h.LastProbeTime = now
	h.ConsecutiveFailures++
	h.LastProbeError = err
	h.unauthorized = apierrors.IsUnauthorized(err)
}

// recordProbe records the outcome of a probe of a live connection and decides whether the
// connection must go: after threshold consecutive failures, or at once on Unauthorized
// because no later probe will succeed with credentials the API server no longer accepts.
// It reports whether the connection must be dropped.
func (h *healthState) recordProbe(now time.Time, err error, threshold int) bool {
	if err == nil {
		h.recordSuccess(now)
		return false
	}
	h.recordFailure(now, err)
	switch {
	case h.unauthorized:
		h.disconnectReason = fmt.Sprintf("health probe was refused as Unauthorized: %v", err)
	case h.ConsecutiveFailures >= threshold:
		h.disconnectReason = fmt.Sprintf("health probe failed %d times in a row, last: %v", h.ConsecutiveFailures, err)
	}
	return h.disconnectReason != ""
}

// probe asks the workload cluster's API server for "/", the cheapest request that proves the
// server is up and still accepts our credentials.
func probe(ctx context.Context, c rest.Interface, timeout time.Duration) error {
	_, err := c.Get().AbsPath("/").Timeout(timeout).DoRaw(ctx)
	return err
}

// probeFailureDue reports whether a source that asked to hear about probes failing for
// `after` should get an event now: the probe has not succeeded since lastSuccess+after, and
// no event went out since that moment.
func probeFailureDue(now, lastSuccess, lastSent time.Time, after time.Duration) bool {
	due := lastSuccess.Add(after)
	return lastSent.Before(due) && due.Before(now)
}
