package manager

import (
	goflag "flag"
	"fmt"
	"sort"
	"time"

	"github.com/spf13/pflag"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"capstan.dev/contracts/conversionwebhook"
	"capstan.dev/contracts/remote"
)

// DefaultKubeAPIQPS and DefaultKubeAPIBurst are the client-side rate limit of every manager,
// per API resource: controller-runtime gives each kind its own REST client and token bucket.
// Upstream Cluster API defaults to 20/30, which bound the core's Machine writes at 20/s in
// `make bench` (1,000 Machines took 6.6× what this machine's API server accepts, the core at
// a third of a core, waiting). 100/200 are the values upstream's own scale tests run with;
// measured here they leave the API server, not the client, as the limit (docs/benchmarks.md).
// The API server's priority and fairness still protects it from a manager gone wrong.
const (
	DefaultKubeAPIQPS   = 100
	DefaultKubeAPIBurst = 200
)

// Options are the settings of one manager process.
type Options struct {
	// Name identifies the provider in logs and errors, e.g. "core".
	Name string
	// LeaderElectionID names the Lease; it is fixed per provider so two replicas
	// of one provider contend for the same Lease and different providers never do.
	LeaderElectionID string

	// DiagnosticsAddress serves /metrics and pprof, authenticated and authorized unless
	// InsecureDiagnostics (upstream's --diagnostics-address, --insecure-diagnostics).
	DiagnosticsAddress  string
	InsecureDiagnostics bool
	// MetricsBindAddress is the deprecated --metrics-bind-address: when set, plain HTTP there.
	MetricsBindAddress string
	// TLSMinVersion and TLSCipherSuites configure the diagnostics and conversion webhook servers.
	TLSMinVersion          string
	TLSCipherSuites        []string
	HealthProbeBindAddress string
	LeaderElect            bool
	LeaderElectionNS       string
	LeaseDuration          time.Duration
	RenewDeadline          time.Duration
	RetryPeriod            time.Duration
	KubeAPIQPS             float32
	KubeAPIBurst           int
	// ClusterCacheClientQPS and ClusterCacheClientBurst are the client-side rate limit of the
	// clients to each workload cluster (per cluster and API resource), upstream's
	// --clustercache-client-qps/-burst; ClusterCacheClient passes them to the ClusterCache.
	ClusterCacheClientQPS   float32
	ClusterCacheClientBurst int
	SyncPeriod              time.Duration
	// WatchFilterValue, when set, limits reconciliation to objects labelled
	// cluster.x-k8s.io/watch-filter=<value>, so several instances can share a cluster.
	WatchFilterValue string
	// Profiling serves Go's pprof endpoints under /debug/pprof/ on the metrics
	// endpoint, as Kubernetes components do with --profiling.
	Profiling bool
	// concurrency is the number of workers per controller, keyed by the flag stem
	// (e.g. "machine" for --machine-concurrency); pointers so flags bind to them.
	concurrency map[string]*int
	// Zap holds the logging flags (--zap-log-level, --zap-devel, ...).
	Zap zap.Options
	// Webhook holds the conversion webhook flags (--webhook-*); a provider that serves older
	// API versions passes it to conversionwebhook.Setup, the others accept and ignore it.
	Webhook conversionwebhook.Options
}

// NewOptions returns the defaults for a provider. controllers lists the flag stems
// for which a --<stem>-concurrency flag is registered, each defaulting to 10.
func NewOptions(name, leaderElectionID, defaultNamespace string, controllers ...string) *Options {
	o := &Options{
		Name:                    name,
		LeaderElectionID:        leaderElectionID,
		DiagnosticsAddress:      defaultDiagnosticsAddress,
		TLSMinVersion:           "VersionTLS12",
		HealthProbeBindAddress:  ":9440",
		LeaderElect:             true,
		LeaderElectionNS:        defaultNamespace,
		LeaseDuration:           15 * time.Second,
		RenewDeadline:           10 * time.Second,
		RetryPeriod:             2 * time.Second,
		KubeAPIQPS:              DefaultKubeAPIQPS,
		KubeAPIBurst:            DefaultKubeAPIBurst,
		ClusterCacheClientQPS:   remote.DefaultQPS,
		ClusterCacheClientBurst: remote.DefaultBurst,
		SyncPeriod:              10 * time.Minute,
		concurrency:             map[string]*int{},
		Webhook:                 conversionwebhook.DefaultOptions(),
	}
	for _, c := range controllers {
		workers := 10
		o.concurrency[c] = &workers
	}
	return o
}

// Concurrency is the number of parallel workers for the controller with the given
// flag stem; 1 for a stem that was never registered.
func (o *Options) Concurrency(stem string) int {
	if v, ok := o.concurrency[stem]; ok {
		return *v
	}
	return 1
}

// AddFlags registers every flag on fs, including the Go flags controller-runtime
// defines (--kubeconfig) and the zap logging flags.
func (o *Options) AddFlags(fs *pflag.FlagSet) {
	o.addDiagnosticsFlags(fs)
	fs.StringVar(&o.HealthProbeBindAddress, "health-addr", o.HealthProbeBindAddress,
		"Address the /healthz and /readyz endpoints bind to.")
	fs.BoolVar(&o.LeaderElect, "leader-elect", o.LeaderElect,
		"Elect a leader through a Lease so only one replica reconciles at a time.")
	fs.StringVar(&o.LeaderElectionNS, "leader-election-namespace", o.LeaderElectionNS,
		"Namespace of the leader-election Lease (defaults to $POD_NAMESPACE when set).")
	fs.DurationVar(&o.LeaseDuration, "leader-elect-lease-duration", o.LeaseDuration,
		"How long a non-leader waits before it may take an unrenewed Lease.")
	fs.DurationVar(&o.RenewDeadline, "leader-elect-renew-deadline", o.RenewDeadline,
		"How long the leader keeps retrying to renew before it gives up leadership.")
	fs.DurationVar(&o.RetryPeriod, "leader-elect-retry-period", o.RetryPeriod,
		"How often candidates retry acquiring or renewing the Lease.")
	fs.Float32Var(&o.KubeAPIQPS, "kube-api-qps", o.KubeAPIQPS,
		"Maximum queries per second to the management cluster's API server, per API resource (each kind has its own client-side limit; upstream Cluster API's default is 20, raised here from measurements, see docs/benchmarks.md).")
	fs.IntVar(&o.KubeAPIBurst, "kube-api-burst", o.KubeAPIBurst,
		"Maximum burst of queries to the management cluster's API server, per API resource (upstream's default is 30).")
	fs.Float32Var(&o.ClusterCacheClientQPS, "clustercache-client-qps", o.ClusterCacheClientQPS,
		"Maximum queries per second to each workload cluster's API server, per API resource (upstream's default).")
	fs.IntVar(&o.ClusterCacheClientBurst, "clustercache-client-burst", o.ClusterCacheClientBurst,
		"Maximum burst of queries to each workload cluster's API server, per API resource (upstream's default).")
	fs.DurationVar(&o.SyncPeriod, "sync-period", o.SyncPeriod,
		"Minimum interval at which every watched object is reconciled again.")
	fs.StringVar(&o.WatchFilterValue, "watch-filter", o.WatchFilterValue,
		"Reconcile only objects labelled cluster.x-k8s.io/watch-filter=<value>.")
	fs.BoolVar(&o.Profiling, "profiling", o.Profiling,
		"Serve pprof profiles (CPU, heap, goroutines) under /debug/pprof/ on an --insecure-diagnostics endpoint (the authenticated endpoint always serves them).")
	stems := make([]string, 0, len(o.concurrency))
	for stem := range o.concurrency {
		stems = append(stems, stem)
	}
	sort.Strings(stems) // stable --help output
	for _, stem := range stems {
		fs.IntVar(o.concurrency[stem], stem+"-concurrency", *o.concurrency[stem],
			fmt.Sprintf("Number of %s objects reconciled in parallel.", stem))
	}

	o.Webhook.AddFlags(fs)

	gofs := goflag.NewFlagSet(o.Name, goflag.ContinueOnError)
	o.Zap.BindFlags(gofs)
	fs.AddGoFlagSet(gofs)
	fs.AddGoFlagSet(goflag.CommandLine) // --kubeconfig from controller-runtime
}

// Validate rejects values that would make the manager misbehave, with a message
// naming the flag.
func (o *Options) Validate() error {
	for stem, v := range o.concurrency {
		if *v < 1 {
			return fmt.Errorf("--%s-concurrency must be at least 1, got %d", stem, *v)
		}
	}
	switch {
	case o.KubeAPIQPS <= 0:
		return fmt.Errorf("--kube-api-qps must be positive, got %v", o.KubeAPIQPS)
	case o.KubeAPIBurst < 1:
		return fmt.Errorf("--kube-api-burst must be at least 1, got %d", o.KubeAPIBurst)
	case o.ClusterCacheClientQPS <= 0:
		return fmt.Errorf("--clustercache-client-qps must be positive, got %v", o.ClusterCacheClientQPS)
	case o.ClusterCacheClientBurst < 1:
		return fmt.Errorf("--clustercache-client-burst must be at least 1, got %d", o.ClusterCacheClientBurst)
	case o.SyncPeriod < time.Minute:
		return fmt.Errorf("--sync-period must be at least 1m (every object is reconciled that often), got %s", o.SyncPeriod)
	case o.LeaderElect && o.RenewDeadline >= o.LeaseDuration:
		return fmt.Errorf("--leader-elect-renew-deadline (%s) must be shorter than --leader-elect-lease-duration (%s)",
			o.RenewDeadline, o.LeaseDuration)
	case o.LeaderElect && o.RetryPeriod >= o.RenewDeadline:
		return fmt.Errorf("--leader-elect-retry-period (%s) must be shorter than --leader-elect-renew-deadline (%s)",
			o.RetryPeriod, o.RenewDeadline)
	case o.LeaderElect && o.LeaderElectionNS == "":
		return fmt.Errorf("--leader-election-namespace is required with --leader-elect outside a cluster")
	}
	if err := o.validateDiagnostics(); err != nil {
		return err
	}
	return o.Webhook.Validate()
}

// ClusterCacheClient is the workload clients' configuration from the --clustercache-client-* flags.
func (o *Options) ClusterCacheClient() remote.ClientOptions {
	return remote.ClientOptions{QPS: o.ClusterCacheClientQPS, Burst: o.ClusterCacheClientBurst}
}
