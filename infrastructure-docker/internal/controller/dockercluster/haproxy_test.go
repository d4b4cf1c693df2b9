package dockercluster

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"capstan.dev/infrastructure-docker/internal/docker"
)

func TestBackendsOf_SkipsStoppedContainersAndSortsByName(t *testing.T) {
	got := backendsOf([]docker.Container{
		{Name: "c-cp-2", IPv4: "172.18.0.4", Running: true},
		{Name: "c-cp-0", IPv4: "172.18.0.2", Running: true},
		{Name: "c-cp-1", IPv4: "172.18.0.3", Running: false},
		{Name: "c-cp-3", Running: true},
	})
	require.Equal(t, []backend{{"c-cp-0", "172.18.0.2"}, {"c-cp-2", "172.18.0.4"}}, got)
}

func TestRenderHAProxyConfig_ListsEveryBackendHealthChecked(t *testing.T) {
	cfg := renderHAProxyConfig(docker.Owner{Namespace: "ns", Cluster: "c"}, []backend{{"c-cp-0", "172.18.0.2"}, {"c-cp-1", "172.18.0.3"}})
	require.Contains(t, cfg, "for Cluster ns/c")
	require.Contains(t, cfg, "  bind *:6443\n")
	require.Contains(t, cfg, "  option httpchk GET /healthz\n")
	require.Contains(t, cfg, "  server c-cp-0 172.18.0.2:6443 check check-ssl verify none\n  server c-cp-1 172.18.0.3:6443 check check-ssl verify none\n")
	require.NotContains(t, cfg, "resolvers", "no DNS: backends are addressed by IP")
	require.Equal(t, 0, strings.Count(renderHAProxyConfig(docker.Owner{}, nil), "  server "))
}
