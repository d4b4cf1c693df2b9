package kubeconfig

import (
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
)

func kubeconfigFor(t *testing.T, servers map[string]string) []byte {
	t.Helper()
	cfg := clientcmdapi.NewConfig()
	for name, server := range servers {
		cfg.Clusters[name] = &clientcmdapi.Cluster{Server: server, CertificateAuthorityData: []byte("ca")}
		cfg.AuthInfos[name+"-admin"] = &clientcmdapi.AuthInfo{Token: "secret-token"}
		cfg.Contexts[name] = &clientcmdapi.Context{Cluster: name, AuthInfo: name + "-admin"}
		cfg.CurrentContext = name
	}
	b, err := clientcmd.Write(*cfg)
	require.NoError(t, err)
	return b
}

func servers(t *testing.T, b []byte) map[string]string {
	t.Helper()
	cfg, err := clientcmd.Load(b)
	require.NoError(t, err)
	out := map[string]string{}
	for n, c := range cfg.Clusters {
		out[n] = c.Server
	}
	return out
}

func TestRewriteServer_PointsEveryClusterAtTheEndpointAndKeepsCredentials(t *testing.T) {
	in := kubeconfigFor(t, map[string]string{"wl": "https://172.18.0.3:6443"})
	out, err := RewriteServer(in, "https://127.0.0.1:32768")
	require.NoError(t, err)
	require.Equal(t, map[string]string{"wl": "https://127.0.0.1:32768"}, servers(t, out))
	cfg, err := clientcmd.Load(out)
	require.NoError(t, err)
	require.Equal(t, "secret-token", cfg.AuthInfos["wl-admin"].Token)
	require.Equal(t, []byte("ca"), cfg.Clusters["wl"].CertificateAuthorityData)
	require.Equal(t, "wl", cfg.CurrentContext)
}

func TestRewriteServer_SameHostAndPortLeavesTheBytesAlone(t *testing.T) {
	for _, s := range []string{"https://10.0.0.1:443", "https://10.0.0.1"} {
		in := kubeconfigFor(t, map[string]string{"wl": s})
		out, err := RewriteServer(in, "https://10.0.0.1:443")
		require.NoError(t, err)
		require.Equal(t, in, out, s)
	}
}

func TestRewriteServer_RejectsGarbage(t *testing.T) {
	_, err := RewriteServer([]byte("not: [a kubeconfig"), "https://x:1")
	require.ErrorContains(t, err, "parsing the kubeconfig")
	_, err = RewriteServer(kubeconfigFor(t, nil), "https://x:1")
	require.ErrorContains(t, err, "no clusters")
}

func TestEndpointServer(t *testing.T) {
	require.Equal(t, "https://127.0.0.1:6443", EndpointServer(clusterv1.APIEndpoint{Host: "127.0.0.1", Port: 6443}))
	require.Equal(t, "https://[fd00::1]:6443", EndpointServer(clusterv1.APIEndpoint{Host: "fd00::1", Port: 6443}))
	require.Empty(t, EndpointServer(clusterv1.APIEndpoint{Host: "lb"}), "no port yet: not set")
	require.Empty(t, EndpointServer(clusterv1.APIEndpoint{}))
}

func TestValidateServer(t *testing.T) {
	require.NoError(t, validateServer("https://127.0.0.1:6443"))
	for _, bad := range []string{"127.0.0.1:6443", "http://127.0.0.1:6443", "https://", "::"} {
		require.ErrorContains(t, validateServer(bad), "https://host:port", bad)
	}
}
