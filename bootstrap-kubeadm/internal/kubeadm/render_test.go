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

package kubeadm

import (
	"errors"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	bootstrapv1 "capstan.dev/bootstrap-kubeadm/api/bootstrap/v1beta2"
	"capstan.dev/contracts/k8sbin"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// cluster is what a controller would read from a dual-stack Cluster and its Machine.
var cluster = Cluster{
	Name:                 "c1",
	ControlPlaneEndpoint: "10.0.0.10:6443",
	KubernetesVersion:    "v1.37.2",
	PodSubnets:           []string{"10.244.0.0/16", "fd00:10:244::/56"},
	ServiceSubnets:       []string{"10.96.0.0/12", "fd00:10:96::/112"},
	ServiceDomain:        "cluster.local",
}

func arg(name, value string) bootstrapv1.Arg {
	return bootstrapv1.Arg{Name: name, Value: ptr.To(value)}
}

// controlPlaneSpec is a control plane KubeadmConfigSpec as KubeadmControlPlane would write it,
// using every kubeadm field the API declares.
func controlPlaneSpec() bootstrapv1.KubeadmConfigSpec {
	return bootstrapv1.KubeadmConfigSpec{
		ClusterConfiguration: bootstrapv1.ClusterConfiguration{
			Etcd: bootstrapv1.Etcd{Local: bootstrapv1.LocalEtcd{
				ImageRepository: "registry.example/etcd-mirror",
				ImageTag:        "3.7.0-0",
				DataDir:         "/var/lib/etcd",
				ExtraArgs:       []bootstrapv1.Arg{arg("quota-backend-bytes", "8589934592")},
				ExtraEnvs:       &[]bootstrapv1.EnvVar{env("GOMAXPROCS", "2")},
				ServerCertSANs:  []string{"etcd.example"},
				PeerCertSANs:    []string{"10.0.0.2"},
			}},
			APIServer: bootstrapv1.APIServer{
				ExtraArgs: []bootstrapv1.Arg{arg("v", "2"), arg("profiling", ""), arg("audit-policy-file", "/etc/kubernetes/audit-policy.yaml")},
				ExtraVolumes: []bootstrapv1.HostPathMount{{
					Name: "audit-policy", HostPath: "/etc/kubernetes/audit-policy.yaml", MountPath: "/etc/kubernetes/audit-policy.yaml",
					ReadOnly: ptr.To(true), PathType: corev1.HostPathFile,
				}},
				ExtraEnvs: &[]bootstrapv1.EnvVar{env("HTTPS_PROXY", ""), {EnvVar: corev1.EnvVar{Name: "NODE_IP", ValueFrom: &corev1.EnvVarSource{
					FieldRef: &corev1.ObjectFieldSelector{FieldPath: "status.hostIP"},
				}}}},
				CertSANs: []string{"localhost", "127.0.0.1", "0.0.0.0"},
			},
			ControllerManager: bootstrapv1.ControllerManager{
				ExtraArgs:    []bootstrapv1.Arg{arg("bind-address", "0.0.0.0")},
				ExtraVolumes: []bootstrapv1.HostPathMount{{Name: "flex", HostPath: "/opt/flex", MountPath: "/opt/flex", PathType: corev1.HostPathDirectoryOrCreate}},
				ExtraEnvs:    &[]bootstrapv1.EnvVar{env("GODEBUG", "x509sha1=0")},
			},
			Scheduler: bootstrapv1.Scheduler{
				ExtraArgs:    []bootstrapv1.Arg{arg("bind-address", "0.0.0.0")},
				ExtraVolumes: []bootstrapv1.HostPathMount{{Name: "scheduler-config", HostPath: "/etc/kubernetes/scheduler", MountPath: "/etc/kubernetes/scheduler", ReadOnly: ptr.To(false)}},
				ExtraEnvs:    &[]bootstrapv1.EnvVar{env("GOGC", "50")},
			},
			DNS:                             bootstrapv1.DNS{ImageRepository: "registry.example/coredns-mirror", ImageTag: "v1.14.6"},
			CertificatesDir:                 "/etc/kubernetes/pki",
			CertificateValidityPeriodDays:   180,
			CACertificateValidityPeriodDays: 7300,
			EncryptionAlgorithm:             bootstrapv1.EncryptionAlgorithmECDSAP256,
			// kubeadm v1.37 knows a single feature gate; WaitForAllControlPlaneComponents and
			// ControlPlaneKubeletLocalMode went GA and were removed, so kubeadm rejects them.
			FeatureGates: map[string]bool{"RootlessControlPlane": false},
		},
		InitConfiguration: bootstrapv1.InitConfiguration{
			BootstrapTokens: []bootstrapv1.BootstrapToken{{
				Token: "abcdef.0123456789abcdef", Description: "first workers", TTLSeconds: ptr.To[int32](900),
				Usages: []string{"signing", "authentication"},
			}, {
				Token: "ghijkl.0123456789abcdef", Groups: []string{"system:bootstrappers:kubeadm:default-node-token"},
			}},
			NodeRegistration: bootstrapv1.NodeRegistrationOptions{
				Name:                  "c1-cp-0",
				CRISocket:             "unix:///var/run/containerd/containerd.sock",
				KubeletExtraArgs:      []bootstrapv1.Arg{arg("node-labels", "tier=cp")},
				IgnorePreflightErrors: []string{"Swap"},
				ImagePullPolicy:       corev1.PullNever,
				ImagePullSerial:       ptr.To(false),
			},
			LocalAPIEndpoint: bootstrapv1.APIEndpoint{AdvertiseAddress: "10.0.0.2", BindPort: 6443},
			SkipPhases:       []string{"addon/kube-proxy"},
			Patches:          bootstrapv1.Patches{Directory: "/etc/kubernetes/patches"},
			Timeouts:         bootstrapv1.Timeouts{ControlPlaneComponentHealthCheckSeconds: ptr.To[int32](600), KubeletHealthCheckSeconds: ptr.To[int32](120)},
		},
		JoinConfiguration: bootstrapv1.JoinConfiguration{
			NodeRegistration: bootstrapv1.NodeRegistrationOptions{
				Name:            "c1-cp-1",
				ImagePullPolicy: corev1.PullNever,
				ImagePullSerial: ptr.To(true),
				Taints:          &[]corev1.Taint{},
			},
			CACertPath: "/etc/kubernetes/pki/ca.crt",
			Discovery: bootstrapv1.Discovery{BootstrapToken: bootstrapv1.BootstrapTokenDiscovery{
				Token:        "abcdef.0123456789abcdef",
				CACertHashes: []string{"sha256:9a0b3c7e6f1d2a4b5c6d7e8f9a0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b"},
			}, TLSBootstrapToken: "mnopqr.0123456789abcdef"},
			ControlPlane: &bootstrapv1.JoinControlPlane{LocalAPIEndpoint: bootstrapv1.APIEndpoint{BindPort: 6443}},
			Timeouts: bootstrapv1.Timeouts{
				ControlPlaneComponentHealthCheckSeconds: ptr.To[int32](600), KubernetesAPICallSeconds: ptr.To[int32](30),
				EtcdAPICallSeconds: ptr.To[int32](60), TLSBootstrapSeconds: ptr.To[int32](300), DiscoverySeconds: ptr.To[int32](300),
			},
		},
	}
}

// workerSpec is a worker KubeadmConfigSpec after the controller filled in discovery.
func workerSpec() bootstrapv1.KubeadmConfigSpec {
	return bootstrapv1.KubeadmConfigSpec{
		JoinConfiguration: bootstrapv1.JoinConfiguration{
			NodeRegistration: bootstrapv1.NodeRegistrationOptions{
				KubeletExtraArgs: []bootstrapv1.Arg{arg("node-labels", "tier=web")},
			},
			Discovery: bootstrapv1.Discovery{BootstrapToken: bootstrapv1.BootstrapTokenDiscovery{
				Token:                    "abcdef.0123456789abcdef",
				UnsafeSkipCAVerification: ptr.To(true),
			}},
			SkipPhases: []string{"preflight"},
		},
	}
}

func env(name, value string) bootstrapv1.EnvVar {
	return bootstrapv1.EnvVar{EnvVar: corev1.EnvVar{Name: name, Value: value}}
}

// externalEtcdSpec is a control plane spec whose API servers use an external etcd cluster.
func externalEtcdSpec() bootstrapv1.KubeadmConfigSpec {
	spec := controlPlaneSpec()
	spec.ClusterConfiguration.Etcd = bootstrapv1.Etcd{External: bootstrapv1.ExternalEtcd{
		Endpoints: []string{"https://10.0.0.5:2379", "https://10.0.0.6:2379"},
		CAFile:    "/etc/kubernetes/pki/etcd/ca.crt",
		CertFile:  "/etc/kubernetes/pki/apiserver-etcd-client.crt",
		KeyFile:   "/etc/kubernetes/pki/apiserver-etcd-client.key",
	}}
	spec.ClusterConfiguration.ControlPlaneEndpoint = "cp.example:6443"
	return spec
}

// fileDiscoverySpec is a worker that discovers the cluster from a kubeconfig, with a token for
// its TLS bootstrap.
func fileDiscoverySpec() bootstrapv1.KubeadmConfigSpec {
	spec := workerSpec()
	spec.JoinConfiguration.Discovery = bootstrapv1.Discovery{
		File:              bootstrapv1.FileDiscovery{KubeConfigPath: "https://10.0.0.10:8443/cluster-info.kubeconfig"},
		TLSBootstrapToken: "abcdef.0123456789abcdef",
	}
	return spec
}

// TestRender_MatchesGoldenFiles pins the exact documents for the three kinds of node. Run with
// -update to rewrite testdata/ after an intended change, then review the diff.
func TestRender_MatchesGoldenFiles(t *testing.T) {
	tests := []struct {
		golden string
		render func() ([]byte, error)
	}{
		{golden: "init.yaml", render: func() ([]byte, error) { return Init(controlPlaneSpec(), cluster) }},
		{golden: "join-control-plane.yaml", render: func() ([]byte, error) { return Join(controlPlaneSpec(), cluster, ControlPlane) }},
		{golden: "join-worker.yaml", render: func() ([]byte, error) { return Join(workerSpec(), cluster, Worker) }},
		{golden: "init-external-etcd.yaml", render: func() ([]byte, error) { return Init(externalEtcdSpec(), cluster) }},
		{golden: "join-worker-file-discovery.yaml", render: func() ([]byte, error) { return Join(fileDiscoverySpec(), cluster, Worker) }},
	}
	for _, tt := range tests {
		t.Run(tt.golden, func(t *testing.T) {
			got, err := tt.render()
			require.NoError(t, err)
			assertGolden(t, filepath.Join("testdata", tt.golden), got)
		})
	}
}

// TestRender_GoldenFilesPassKubeadmConfigValidate runs the real kubeadm (v1.37.2, built by
// `make k8s-binaries`) on every golden file. kubeadm decodes strictly, so a misspelt field, a
// v1beta3 shape or a wrong type fails here rather than on a node.
func TestRender_GoldenFilesPassKubeadmConfigValidate(t *testing.T) {
	kubeadm, err := k8sbin.Path("kubeadm")
	require.NoError(t, err)
	goldens, err := filepath.Glob(filepath.Join("testdata", "*.yaml"))
	require.NoError(t, err)
	require.Len(t, goldens, 5, "every golden file is validated")
	for _, golden := range goldens {
		t.Run(filepath.Base(golden), func(t *testing.T) {
			out, err := exec.CommandContext(t.Context(), kubeadm, "config", "validate", "--config", golden).CombinedOutput()
			require.NoErrorf(t, err, "kubeadm config validate:\n%s", out)
		})
	}
}

// TestInit_RefusesATokenWithExpires: kubeadm v1.37 defaults ttl and then refuses ttl and expires
// together, so a configuration with expires can never pass; found with kubeadm config validate.
func TestInit_RefusesATokenWithExpires(t *testing.T) {
	spec := controlPlaneSpec()
	spec.InitConfiguration.BootstrapTokens[1].Expires = metav1.NewTime(time.Date(2036, 3, 9, 9, 0, 0, 0, time.UTC))
	_, err := Init(spec, cluster)
	require.ErrorContains(t, err, "initConfiguration.bootstrapTokens[1].expires: kubeadm refuses expires in its configuration file; use ttlSeconds")
	require.False(t, errors.Is(err, ErrIncomplete), "waiting cannot fix the spec")
}

func TestInit_RequiresKubernetesVersionSoKubeadmNeverLooksItUp(t *testing.T) {
	c := cluster
	c.KubernetesVersion = ""
	_, err := Init(controlPlaneSpec(), c)
	require.ErrorIs(t, err, ErrIncomplete)
	require.ErrorContains(t, err, "kubeadm init needs the Kubernetes version (the Machine's spec.version)")
}

func TestNewClusterConfiguration_TakesClusterValuesAndPassesSettingsThrough(t *testing.T) {
	spec := bootstrapv1.ClusterConfiguration{
		APIServer:    bootstrapv1.APIServer{ExtraArgs: []bootstrapv1.Arg{arg("audit-log-path", "-"), {Name: "profiling"}}},
		FeatureGates: map[string]bool{"WaitForAllControlPlaneComponents": true},
	}
	got := NewClusterConfiguration(spec, Cluster{
		Name: "c1", ControlPlaneEndpoint: "lb:6443", KubernetesVersion: "v1.37.2",
		PodSubnets: []string{"10.244.0.0/16"}, ServiceDomain: "cluster.test",
	})
	want := ClusterConfiguration{
		Networking:           Networking{PodSubnet: "10.244.0.0/16", DNSDomain: "cluster.test"},
		KubernetesVersion:    "v1.37.2",
		ControlPlaneEndpoint: "lb:6443",
		// An unset value is written as "" because kubeadm requires the key.
		APIServer:    APIServer{ControlPlaneComponent: ControlPlaneComponent{ExtraArgs: []Arg{{"audit-log-path", "-"}, {"profiling", ""}}}},
		FeatureGates: map[string]bool{"WaitForAllControlPlaneComponents": true},
		ClusterName:  "c1",
	}
	want.APIVersion, want.Kind = APIVersion, ClusterConfigurationKind
	require.Empty(t, cmp.Diff(want, got), "(-want +got)")

	// The result must not share the spec's map: the controller may mutate one after rendering.
	got.FeatureGates["X"] = true
	require.NotContains(t, spec.FeatureGates, "X")
}

func TestNewJoinConfiguration_ByRole(t *testing.T) {
	uninitialized := corev1.Taint{Key: "node.cluster.x-k8s.io/uninitialized", Effect: corev1.TaintEffectNoSchedule}
	dedicated := corev1.Taint{Key: "dedicated", Value: "gpu", Effect: corev1.TaintEffectNoSchedule}
	tests := []struct {
		name             string
		role             Role
		spec             func(*bootstrapv1.JoinConfiguration)
		wantTaints       *[]corev1.Taint
		wantControlPlane *JoinControlPlane
	}{
		{
			name:             "ControlPlaneWithoutControlPlaneBlockGetsAnEmptyOne",
			role:             ControlPlane,
			spec:             func(j *bootstrapv1.JoinConfiguration) { j.ControlPlane = nil },
			wantControlPlane: &JoinControlPlane{},
		},
		{
			name:             "ControlPlaneKeepsKubeadmDefaultTaintsWhenUnset",
			role:             ControlPlane,
			spec:             func(j *bootstrapv1.JoinConfiguration) { j.ControlPlane = &bootstrapv1.JoinControlPlane{} },
			wantControlPlane: &JoinControlPlane{},
		},
		{
			name:       "WorkerGetsTheUninitializedTaint",
			role:       Worker,
			spec:       func(*bootstrapv1.JoinConfiguration) {},
			wantTaints: &[]corev1.Taint{uninitialized},
		},
		{
			name: "WorkerKeepsItsTaintsAndGetsTheUninitializedOne",
			role: Worker,
			spec: func(j *bootstrapv1.JoinConfiguration) {
				j.NodeRegistration.Taints = &[]corev1.Taint{dedicated}
			},
			wantTaints: &[]corev1.Taint{dedicated, uninitialized},
		},
		{
			name: "WorkerWithTheUninitializedTaintAlreadyIsNotTaintedTwice",
			role: Worker,
			spec: func(j *bootstrapv1.JoinConfiguration) {
				j.NodeRegistration.Taints = &[]corev1.Taint{uninitialized, dedicated}
			},
			wantTaints: &[]corev1.Taint{uninitialized, dedicated},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spec := workerSpec().JoinConfiguration
			tt.spec(&spec)
			before := spec.DeepCopy()
			got, err := NewJoinConfiguration(spec, cluster, tt.role)
			require.NoError(t, err)
			require.Empty(t, cmp.Diff(tt.wantTaints, got.NodeRegistration.Taints), "taints (-want +got)")
			require.Empty(t, cmp.Diff(tt.wantControlPlane, got.ControlPlane), "controlPlane (-want +got)")
			require.Empty(t, cmp.Diff(before, &spec), "the spec was modified")
		})
	}
}

func TestNewJoinConfiguration_DiscoveryEndpointDefaultsToTheClusterEndpoint(t *testing.T) {
	spec := workerSpec().JoinConfiguration
	got, err := NewJoinConfiguration(spec, cluster, Worker)
	require.NoError(t, err)
	require.Equal(t, "10.0.0.10:6443", got.Discovery.BootstrapToken.APIServerEndpoint)

	spec.Discovery.BootstrapToken.APIServerEndpoint = "10.0.0.11:6443"
	got, err = NewJoinConfiguration(spec, cluster, Worker)
	require.NoError(t, err)
	require.Equal(t, "10.0.0.11:6443", got.Discovery.BootstrapToken.APIServerEndpoint)
}

func TestNewJoinConfiguration_RefusesWhatKubeadmCannotJoinWith(t *testing.T) {
	tests := []struct {
		name    string
		role    Role
		cluster Cluster
		spec    func(*bootstrapv1.JoinConfiguration)
		// wantIncomplete says the error wraps ErrIncomplete (the controller should wait).
		wantIncomplete bool
		wantErr        string
	}{
		{
			name: "WorkerWithControlPlaneBlock", role: Worker, cluster: cluster,
			spec:    func(j *bootstrapv1.JoinConfiguration) { j.ControlPlane = &bootstrapv1.JoinControlPlane{} },
			wantErr: "joinConfiguration.controlPlane is set but the Machine joins as a worker",
		},
		{
			name: "UnknownRole", role: "etcd", cluster: cluster, spec: func(*bootstrapv1.JoinConfiguration) {},
			wantErr: `unknown join role "etcd": want "control-plane" or "worker"`,
		},
		{
			name: "NoToken", role: Worker, cluster: cluster, wantIncomplete: true,
			spec:    func(j *bootstrapv1.JoinConfiguration) { j.Discovery.BootstrapToken.Token = "" },
			wantErr: "kubeadm join needs discovery.bootstrapToken.token",
		},
		{
			name: "NoEndpointAnywhere", role: Worker, cluster: Cluster{}, wantIncomplete: true,
			spec:    func(*bootstrapv1.JoinConfiguration) {},
			wantErr: "kubeadm join needs discovery.bootstrapToken.apiServerEndpoint (or the Cluster's controlPlaneEndpoint)",
		},
		{
			name: "NeitherCAHashesNorUnsafeSkip", role: ControlPlane, cluster: cluster, wantIncomplete: true,
			spec: func(j *bootstrapv1.JoinConfiguration) {
				j.Discovery.BootstrapToken.UnsafeSkipCAVerification = ptr.To(false)
			},
			wantErr: "kubeadm join needs discovery.bootstrapToken.caCertHashes (or unsafeSkipCAVerification: true)",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spec := workerSpec()
			tt.spec(&spec.JoinConfiguration)
			_, err := Join(spec, tt.cluster, tt.role)
			require.ErrorContains(t, err, tt.wantErr)
			require.Equal(t, tt.wantIncomplete, errors.Is(err, ErrIncomplete))
		})
	}
}

// TestMarshal_TaintsKeepKubeadmsThreeMeanings checks the YAML, not the structs: kubeadm reads an
// absent taints key as "default taints" and an empty list as "no taints".
func TestMarshal_TaintsKeepKubeadmsThreeMeanings(t *testing.T) {
	tests := []struct {
		name   string
		taints *[]corev1.Taint
		want   string
	}{
		{name: "Unset", taints: nil, want: "nodeRegistration:\n  name: node-0\n"},
		{name: "Empty", taints: &[]corev1.Taint{}, want: "nodeRegistration:\n  name: node-0\n  taints: []\n"},
		{name: "One", taints: &[]corev1.Taint{{Key: "k", Effect: corev1.TaintEffectNoExecute}}, want: "  taints:\n  - effect: NoExecute\n    key: k\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			init := NewInitConfiguration(bootstrapv1.InitConfiguration{
				NodeRegistration: bootstrapv1.NodeRegistrationOptions{Name: "node-0", Taints: tt.taints},
			})
			got, err := Marshal(init)
			require.NoError(t, err)
			require.Contains(t, string(got), tt.want)
		})
	}
}

func assertGolden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		require.NoError(t, os.WriteFile(path, got, 0o600))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "run the test with -update to create the golden file")
	require.Empty(t, cmp.Diff(string(want), string(got)), "%s differs (-golden +got); run with -update after an intended change", path)
}

func TestNewClusterConfiguration_ControlPlaneEndpointOfTheSpecWinsOverTheClusters(t *testing.T) {
	got := NewClusterConfiguration(bootstrapv1.ClusterConfiguration{}, cluster)
	require.Equal(t, "10.0.0.10:6443", got.ControlPlaneEndpoint)

	got = NewClusterConfiguration(bootstrapv1.ClusterConfiguration{ControlPlaneEndpoint: "cp.example:6443"}, cluster)
	require.Equal(t, "cp.example:6443", got.ControlPlaneEndpoint)
}

func TestNewClusterConfiguration_ExternalEtcdReplacesTheLocalMember(t *testing.T) {
	spec := externalEtcdSpec().ClusterConfiguration
	spec.Etcd.Local = bootstrapv1.LocalEtcd{DataDir: "/ignored"} // the API refuses both; the renderer must not write both
	got := NewClusterConfiguration(spec, cluster)
	require.Equal(t, Etcd{External: &ExternalEtcd{
		Endpoints: []string{"https://10.0.0.5:2379", "https://10.0.0.6:2379"},
		CAFile:    "/etc/kubernetes/pki/etcd/ca.crt",
		CertFile:  "/etc/kubernetes/pki/apiserver-etcd-client.crt",
		KeyFile:   "/etc/kubernetes/pki/apiserver-etcd-client.key",
	}}, got.Etcd)
}

// TestNewJoinConfiguration_FileDiscoveryNeedsNoBootstrapToken: with discovery.file the node
// neither needs a token nor CA hashes, and the Cluster's endpoint is not used, as upstream.
func TestNewJoinConfiguration_FileDiscoveryNeedsNoBootstrapToken(t *testing.T) {
	got, err := NewJoinConfiguration(fileDiscoverySpec().JoinConfiguration, Cluster{}, Worker)
	require.NoError(t, err)
	require.Equal(t, Discovery{
		File:              &FileDiscovery{KubeConfigPath: "https://10.0.0.10:8443/cluster-info.kubeconfig"},
		TLSBootstrapToken: "abcdef.0123456789abcdef",
	}, got.Discovery)
}

func TestNewClusterConfiguration_SharesNothingWithTheSpec(t *testing.T) {
	spec := controlPlaneSpec()
	got := NewClusterConfiguration(spec.ClusterConfiguration, cluster)
	got.APIServer.ExtraEnvs[0].Name = "CHANGED"
	got.APIServer.ExtraVolumes[0].Name = "changed"
	got.Etcd.Local.ServerCertSANs[0] = "changed"
	require.Empty(t, cmp.Diff(controlPlaneSpec(), spec), "the spec was modified through the rendered configuration")
}
