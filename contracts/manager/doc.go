// Package manager holds what every Capstan provider's manager binary shares: the
// command-line flags upstream Cluster API users know (leader election on Leases,
// metrics and health endpoints, --kube-api-qps/-burst, --sync-period,
// --watch-filter, per-controller concurrency), the logger, whose verbosity the
// diagnostics endpoint changes at runtime (verbosity.go), and the construction of a
// controller-runtime manager from them, with Secrets and ConfigMaps never cached.
// It knows no provider and registers no controller: each provider's main.go does.
package manager
