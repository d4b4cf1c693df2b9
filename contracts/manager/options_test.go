package manager

import (
	"crypto/tls"
	"testing"
	"time"

	"github.com/spf13/pflag"
	"github.com/stretchr/testify/require"
	clientfeatures "k8s.io/client-go/features"

	"capstan.dev/contracts/remote"
)

func parse(t *testing.T, args ...string) (*Options, error) {
	t.Helper()
	o := NewOptions("core", "core-leader", "capstan-system", "machine", "cluster")
	fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
	o.AddFlags(fs)
	require.NoError(t, fs.Parse(args))
	return o, o.Validate()
}

func TestOptions_FlagsOverrideDefaults(t *testing.T) {
	o, err := parse(t, "--machine-concurrency=3", "--kube-api-qps=50", "--kube-api-burst=80",
		"--clustercache-client-qps=40", "--clustercache-client-burst=60",
		"--sync-period=5m", "--watch-filter=team-a", "--leader-election-namespace=other")
	require.NoError(t, err)
	require.Equal(t, 3, o.Concurrency("machine"))
	require.Equal(t, 10, o.Concurrency("cluster"))
	require.Equal(t, 1, o.Concurrency("unregistered"))
	require.Equal(t, float32(50), o.KubeAPIQPS)
	require.Equal(t, 80, o.KubeAPIBurst)
	require.Equal(t, remote.ClientOptions{QPS: 40, Burst: 60}, o.ClusterCacheClient())
	require.Equal(t, 5*time.Minute, o.SyncPeriod)
	require.Equal(t, "team-a", o.WatchFilterValue)
	require.Equal(t, "other", o.LeaderElectionNS)
	require.False(t, o.Profiling, "pprof is served only when asked for")
	o, err = parse(t, "--profiling")
	require.NoError(t, err)
	require.True(t, o.Profiling)
}

func TestOptions_ValidateNamesTheBadFlag(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--machine-concurrency=0"}, "--machine-concurrency must be at least 1"},
		{[]string{"--kube-api-qps=0"}, "--kube-api-qps must be positive"},
		{[]string{"--kube-api-burst=0"}, "--kube-api-burst must be at least 1"},
		{[]string{"--clustercache-client-qps=-1"}, "--clustercache-client-qps must be positive"},
		{[]string{"--clustercache-client-burst=0"}, "--clustercache-client-burst must be at least 1"},
		{[]string{"--sync-period=10s"}, "--sync-period must be at least 1m"},
		{[]string{"--leader-elect-renew-deadline=20s"}, "--leader-elect-renew-deadline (20s) must be shorter"},
		{[]string{"--leader-elect-retry-period=12s"}, "--leader-elect-retry-period (12s) must be shorter"},
		{[]string{"--leader-election-namespace="}, "--leader-election-namespace is required"},
		{[]string{"--profiling", "--diagnostics-address=0"}, "--profiling serves on the diagnostics endpoint"},
		{[]string{"--profiling", "--metrics-bind-address=0"}, "--profiling serves on the diagnostics endpoint"},
		{[]string{"--tls-min-version=VersionTLS11"}, `--tls-min-version "VersionTLS11" is not supported: use VersionTLS12 or VersionTLS13`},
		{[]string{"--tls-cipher-suites=TLS_RSA_WITH_RC4_128_SHA"}, `--tls-cipher-suites: "TLS_RSA_WITH_RC4_128_SHA" is not a supported cipher suite`},
		{[]string{"--tls-min-version=VersionTLS13", "--tls-cipher-suites=TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256"}, "--tls-cipher-suites cannot be set with --tls-min-version VersionTLS13"},
	} {
		_, err := parse(t, tc.args...)
		require.ErrorContains(t, err, tc.want, "args %v", tc.args)
	}
}

func TestOptions_LeaderElectionOffNeedsNoNamespace(t *testing.T) {
	_, err := parse(t, "--leader-elect=false", "--leader-election-namespace=")
	require.NoError(t, err)
}

// Informers stream their initial list (WatchList) instead of paging a LIST when
// client-go's WatchListClient gate is on; it is on by default from client-go 0.35,
// and nothing in the managers may turn it off.
func TestWatchListStreamingIsEnabled(t *testing.T) {
	require.True(t, clientfeatures.FeatureGates().Enabled(clientfeatures.WatchListClient))
}

// The client-side limit is per API resource and was raised from upstream's 20/30, which
// bound the core's Machine writes in make bench (docs/benchmarks.md).
func TestOptions_KubeAPIDefaultsAreTheMeasuredOnes(t *testing.T) {
	o, err := parse(t)
	require.NoError(t, err)
	require.Equal(t, float32(100), o.KubeAPIQPS)
	require.Equal(t, 200, o.KubeAPIBurst)
	fs := pflag.NewFlagSet("help", pflag.ContinueOnError)
	o.AddFlags(fs)
	require.Contains(t, fs.Lookup("kube-api-qps").Usage, "per API resource")
	require.Equal(t, "100", fs.Lookup("kube-api-qps").DefValue)
	require.Equal(t, "200", fs.Lookup("kube-api-burst").DefValue)
	require.Equal(t, "20", fs.Lookup("clustercache-client-qps").DefValue)
	require.Equal(t, "30", fs.Lookup("clustercache-client-burst").DefValue)
}

// The endpoint is upstream's: authenticated HTTPS on :8443 by default, plain HTTP only when
// asked for (--insecure-diagnostics, or the deprecated --metrics-bind-address, which wins as
// upstream's deprecated flag does); pprof always behind authentication, otherwise on request.
func TestOptions_DiagnosticsAreSecureUnlessAskedOtherwise(t *testing.T) {
	o, err := parse(t)
	require.NoError(t, err)
	m := o.metricsOptions()
	require.Equal(t, ":8443", m.BindAddress)
	require.True(t, m.SecureServing)
	require.NotNil(t, m.FilterProvider, "requests are authenticated and authorized")
	require.Contains(t, m.ExtraHandlers, "/debug/pprof/")

	o, err = parse(t, "--diagnostics-address=127.0.0.1:9000", "--insecure-diagnostics")
	require.NoError(t, err)
	m = o.metricsOptions()
	require.Equal(t, "127.0.0.1:9000", m.BindAddress)
	require.False(t, m.SecureServing)
	require.Nil(t, m.FilterProvider)
	require.Empty(t, m.ExtraHandlers, "no pprof on a plain endpoint unless --profiling")

	o, err = parse(t, "--metrics-bind-address=127.0.0.1:9001", "--profiling")
	require.NoError(t, err)
	m = o.metricsOptions()
	require.Equal(t, "127.0.0.1:9001", m.BindAddress)
	require.False(t, m.SecureServing)
	require.Contains(t, m.ExtraHandlers, "/debug/pprof/")
}

func TestOptions_TLSFlagsReachTheServers(t *testing.T) {
	o, err := parse(t, "--tls-cipher-suites=TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384")
	require.NoError(t, err)
	cfg := &tls.Config{}
	for _, f := range o.TLSOpts() {
		f(cfg)
	}
	require.Equal(t, uint16(tls.VersionTLS12), cfg.MinVersion)
	require.Equal(t, []uint16{tls.TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256, tls.TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384}, cfg.CipherSuites)

	o, err = parse(t, "--tls-min-version=VersionTLS13")
	require.NoError(t, err)
	cfg = &tls.Config{}
	for _, f := range o.TLSOpts() {
		f(cfg)
	}
	require.Equal(t, uint16(tls.VersionTLS13), cfg.MinVersion)
	require.Nil(t, cfg.CipherSuites)
}
