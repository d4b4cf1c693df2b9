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
	"errors"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/rest"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func TestHealthState_DisconnectsAfterTheFailureThreshold(t *testing.T) {
	h := &healthState{}
	h.recordSuccess(t0)
	down := errors.New("connection refused")

	require.False(t, h.recordProbe(t0.Add(1*time.Second), down, 3))
	require.False(t, h.recordProbe(t0.Add(2*time.Second), down, 3))
	require.True(t, h.recordProbe(t0.Add(3*time.Second), down, 3))
	require.Contains(t, h.disconnectReason, "health probe failed 3 times in a row, last: connection refused")
	require.False(t, h.unauthorized)
	require.Equal(t, HealthCheckingState{
		LastProbeTime:        t0.Add(3 * time.Second),
		LastProbeSuccessTime: t0,
		ConsecutiveFailures:  3,
		LastProbeError:       down,
	}, h.HealthCheckingState)
}

func TestHealthState_DisconnectsAtOnceOnUnauthorized(t *testing.T) {
	h := &healthState{}
	require.True(t, h.recordProbe(t0, apierrors.NewUnauthorized("token expired"), 5))
	require.True(t, h.unauthorized)
	require.Equal(t, 1, h.ConsecutiveFailures)
	require.Contains(t, h.disconnectReason, "Unauthorized")
}

func TestHealthState_SuccessResetsTheFailures(t *testing.T) {
	h := &healthState{}
	h.recordProbe(t0, errors.New("timeout"), 5)
	h.recordProbe(t0.Add(time.Second), errors.New("timeout"), 5)
	require.False(t, h.recordProbe(t0.Add(2*time.Second), nil, 5))
	require.Equal(t, HealthCheckingState{LastProbeTime: t0.Add(2 * time.Second), LastProbeSuccessTime: t0.Add(2 * time.Second)},
		h.HealthCheckingState)
	require.Empty(t, h.disconnectReason)
}

func TestProbeFailureDue_FiresOnceAfterTheProbeFailedForTheDuration(t *testing.T) {
	lastSuccess := t0
	for _, tc := range []struct {
		name     string
		now      time.Time
		lastSent time.Time
		want     bool
	}{
		{"not failing long enough", t0.Add(4 * time.Minute), time.Time{}, false},
		{"failing long enough, never sent", t0.Add(6 * time.Minute), time.Time{}, true},
		{"failing long enough, sent before the deadline", t0.Add(6 * time.Minute), t0.Add(time.Minute), true},
		{"already sent after the deadline", t0.Add(7 * time.Minute), t0.Add(6 * time.Minute), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, probeFailureDue(tc.now, lastSuccess, tc.lastSent, 5*time.Minute))
		})
	}
}

func TestProbe_GetsTheRootPathAndReportsUnauthorized(t *testing.T) {
	var (
		mu     sync.Mutex
		status = http.StatusOK
		paths  []string
	)
	setStatus := func(s int) { mu.Lock(); defer mu.Unlock(); status = s }
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		paths = append(paths, r.URL.Path)
		w.WriteHeader(status)
	}))
	defer srv.Close()

	cfg := &rest.Config{Host: srv.URL}
	httpClient, err := rest.HTTPClientFor(cfg)
	require.NoError(t, err)
	c, err := newProbeClient(cfg, httpClient)
	require.NoError(t, err)

	require.NoError(t, probe(context.Background(), c, time.Second))
	setStatus(http.StatusUnauthorized)
	require.True(t, apierrors.IsUnauthorized(probe(context.Background(), c, time.Second)))
	setStatus(http.StatusServiceUnavailable)
	err = probe(context.Background(), c, time.Second)
	require.Error(t, err)
	require.False(t, apierrors.IsUnauthorized(err))
	mu.Lock()
	defer mu.Unlock()
	require.Equal(t, []string{"/", "/", "/"}, paths)
	require.Nil(t, cfg.GroupVersion, "the probe client must not change the connection's REST config")
}
