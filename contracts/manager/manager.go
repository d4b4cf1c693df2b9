package manager

import (
	"fmt"
	"os"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
)

// New builds a controller-runtime manager from validated Options. Informers stream
// their initial lists (client-go's WatchListClient gate, on by default since 0.35). The default client
// reads Secrets and ConfigMaps live instead of caching them: a management cluster
// holds many of both, and caching their data costs memory the managers never need
// (upstream Cluster API learnt this in #3887/#3986). Unstructured reads are cached so
// provider objects read through the contract get shared informers.
func New(o *Options, scheme *runtime.Scheme, cfg *rest.Config) (ctrl.Manager, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	// The conversion webhook server takes the same TLS settings as the diagnostics one.
	o.Webhook.TLSOpts = o.TLSOpts()
	if ns := os.Getenv("POD_NAMESPACE"); ns != "" {
		o.LeaderElectionNS = ns
	}
	cfg = rest.CopyConfig(cfg)
	cfg.QPS = o.KubeAPIQPS
	cfg.Burst = o.KubeAPIBurst
	cfg.UserAgent = "capstan-" + o.Name

	syncPeriod := o.SyncPeriod
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme:                        scheme,
		Metrics:                       o.metricsOptions(),
		HealthProbeBindAddress:        o.HealthProbeBindAddress,
		LeaderElection:                o.LeaderElect,
		LeaderElectionID:              o.LeaderElectionID,
		LeaderElectionNamespace:       o.LeaderElectionNS,
		LeaderElectionResourceLock:    "leases",
		LeaderElectionReleaseOnCancel: true, // a clean shutdown hands over at once
		LeaseDuration:                 &o.LeaseDuration,
		RenewDeadline:                 &o.RenewDeadline,
		RetryPeriod:                   &o.RetryPeriod,
		Cache:                         cache.Options{SyncPeriod: &syncPeriod},
		Client: client.Options{Cache: &client.CacheOptions{
			DisableFor:   []client.Object{&corev1.Secret{}, &corev1.ConfigMap{}},
			Unstructured: true,
		}},
	})
	if err != nil {
		return nil, fmt.Errorf("creating the %s manager: %w", o.Name, err)
	}
	if err := mgr.AddHealthzCheck("ping", healthz.Ping); err != nil {
		return nil, fmt.Errorf("adding health check: %w", err)
	}
	if err := mgr.AddReadyzCheck("ping", healthz.Ping); err != nil {
		return nil, fmt.Errorf("adding readiness check: %w", err)
	}
	return mgr, nil
}

// SetupLogger installs the zap logger configured by the --zap-* flags as the
// controller-runtime logger, and gives klog the same verbosity (verbosity.go).
func (o *Options) SetupLogger() {
	ctrl.SetLogger(o.newLogger())
}

// newLogger builds the zap logger on a level the diagnostics endpoint can change.
func (o *Options) newLogger() logr.Logger {
	// klog starts at the logger's verbosity; zap's level stays as the flag set it (its error
	// level has no klog equivalent). Cannot fail: a zap level is an int8, klog takes an int32.
	_ = setKlogVerbosity(verbosityOf(o.atomicLevel().Level()))
	return zap.New(zap.UseFlagOptions(&o.Zap))
}
