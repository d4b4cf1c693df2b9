package node

import (
	"bytes"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	yaml "go.yaml.in/yaml/v3"
)

func TestAmendKubeadmConfig_AddsTheNodeContainerSettings(t *testing.T) {
	wantArgs := []any{
		map[string]any{"name": "node-labels", "value": "tier=web"},
		map[string]any{"name": "cgroup-driver", "value": "cgroupfs"},
		map[string]any{"name": "eviction-hard", "value": "nodefs.available<0%,nodefs.inodesFree<0%,imagefs.available<0%"},
		map[string]any{"name": "fail-cgroupv1", "value": "false"},
		map[string]any{"name": "image-gc-high-threshold", "value": "100"},
		map[string]any{"name": "resolv-conf", "value": "/etc/capstan/pod-resolv.conf"},
	}
	wantIgnored := []any{"Swap", "FileContent--proc-sys-net-bridge-bridge-nf-call-iptables", "SystemVerification"}
	for _, tc := range []struct {
		name, in string
		// docs are the expected documents; nil entries are passed through unchanged.
		want []map[string]any
	}{{
		name: "init with cluster configuration (v1beta4 lists)",
		in: `---
apiVersion: kubeadm.k8s.io/v1beta4
kind: ClusterConfiguration
kubernetesVersion: v1.37.2
controlPlaneEndpoint: 127.0.0.1:32768
---
apiVersion: kubeadm.k8s.io/v1beta4
kind: InitConfiguration
nodeRegistration:
  ignorePreflightErrors:
  - Swap
  kubeletExtraArgs:
  - name: node-labels
    value: tier=web
  - name: cgroup-driver
    value: systemd
  name: c1-cp-0
`,
		want: []map[string]any{
			{"apiVersion": "kubeadm.k8s.io/v1beta4", "kind": "ClusterConfiguration", "kubernetesVersion": "v1.37.2", "controlPlaneEndpoint": "127.0.0.1:32768"},
			{"apiVersion": "kubeadm.k8s.io/v1beta4", "kind": "InitConfiguration", "nodeRegistration": map[string]any{
				"name": "c1-cp-0", "ignorePreflightErrors": wantIgnored, "kubeletExtraArgs": wantArgs,
			}},
			{"apiVersion": "kubeproxy.config.k8s.io/v1alpha1", "kind": "KubeProxyConfiguration", "conntrack": map[string]any{"maxPerCore": 0}},
		},
	}, {
		name: "init with the user's kube-proxy configuration",
		in: `apiVersion: kubeadm.k8s.io/v1beta4
kind: InitConfiguration
---
apiVersion: kubeproxy.config.k8s.io/v1alpha1
kind: KubeProxyConfiguration
mode: iptables
conntrack:
  maxPerCore: 32768
  min: 131072
`,
		want: []map[string]any{
			{"apiVersion": "kubeadm.k8s.io/v1beta4", "kind": "InitConfiguration", "nodeRegistration": map[string]any{
				"kubeletExtraArgs": wantArgs[1:], "ignorePreflightErrors": []any{"FileContent--proc-sys-net-bridge-bridge-nf-call-iptables", "Swap", "SystemVerification"}}},
			{"apiVersion": "kubeproxy.config.k8s.io/v1alpha1", "kind": "KubeProxyConfiguration", "mode": "iptables",
				"conntrack": map[string]any{"maxPerCore": 0, "min": 131072}},
		},
	}, {
		name: "join without nodeRegistration",
		in: `apiVersion: kubeadm.k8s.io/v1beta4
kind: JoinConfiguration
discovery:
  bootstrapToken:
    apiServerEndpoint: 127.0.0.1:32768
`,
		want: []map[string]any{{"apiVersion": "kubeadm.k8s.io/v1beta4", "kind": "JoinConfiguration",
			"discovery": map[string]any{"bootstrapToken": map[string]any{"apiServerEndpoint": "127.0.0.1:32768"}},
			"nodeRegistration": map[string]any{
				"kubeletExtraArgs":      wantArgs[1:],
				"ignorePreflightErrors": []any{"FileContent--proc-sys-net-bridge-bridge-nf-call-iptables", "Swap", "SystemVerification"},
			}}},
	}, {
		name: "v1beta3 map of kubelet flags; all preflight errors ignored already",
		in: `apiVersion: kubeadm.k8s.io/v1beta3
kind: JoinConfiguration
nodeRegistration:
  ignorePreflightErrors: [all]
  kubeletExtraArgs:
    node-labels: a=b
`,
		want: []map[string]any{{"apiVersion": "kubeadm.k8s.io/v1beta3", "kind": "JoinConfiguration",
			"nodeRegistration": map[string]any{
				"ignorePreflightErrors": []any{"all"},
				"kubeletExtraArgs": map[string]any{"node-labels": "a=b", "cgroup-driver": "cgroupfs",
					"eviction-hard": "nodefs.available<0%,nodefs.inodesFree<0%,imagefs.available<0%", "fail-cgroupv1": "false",
					"image-gc-high-threshold": "100", "resolv-conf": "/etc/capstan/pod-resolv.conf"},
			}}},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := amendKubeadmConfig([]byte(tc.in))
			require.NoError(t, err)
			var got []map[string]any
			dec := yaml.NewDecoder(bytes.NewReader(out))
			for {
				var doc map[string]any
				if dec.Decode(&doc) != nil {
					break
				}
				got = append(got, doc)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Fatalf("amended documents (-want +got):\n%s\n%s", diff, out)
			}
			again, err := amendKubeadmConfig(out)
			require.NoError(t, err)
			require.Equal(t, string(out), string(again), "amending twice changes nothing more")
		})
	}
}

func TestAmendKubeadmConfig_RefusesWhatIsNotKubeadmYAML(t *testing.T) {
	_, err := amendKubeadmConfig([]byte("apiVersion: kubeadm.k8s.io/v1beta4\nkind: InitConfiguration\nnodeRegistration:\n  kubeletExtraArgs: 3\n"))
	require.ErrorContains(t, err, "kubeletExtraArgs (line 4) is neither a list nor a mapping")
	_, err = amendKubeadmConfig([]byte("a: [b"))
	require.ErrorContains(t, err, "parsing the kubeadm configuration")
}
