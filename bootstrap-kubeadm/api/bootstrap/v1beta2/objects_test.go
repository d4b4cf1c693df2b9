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

package v1beta2_test

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	bootstrapv1 "capstan.dev/bootstrap-kubeadm/api/bootstrap/v1beta2"
	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
)

// The builders below return minimal valid objects; tests change one thing to hit one rule.

func newKubeadmConfig(ns string) *bootstrapv1.KubeadmConfig {
	return &bootstrapv1.KubeadmConfig{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "kc1"},
		Spec: bootstrapv1.KubeadmConfigSpec{
			JoinConfiguration: bootstrapv1.JoinConfiguration{
				NodeRegistration: bootstrapv1.NodeRegistrationOptions{Name: "worker-0"},
			},
		},
	}
}

// ignitionKubeadmConfig is newKubeadmConfig with format ignition and a strict additionalConfig.
func ignitionKubeadmConfig(ns string) *bootstrapv1.KubeadmConfig {
	kc := newKubeadmConfig(ns)
	kc.Spec.Format = bootstrapv1.Ignition
	kc.Spec.Ignition.ContainerLinuxConfig = bootstrapv1.ContainerLinuxConfig{AdditionalConfig: "systemd:\n  units: []\n", Strict: ptr.To(true)}
	return kc
}

func newKubeadmConfigTemplate(ns string) *bootstrapv1.KubeadmConfigTemplate {
	return &bootstrapv1.KubeadmConfigTemplate{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "kct1"},
		Spec: bootstrapv1.KubeadmConfigTemplateSpec{
			Template: bootstrapv1.KubeadmConfigTemplateResource{
				Spec: newKubeadmConfig(ns).Spec,
			},
		},
	}
}

func arg(name, value string) bootstrapv1.Arg {
	return bootstrapv1.Arg{Name: name, Value: ptr.To(value)}
}

// fullSpec sets every field this API declares, so that a round trip through the apiserver
// proves none of them is pruned or rewritten.
func fullSpec() bootstrapv1.KubeadmConfigSpec {
	return bootstrapv1.KubeadmConfigSpec{
		ClusterConfiguration: bootstrapv1.ClusterConfiguration{
			Etcd: bootstrapv1.Etcd{Local: bootstrapv1.LocalEtcd{
				ImageRepository: "mirror.test/etcd",
				ImageTag:        "3.7.0-0",
				DataDir:         "/var/lib/etcd-data",
				ExtraArgs:       []bootstrapv1.Arg{arg("quota-backend-bytes", "8589934592")},
				ExtraEnvs:       &[]bootstrapv1.EnvVar{envVar("GOMAXPROCS", "2")},
				ServerCertSANs:  []string{"etcd.test"},
				PeerCertSANs:    []string{"10.0.0.2"},
			}},
			ControlPlaneEndpoint: "cp.test:6443",
			APIServer: bootstrapv1.APIServer{
				ExtraArgs:    []bootstrapv1.Arg{arg("v", "2"), arg("enable-admission-plugins", "")},
				ExtraVolumes: []bootstrapv1.HostPathMount{hostPath("audit")},
				ExtraEnvs:    &[]bootstrapv1.EnvVar{envVar("HTTPS_PROXY", "http://proxy.test:3128")},
				CertSANs:     []string{"localhost", "127.0.0.1"},
			},
			ControllerManager: bootstrapv1.ControllerManager{
				ExtraArgs: []bootstrapv1.Arg{arg("bind-address", "0.0.0.0")}, ExtraVolumes: []bootstrapv1.HostPathMount{hostPath("flex")},
				ExtraEnvs: &[]bootstrapv1.EnvVar{envVar("GOGC", "50")},
			},
			Scheduler: bootstrapv1.Scheduler{
				ExtraArgs: []bootstrapv1.Arg{arg("bind-address", "0.0.0.0")}, ExtraVolumes: []bootstrapv1.HostPathMount{hostPath("config")},
				ExtraEnvs: &[]bootstrapv1.EnvVar{envVar("GOGC", "50")},
			},
			DNS:                             bootstrapv1.DNS{ImageRepository: "mirror.test/coredns", ImageTag: "v1.14.6"},
			CertificatesDir:                 "/etc/kubernetes/pki",
			ImageRepository:                 "mirror.test",
			FeatureGates:                    map[string]bool{"WaitForAllControlPlaneComponents": true},
			CertificateValidityPeriodDays:   365,
			CACertificateValidityPeriodDays: 3650,
			EncryptionAlgorithm:             bootstrapv1.EncryptionAlgorithmECDSAP384,
		},
		InitConfiguration: bootstrapv1.InitConfiguration{
			BootstrapTokens: []bootstrapv1.BootstrapToken{{
				Token: "abcdef.0123456789abcdef", Description: "first", TTLSeconds: ptr.To[int32](900),
				Usages: []string{"signing", "authentication"}, Groups: []string{"system:bootstrappers:kubeadm:default-node-token"},
			}},
			NodeRegistration: bootstrapv1.NodeRegistrationOptions{
				Name:                  "cp-0",
				CRISocket:             "unix:///var/run/containerd/containerd.sock",
				Taints:                &[]corev1.Taint{},
				KubeletExtraArgs:      []bootstrapv1.Arg{arg("eviction-hard", "nodefs.available<0%")},
				IgnorePreflightErrors: []string{"SystemVerification", "Swap"},
				ImagePullPolicy:       corev1.PullNever,
				ImagePullSerial:       ptr.To(false),
			},
			LocalAPIEndpoint: bootstrapv1.APIEndpoint{AdvertiseAddress: "10.0.0.2", BindPort: 6443},
			SkipPhases:       []string{"addon/kube-proxy"},
			Patches:          bootstrapv1.Patches{Directory: "/etc/kubernetes/patches"},
			Timeouts:         bootstrapv1.Timeouts{ControlPlaneComponentHealthCheckSeconds: ptr.To[int32](600)},
		},
		JoinConfiguration: bootstrapv1.JoinConfiguration{
			NodeRegistration: bootstrapv1.NodeRegistrationOptions{
				Name:   "cp-1",
				Taints: &[]corev1.Taint{{Key: "dedicated", Value: "etcd", Effect: corev1.TaintEffectNoSchedule}},
			},
			CACertPath: "/etc/kubernetes/pki/ca.crt",
			Discovery: bootstrapv1.Discovery{BootstrapToken: bootstrapv1.BootstrapTokenDiscovery{
				Token:                    "abcdef.0123456789abcdef",
				APIServerEndpoint:        "10.0.0.10:6443",
				CACertHashes:             []string{"sha256:0123"},
				UnsafeSkipCAVerification: ptr.To(false),
			}, TLSBootstrapToken: "ghijkl.0123456789abcdef"},
			ControlPlane: &bootstrapv1.JoinControlPlane{LocalAPIEndpoint: bootstrapv1.APIEndpoint{BindPort: 6444}},
			SkipPhases:   []string{"preflight"},
			Patches:      bootstrapv1.Patches{Directory: "/etc/kubernetes/patches"},
			Timeouts: bootstrapv1.Timeouts{
				ControlPlaneComponentHealthCheckSeconds: ptr.To[int32](600), KubeletHealthCheckSeconds: ptr.To[int32](120),
				KubernetesAPICallSeconds: ptr.To[int32](30), EtcdAPICallSeconds: ptr.To[int32](60),
				TLSBootstrapSeconds: ptr.To[int32](300), DiscoverySeconds: ptr.To[int32](0),
			},
		},
		Files: []bootstrapv1.File{
			{Path: "/etc/plain", Owner: "root:root", Permissions: "0644", Content: "hello\n"},
			{Path: "/etc/b64", Encoding: bootstrapv1.Base64, Append: ptr.To(true), Content: "aGVsbG8K"},
			{Path: "/etc/secret", Encoding: bootstrapv1.GzipBase64, ContentFrom: bootstrapv1.FileSource{
				Secret: bootstrapv1.SecretFileSource{Name: "files", Key: "secret.gz"},
			}},
			{Path: "/etc/empty"},
			{Path: "/etc/versioned", ContentFormat: bootstrapv1.FileContentFormatGoTemplate, Content: "{{ .KubernetesVersion }}\n"},
		},
		DiskSetup: bootstrapv1.DiskSetup{
			Partitions: []bootstrapv1.Partition{
				{Device: "/dev/sdb", Layout: ptr.To(true), Overwrite: ptr.To(false), TableType: "gpt"},
				{Device: "/dev/sdc", DiskLayout: []bootstrapv1.PartitionSpec{{Percentage: 70, PartitionType: bootstrapv1.PartitionTypeLinux}, {Percentage: 30}}},
			},
			Filesystems: []bootstrapv1.Filesystem{{
				Device: "/dev/sdb1", Filesystem: "ext4", Label: "etcd_disk", Partition: "auto", Overwrite: ptr.To(false),
				ReplaceFS: "ntfs", ExtraOpts: []string{"-E", "lazy_itable_init=1"},
			}},
		},
		Mounts:              []bootstrapv1.MountPoints{{"LABEL=etcd_disk", "/var/lib/etcddisk"}},
		BootCommands:        []string{"echo boot"},
		PreKubeadmCommands:  []string{"echo pre"},
		PostKubeadmCommands: []string{"echo post"},
		Users: []bootstrapv1.User{{
			Name: "ops", Groups: "wheel,docker", HomeDir: "/home/ops", Shell: "/bin/bash",
			Sudo: "ALL=(ALL) NOPASSWD:ALL", LockPassword: ptr.To(true), SSHAuthorizedKeys: []string{"ssh-ed25519 AAAA ops"},
			Gecos: "Operations", Inactive: ptr.To(false), Passwd: "$6$salt$hash", PrimaryGroup: "ops",
		}, {
			Name: "audit", PasswdFrom: bootstrapv1.PasswdSource{Secret: bootstrapv1.SecretPasswdSource{Name: "passwords", Key: "audit"}},
		}},
		NTP:       bootstrapv1.NTP{Servers: []string{"192.0.2.10", "192.0.2.11"}, Enabled: ptr.To(true)},
		Format:    bootstrapv1.CloudConfig,
		Verbosity: ptr.To[int32](5),
	}
}

// externalEtcdSpec is fullSpec with the fields that exclude others: an external etcd instead of
// the local member, and discovery from a generated kubeconfig instead of a bootstrap token.
func externalEtcdSpec() bootstrapv1.KubeadmConfigSpec {
	spec := fullSpec()
	spec.ClusterConfiguration.Etcd = bootstrapv1.Etcd{External: bootstrapv1.ExternalEtcd{
		Endpoints: []string{"https://10.0.0.5:2379"}, CAFile: "/etc/etcd/ca.pem", CertFile: "/etc/etcd/client.pem", KeyFile: "/etc/etcd/client-key.pem",
	}}
	spec.JoinConfiguration.Discovery = bootstrapv1.Discovery{
		File: bootstrapv1.FileDiscovery{
			KubeConfigPath: "/etc/kubernetes/discovery.conf",
			KubeConfig: bootstrapv1.FileDiscoveryKubeConfig{
				Cluster: bootstrapv1.KubeConfigCluster{
					Server: "https://cp.test:6443", TLSServerName: "cp.test", InsecureSkipTLSVerify: ptr.To(false),
					CertificateAuthorityData: []byte("-----BEGIN CERTIFICATE-----\n"), ProxyURL: "socks5://proxy.test:1080",
				},
				User: bootstrapv1.KubeConfigUser{Exec: bootstrapv1.KubeConfigAuthExec{
					Command: "/usr/local/bin/token", Args: []string{"--audience", "k8s"}, APIVersion: "client.authentication.k8s.io/v1",
					Env: []bootstrapv1.KubeConfigAuthExecEnv{{Name: "REGION", Value: "eu"}}, ProvideClusterInfo: ptr.To(true),
				}},
			},
		},
		TLSBootstrapToken: "ghijkl.0123456789abcdef",
	}
	return spec
}

func envVar(name, value string) bootstrapv1.EnvVar {
	return bootstrapv1.EnvVar{EnvVar: corev1.EnvVar{Name: name, Value: value}}
}

func hostPath(name string) bootstrapv1.HostPathMount {
	return bootstrapv1.HostPathMount{
		Name: name, HostPath: "/etc/" + name, MountPath: "/etc/" + name, ReadOnly: ptr.To(true), PathType: corev1.HostPathDirectoryOrCreate,
	}
}

// templateMeta is the metadata of a template, which must not be empty when present.
var templateMeta = clusterv1.ObjectMeta{Labels: map[string]string{"role": "worker"}}
