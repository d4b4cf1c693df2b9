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
	"errors"
	"fmt"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
)

// Defaults, the values upstream Cluster API has run with at scale.
const (
	DefaultQPS                  = 20
	DefaultBurst                = 30
	DefaultTimeout              = 10 * time.Second
	DefaultUserAgent            = "capstan-cluster-cache"
	DefaultProbeInterval        = 10 * time.Second
	DefaultProbeTimeout         = 5 * time.Second
	DefaultProbeFailures        = 5
	DefaultConnectRetryInterval = 30 * time.Second
	DefaultCacheSyncTimeout     = 2 * time.Minute
)

// Options configure a ClusterCache. Zero values take the defaults above.
type Options struct {
	// SecretReader reads the <cluster>-kubeconfig Secrets from the management cluster.
	// Required. The managers pass a reader that goes to the API server, because they never
	// cache Secrets.
	SecretReader client.Reader

	// Client configures the clients built for each workload cluster.
	Client ClientOptions

	// HealthProbe configures the probe of each connected workload cluster.
	HealthProbe HealthProbeOptions

	// ConnectRetryInterval is how long to wait after a failed connect, or after the probe
	// dropped a connection, before connecting again.
	ConnectRetryInterval time.Duration

	// CacheSyncTimeout bounds how long a connect waits for the workload cache's first sync
	// (the Node informer that backs NodeProviderIDIndex).
	CacheSyncTimeout time.Duration

	// ConnectOnlyWhenControlPlaneInitialized delays connecting until the Cluster's
	// status.initialization.controlPlaneInitialized is true. Off by default: a kubeconfig
	// Secret is the signal that there is something to connect to, and a connect that fails
	// early is only retried.
	ConnectOnlyWhenControlPlaneInitialized bool

	// WatchFilterValue, when set, limits the ClusterCache to Clusters labelled
	// cluster.x-k8s.io/watch-filter=<value>, as for every other controller of the manager.
	WatchFilterValue string

	// Controller configures the ClusterCache's own controller (e.g. MaxConcurrentReconciles).
	Controller controller.Options
}

// ClientOptions configure the REST config of each workload cluster.
type ClientOptions struct {
	QPS       float32
	Burst     int
	Timeout   time.Duration
	UserAgent string
}

// HealthProbeOptions configure the health probe of each workload cluster.
type HealthProbeOptions struct {
	Interval         time.Duration
	Timeout          time.Duration
	FailureThreshold int
}

// defaulted returns o with zero values replaced by the defaults, or an error naming the
// first invalid field.
func (o Options) defaulted() (Options, error) {
	if o.SecretReader == nil {
		return o, errors.New("remote: Options.SecretReader is required")
	}
	setDefault(&o.Client.QPS, DefaultQPS)
	setDefault(&o.Client.Burst, DefaultBurst)
	setDefault(&o.Client.Timeout, DefaultTimeout)
	setDefault(&o.Client.UserAgent, DefaultUserAgent)
	setDefault(&o.HealthProbe.Interval, DefaultProbeInterval)
	setDefault(&o.HealthProbe.Timeout, DefaultProbeTimeout)
	setDefault(&o.HealthProbe.FailureThreshold, DefaultProbeFailures)
	setDefault(&o.ConnectRetryInterval, DefaultConnectRetryInterval)
	setDefault(&o.CacheSyncTimeout, DefaultCacheSyncTimeout)

	for _, d := range []struct {
		name  string
		value time.Duration
	}{
		{"Client.Timeout", o.Client.Timeout},
		{"HealthProbe.Interval", o.HealthProbe.Interval},
		{"HealthProbe.Timeout", o.HealthProbe.Timeout},
		{"ConnectRetryInterval", o.ConnectRetryInterval},
		{"CacheSyncTimeout", o.CacheSyncTimeout},
	} {
		if d.value < 0 {
			return o, fmt.Errorf("remote: Options.%s must not be negative, got %s", d.name, d.value)
		}
	}
	switch {
	case o.Client.QPS < 0:
		return o, fmt.Errorf("remote: Options.Client.QPS must not be negative, got %v", o.Client.QPS)
	case o.Client.Burst < 0:
		return o, fmt.Errorf("remote: Options.Client.Burst must not be negative, got %d", o.Client.Burst)
	case o.HealthProbe.FailureThreshold < 0:
		return o, fmt.Errorf("remote: Options.HealthProbe.FailureThreshold must not be negative, got %d", o.HealthProbe.FailureThreshold)
	}
	return o, nil
}

func setDefault[T comparable](field *T, value T) {
	var zero T
	if *field == zero {
		*field = value
	}
}
