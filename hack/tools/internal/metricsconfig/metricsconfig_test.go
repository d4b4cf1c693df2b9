package metricsconfig

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"
)

const repoRoot = "../../../.."

func TestConfig_FileIsTheRenderedTable(t *testing.T) {
	want, err := Render()
	require.NoError(t, err)
	have, err := os.ReadFile(filepath.Join(repoRoot, ConfigPath))
	require.NoError(t, err)
	require.Equal(t, string(want), string(have), "%s is stale: run make generate", ConfigPath)
}

// The names upstream's configuration exports, which dashboards written for upstream query.
func TestConfig_DefinesUpstreamMetricNames(t *testing.T) {
	names := MetricNames()
	for _, kind := range []string{"cluster", "clusterclass", "machine", "machineset", "machinedeployment", "machinepool",
		"machinehealthcheck", "kubeadmconfig", "kubeadmcontrolplane", "clusterresourceset", "dockercluster", "dockermachine",
		"devcluster", "devmachine", "ipaddressclaim", "extensionconfig"} {
		require.True(t, names["capi_"+kind+"_status_condition"], kind)
		require.True(t, names["capi_"+kind+"_status_condition_last_transition_time"], kind)
	}
	for _, name := range []string{
		"capi_cluster_info", "capi_cluster_status_phase", "capi_cluster_spec_paused", "capi_cluster_created", "capi_cluster_annotation_paused",
		"capi_machine_info", "capi_machine_status_phase", "capi_machine_created", "capi_machine_addresses", "capi_machine_status_noderef",
		"capi_machine_owner", "capi_machine_status_certificatesexpirydate",
		"capi_machinedeployment_spec_replicas", "capi_machinedeployment_status_replicas_uptodate",
		"capi_machinedeployment_spec_strategy_rollingupdate_max_unavailable", "capi_machinedeployment_status_phase",
		"capi_machineset_spec_replicas", "capi_machineset_status_replicas_ready",
		"capi_machinepool_status_phase", "capi_machinepool_status_replicas_available",
		"capi_machinehealthcheck_status_current_healthy", "capi_machinehealthcheck_status_expected_machines",
		"capi_machinehealthcheck_status_remediations_allowed", "capi_machinehealthcheck_info",
		"capi_kubeadmcontrolplane_status_replicas", "capi_kubeadmcontrolplane_spec_replicas",
		"capi_kubeadmcontrolplane_spec_strategy_rollingupdate_max_surge", "capi_kubeadmcontrolplane_info",
		"capi_kubeadmconfig_info", "capi_kubeadmconfig_owner", "capi_clusterclass_info",
	} {
		require.True(t, names[name], name)
	}
}

var (
	// What is not a metric name in an expression: strings, label matchers, ranges, grouping
	// label lists and numbers.
	promStrings   = regexp.MustCompile(`"(?:[^"\\]|\\.)*"`)
	promMatchers  = regexp.MustCompile(`\{[^}]*\}`)
	promRanges    = regexp.MustCompile(`\[[^\]]*\]`)
	promGrouping  = regexp.MustCompile(`\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)`)
	promIdent     = regexp.MustCompile(`[A-Za-z_:][A-Za-z0-9_:]*(\s*\()?`)
	promKeywords  = map[string]bool{"by": true, "without": true, "on": true, "ignoring": true, "group_left": true, "group_right": true, "bool": true, "and": true, "or": true, "unless": true, "offset": true, "inf": true, "nan": true}
	labelValuesOf = regexp.MustCompile(`label_values\(\s*([A-Za-z_:][A-Za-z0-9_:]*)\s*,`)
)

// metricNamesIn returns the metric names a PromQL expression selects: every identifier left
// once strings, matchers, ranges and grouping lists are removed that is neither a function or
// aggregation (followed by "(") nor a keyword.
func metricNamesIn(expr string) []string {
	e := promStrings.ReplaceAllString(expr, `""`)
	e = promMatchers.ReplaceAllString(e, " ")
	e = promRanges.ReplaceAllString(e, " ")
	e = promGrouping.ReplaceAllString(e, " ")
	var names []string
	for _, m := range promIdent.FindAllStringSubmatch(e, -1) {
		if m[1] != "" || promKeywords[strings.ToLower(m[0])] {
			continue
		}
		names = append(names, m[0])
	}
	return names
}

func TestMetricNamesIn(t *testing.T) {
	require.Equal(t, []string{"a_total", "b"}, metricNamesIn(`sum by (phase, x) (rate(a_total{x="y{z}", w!~"$v"}[5m])) / on(name) group_left(k) b > 0 or vector(0)`))
	require.Empty(t, metricNamesIn(`time() - 3600`))
}

// Every metric a dashboard query names is one the configuration defines: a renamed or removed
// metric fails here rather than leaving an empty panel.
func TestDashboard_QueriesOnlyMetricsTheConfigDefines(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(repoRoot, "config/metrics/dashboard.json"))
	require.NoError(t, err)
	var dash struct {
		Panels []struct {
			Title   string
			Targets []struct{ Expr string }
		}
		Templating struct {
			List []struct {
				Name       string
				Definition string
			}
		}
	}
	require.NoError(t, json.Unmarshal(data, &dash))

	// The metric names the shipped file defines, read from it as kube-state-metrics reads it.
	cfgData, err := os.ReadFile(filepath.Join(repoRoot, ConfigPath))
	require.NoError(t, err)
	var cfg config
	require.NoError(t, yaml.UnmarshalStrict(cfgData, &cfg))
	defined := map[string]bool{}
	for _, r := range cfg.Spec.Resources {
		for _, m := range r.Metrics {
			defined[r.MetricNamePrefix+"_"+m.Name] = true
		}
	}

	used := map[string]bool{}
	exprs := 0
	for _, p := range dash.Panels {
		for _, target := range p.Targets {
			exprs++
			names := metricNamesIn(target.Expr)
			require.NotEmpty(t, names, "panel %q: %s names no metric", p.Title, target.Expr)
			for _, n := range names {
				require.True(t, defined[n], "panel %q queries %s, which %s does not define: %s", p.Title, n, ConfigPath, target.Expr)
				used[n] = true
			}
		}
	}
	for _, v := range dash.Templating.List {
		for _, m := range labelValuesOf.FindAllStringSubmatch(v.Definition, -1) {
			require.True(t, defined[m[1]], "variable %s queries %s, which %s does not define", v.Name, m[1], ConfigPath)
		}
	}
	require.Greater(t, exprs, 10)
	// The panels the dashboard promises: phases, ages, rollouts, remediations, etcd members.
	for _, n := range []string{"capi_cluster_status_phase", "capi_machine_status_phase", "capi_machine_created",
		"capi_machinedeployment_status_replicas_uptodate", "capi_kubeadmcontrolplane_status_replicas_uptodate",
		"capi_machinehealthcheck_status_current_healthy", "capi_machine_status_condition", "capi_kubeadmcontrolplane_status_condition"} {
		require.True(t, used[n], "no panel queries %s", n)
	}
	list := dashboardMetrics(t)
	require.Len(t, list, len(used))
	t.Logf("the dashboard queries %d metrics: %s", len(list), strings.Join(list, ", "))
}

// dashboardExprs returns the PromQL expression of every panel target, in panel order.
func dashboardExprs(t *testing.T) []string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(repoRoot, "config/metrics/dashboard.json"))
	require.NoError(t, err)
	var dash struct {
		Panels []struct{ Targets []struct{ Expr string } }
	}
	require.NoError(t, json.Unmarshal(data, &dash))
	var out []string
	for _, p := range dash.Panels {
		for _, target := range p.Targets {
			out = append(out, target.Expr)
		}
	}
	return out
}

// dashboardMetrics returns the metric names the dashboard's panels query, sorted.
func dashboardMetrics(t *testing.T) []string {
	t.Helper()
	set := map[string]bool{}
	for _, expr := range dashboardExprs(t) {
		for _, n := range metricNamesIn(expr) {
			set[n] = true
		}
	}
	var out []string
	for n := range set {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

var (
	promSelector  = regexp.MustCompile(`([A-Za-z_:][A-Za-z0-9_:]*)\{([^}]*)\}`)
	promMatcher   = regexp.MustCompile(`([A-Za-z_][A-Za-z0-9_]*)\s*(?:=~|!~|!=|=)`)
	promGroupList = regexp.MustCompile(`\b(?:by|without|on|ignoring)\s*\(([^)]*)\)`)
)

// labelsIn returns, for an expression, the label names each selector matches on (by metric)
// and the label names its grouping clauses (by, on, ...) name.
func labelsIn(expr string) (matchers map[string][]string, grouping []string) {
	matchers = map[string][]string{}
	e := promStrings.ReplaceAllString(expr, `""`)
	for _, m := range promSelector.FindAllStringSubmatch(e, -1) {
		for _, l := range promMatcher.FindAllStringSubmatch(m[2], -1) {
			matchers[m[1]] = append(matchers[m[1]], l[1])
		}
	}
	for _, m := range promGroupList.FindAllStringSubmatch(e, -1) {
		for _, l := range strings.Split(m[1], ",") {
			if l = strings.TrimSpace(l); l != "" {
				grouping = append(grouping, l)
			}
		}
	}
	return matchers, grouping
}

func TestLabelsIn(t *testing.T) {
	matchers, grouping := labelsIn(`sum by (cluster_name, name) (a{type="x,y}", status!="True"}) - on(name) b{cluster_name=~"$c"}`)
	require.Equal(t, map[string][]string{"a": {"type", "status"}, "b": {"cluster_name"}}, matchers)
	require.Equal(t, []string{"cluster_name", "name", "name"}, grouping)
}
