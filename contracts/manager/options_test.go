package manager

import (
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
		{[]string{"--profiling", "--metrics-bind-address=0"}, "--profiling serves on the metrics endpoint"},
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
