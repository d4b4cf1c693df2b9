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
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	bootstrapv1 "capstan.dev/bootstrap-kubeadm/api/bootstrap/v1beta2"
)

// kc returns a minimal KubeadmConfig changed by mutate.
func kc(ns string, mutate func(*bootstrapv1.KubeadmConfigSpec)) *bootstrapv1.KubeadmConfig {
	obj := newKubeadmConfig(ns)
	mutate(&obj.Spec)
	return obj
}

// TestAdmission_RejectsInvalidUpstreamFields covers the rules of the fields taken over from
// upstream's v1beta2 schema: each invalid object is refused by the real apiserver with a message
// naming the field path and what is allowed.
func TestAdmission_RejectsInvalidUpstreamFields(t *testing.T) {
	external := bootstrapv1.ExternalEtcd{Endpoints: []string{"https://10.0.0.5:2379"}, CAFile: "/ca", CertFile: "/c", KeyFile: "/k"}
	exec := bootstrapv1.KubeConfigAuthExec{Command: "/bin/token"}
	tests := []struct {
		name         string
		obj          func(t *testing.T, ns string) client.Object
		wantMessages []string
	}{
		{
			name: "EtcdLocalAndExternal",
			obj: func(_ *testing.T, ns string) client.Object {
				return kc(ns, func(s *bootstrapv1.KubeadmConfigSpec) {
					s.ClusterConfiguration.Etcd = bootstrapv1.Etcd{Local: bootstrapv1.LocalEtcd{DataDir: "/d"}, External: external}
				})
			},
			wantMessages: []string{"spec.clusterConfiguration.etcd: Invalid value", "local and external are mutually exclusive"},
		},
		{
			name: "EtcdExternalWithoutEndpoints",
			obj: func(_ *testing.T, ns string) client.Object {
				return kc(ns, func(s *bootstrapv1.KubeadmConfigSpec) {
					s.ClusterConfiguration.Etcd.External = bootstrapv1.ExternalEtcd{CAFile: "/ca", CertFile: "/c", KeyFile: "/k"}
				})
			},
			wantMessages: []string{"spec.clusterConfiguration.etcd.external.endpoints: Required value"},
		},
		{
			name: "LocalEtcdEmpty",
			obj: func(t *testing.T, ns string) client.Object {
				return env.WithField(t, newKubeadmConfig(ns), map[string]any{}, "spec", "clusterConfiguration", "etcd", "local")
			},
			wantMessages: []string{"spec.clusterConfiguration.etcd.local: Invalid value", "must set at least one of imageRepository, imageTag, dataDir, extraArgs, extraEnvs, serverCertSANs or peerCertSANs"},
		},
		{
			name: "EncryptionAlgorithmUnknown",
			obj: func(_ *testing.T, ns string) client.Object {
				return kc(ns, func(s *bootstrapv1.KubeadmConfigSpec) { s.ClusterConfiguration.EncryptionAlgorithm = "ED25519" })
			},
			wantMessages: []string{`spec.clusterConfiguration.encryptionAlgorithm: Unsupported value: "ED25519": supported values: "ECDSA-P256", "ECDSA-P384", "RSA-2048", "RSA-3072", "RSA-4096"`},
		},
		{
			name: "CertificateValidityAboveMaximum",
			obj: func(_ *testing.T, ns string) client.Object {
				return kc(ns, func(s *bootstrapv1.KubeadmConfigSpec) { s.ClusterConfiguration.CertificateValidityPeriodDays = 1096 })
			},
			wantMessages: []string{"spec.clusterConfiguration.certificateValidityPeriodDays", "should be less than or equal to 1095"},
		},
		{
			name: "CertificateOutlivesItsCA",
			obj: func(_ *testing.T, ns string) client.Object {
				return kc(ns, func(s *bootstrapv1.KubeadmConfigSpec) {
					s.ClusterConfiguration.CertificateValidityPeriodDays = 400
					s.ClusterConfiguration.CACertificateValidityPeriodDays = 365
				})
			},
			wantMessages: []string{"spec.clusterConfiguration.certificateValidityPeriodDays: Invalid value", "certificateValidityPeriodDays must not exceed the validity of the CA"},
		},
		{
			name: "ExtraVolumeWithoutMountPath",
			obj: func(_ *testing.T, ns string) client.Object {
				return kc(ns, func(s *bootstrapv1.KubeadmConfigSpec) {
					s.ClusterConfiguration.APIServer.ExtraVolumes = []bootstrapv1.HostPathMount{{Name: "audit", HostPath: "/etc/audit"}}
				})
			},
			wantMessages: []string{"spec.clusterConfiguration.apiServer.extraVolumes[0].mountPath: Required value"},
		},
		{
			name: "ExtraVolumePathTypeUnknown",
			obj: func(_ *testing.T, ns string) client.Object {
				return kc(ns, func(s *bootstrapv1.KubeadmConfigSpec) {
					s.ClusterConfiguration.Scheduler.ExtraVolumes = []bootstrapv1.HostPathMount{{Name: "a", HostPath: "/a", MountPath: "/a", PathType: "Folder"}}
				})
			},
			wantMessages: []string{`spec.clusterConfiguration.scheduler.extraVolumes[0].pathType: Unsupported value: "Folder"`, `"DirectoryOrCreate"`},
		},
		{
			name: "ExtraEnvsEmptyList",
			obj: func(_ *testing.T, ns string) client.Object {
				return kc(ns, func(s *bootstrapv1.KubeadmConfigSpec) {
					s.ClusterConfiguration.ControllerManager.ExtraEnvs = &[]bootstrapv1.EnvVar{}
				})
			},
			wantMessages: []string{"spec.clusterConfiguration.controllerManager.extraEnvs", "should have at least 1 items"},
		},
		{
			name: "BootstrapTokenExpires",
			obj: func(_ *testing.T, ns string) client.Object {
				return kc(ns, func(s *bootstrapv1.KubeadmConfigSpec) {
					s.InitConfiguration.BootstrapTokens = []bootstrapv1.BootstrapToken{{Token: "abcdef.0123456789abcdef", Expires: metav1.Now()}}
				})
			},
			wantMessages: []string{"spec.initConfiguration.bootstrapTokens[0].expires: Invalid value", "expires is not supported: kubeadm v1.37 refuses it", "use ttlSeconds instead"},
		},
		{
			name: "DiscoveryBootstrapTokenAndFile",
			obj: func(_ *testing.T, ns string) client.Object {
				return kc(ns, func(s *bootstrapv1.KubeadmConfigSpec) {
					s.JoinConfiguration.Discovery = bootstrapv1.Discovery{
						BootstrapToken: bootstrapv1.BootstrapTokenDiscovery{Token: "abcdef.0123456789abcdef"},
						File:           bootstrapv1.FileDiscovery{KubeConfigPath: "/etc/kubernetes/discovery.conf"},
					}
				})
			},
			wantMessages: []string{"spec.joinConfiguration.discovery: Invalid value", "bootstrapToken and file are mutually exclusive"},
		},
		{
			name: "DiscoveryKubeConfigWithAuthProviderAndExec",
			obj: func(_ *testing.T, ns string) client.Object {
				return kc(ns, func(s *bootstrapv1.KubeadmConfigSpec) {
					s.JoinConfiguration.Discovery.File = bootstrapv1.FileDiscovery{KubeConfigPath: "/d.conf", KubeConfig: bootstrapv1.FileDiscoveryKubeConfig{
						User: bootstrapv1.KubeConfigUser{AuthProvider: bootstrapv1.KubeConfigAuthProvider{Name: "oidc"}, Exec: exec},
					}}
				})
			},
			wantMessages: []string{"spec.joinConfiguration.discovery.file.kubeConfig.user: Invalid value", "set exactly one of authProvider or exec"},
		},
		{
			name: "DiscoveryKubeConfigWithoutUser",
			obj: func(t *testing.T, ns string) client.Object {
				obj := kc(ns, func(s *bootstrapv1.KubeadmConfigSpec) {
					s.JoinConfiguration.Discovery.File = bootstrapv1.FileDiscovery{KubeConfigPath: "/d.conf"}
				})
				return env.WithField(t, obj, map[string]any{"cluster": map[string]any{"server": "https://cp:6443"}},
					"spec", "joinConfiguration", "discovery", "file", "kubeConfig")
			},
			wantMessages: []string{"spec.joinConfiguration.discovery.file.kubeConfig.user: Required value"},
		},
		{
			name: "UserWithPasswdAndPasswdFrom",
			obj: func(_ *testing.T, ns string) client.Object {
				return kc(ns, func(s *bootstrapv1.KubeadmConfigSpec) {
					s.Users = []bootstrapv1.User{{Name: "ops", Passwd: "$6$x", PasswdFrom: bootstrapv1.PasswdSource{
						Secret: bootstrapv1.SecretPasswdSource{Name: "p", Key: "ops"},
					}}}
				})
			},
			wantMessages: []string{`spec.users[0]: Invalid value`, `user "ops" sets both passwd and passwdFrom: a password comes from exactly one source; remove one of them`},
		},
		{
			name: "PartitionTableTypeUnknown",
			obj: func(_ *testing.T, ns string) client.Object {
				return kc(ns, func(s *bootstrapv1.KubeadmConfigSpec) {
					s.DiskSetup.Partitions = []bootstrapv1.Partition{{Device: "/dev/sdb", Layout: ptr.To(true), TableType: "dos"}}
				})
			},
			wantMessages: []string{`spec.diskSetup.partitions[0].tableType: Unsupported value: "dos": supported values: "mbr", "gpt"`},
		},
		{
			name: "PartitionWithoutLayout",
			obj: func(_ *testing.T, ns string) client.Object {
				return kc(ns, func(s *bootstrapv1.KubeadmConfigSpec) {
					s.DiskSetup.Partitions = []bootstrapv1.Partition{{Device: "/dev/sdb"}}
				})
			},
			wantMessages: []string{"spec.diskSetup.partitions[0]: Invalid value", "partition of /dev/sdb must set exactly one of layout (true: one partition spanning the device; false: leave the device as it is) and diskLayout"},
		},
		{
			name: "PartitionWithLayoutAndDiskLayout",
			obj: func(_ *testing.T, ns string) client.Object {
				return kc(ns, func(s *bootstrapv1.KubeadmConfigSpec) {
					s.DiskSetup.Partitions = []bootstrapv1.Partition{{Device: "/dev/sdb", Layout: ptr.To(false), DiskLayout: []bootstrapv1.PartitionSpec{{Percentage: 100}}}}
				})
			},
			wantMessages: []string{"spec.diskSetup.partitions[0]: Invalid value", "must set exactly one of layout"},
		},
		{
			name: "DiskLayoutOverTheDevice",
			obj: func(_ *testing.T, ns string) client.Object {
				return kc(ns, func(s *bootstrapv1.KubeadmConfigSpec) {
					s.DiskSetup.Partitions = []bootstrapv1.Partition{{Device: "/dev/sdb", DiskLayout: []bootstrapv1.PartitionSpec{{Percentage: 60}, {Percentage: 41}}}}
				})
			},
			wantMessages: []string{"spec.diskSetup.partitions[0].diskLayout: Invalid value", "the percentages add up to more than 100: the partitions of a device take at most 100 percent of it"},
		},
		{
			name: "DiskLayoutPartitionWithoutPercentage",
			obj: func(_ *testing.T, ns string) client.Object {
				return kc(ns, func(s *bootstrapv1.KubeadmConfigSpec) {
					s.DiskSetup.Partitions = []bootstrapv1.Partition{{Device: "/dev/sdb", DiskLayout: []bootstrapv1.PartitionSpec{{PartitionType: "Linux"}}}}
				})
			},
			wantMessages: []string{"spec.diskSetup.partitions[0].diskLayout[0].percentage: Required value"},
		},
		{
			name: "DiskLayoutPartitionTypeUnknown",
			obj: func(_ *testing.T, ns string) client.Object {
				return kc(ns, func(s *bootstrapv1.KubeadmConfigSpec) {
					s.DiskSetup.Partitions = []bootstrapv1.Partition{{Device: "/dev/sdb", DiskLayout: []bootstrapv1.PartitionSpec{{Percentage: 50, PartitionType: "Swap"}}}}
				})
			},
			wantMessages: []string{`spec.diskSetup.partitions[0].diskLayout[0].partitionType: Invalid value: "Swap"`, "should match '^(Linux|LinuxSwap|LinuxRAID|LVM|Fat32|NTFS|LinuxExtended|"},
		},
		{
			name: "FileContentFormatUnknown",
			obj: func(_ *testing.T, ns string) client.Object {
				return kc(ns, func(s *bootstrapv1.KubeadmConfigSpec) {
					s.Files = []bootstrapv1.File{{Path: "/etc/a", ContentFormat: "jinja", Content: "{{ v }}"}}
				})
			},
			wantMessages: []string{`spec.files[0].contentFormat: Unsupported value: "jinja": supported values: "", "go-template"`},
		},
		{
			name: "DiskSetupEmpty",
			obj: func(t *testing.T, ns string) client.Object {
				return env.WithField(t, newKubeadmConfig(ns), map[string]any{}, "spec", "diskSetup")
			},
			wantMessages: []string{"spec.diskSetup: Invalid value", "must set at least one of partitions or filesystems"},
		},
		{
			name: "MountWithoutFields",
			obj: func(_ *testing.T, ns string) client.Object {
				return kc(ns, func(s *bootstrapv1.KubeadmConfigSpec) { s.Mounts = []bootstrapv1.MountPoints{{}} })
			},
			wantMessages: []string{"spec.mounts[0]", "should have at least 1 items"},
		},
		{
			name: "BootCommandEmpty",
			obj: func(_ *testing.T, ns string) client.Object {
				return kc(ns, func(s *bootstrapv1.KubeadmConfigSpec) { s.BootCommands = []string{""} })
			},
			wantMessages: []string{"spec.bootCommands[0]", "should be at least 1 chars long"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env.RequireInvalid(t, tt.obj(t, env.CreateNamespace(t, "admission-fields")), tt.wantMessages...)
		})
	}
}

// TestAdmission_AcceptsUpstreamFieldsAtTheEdgeOfTheirRules: each object sits just inside a rule
// TestAdmission_RejectsInvalidUpstreamFields exercises.
func TestAdmission_AcceptsUpstreamFieldsAtTheEdgeOfTheirRules(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(*bootstrapv1.KubeadmConfigSpec)
	}{
		{"CertificateAsLongAsItsCA", func(s *bootstrapv1.KubeadmConfigSpec) {
			s.ClusterConfiguration.CertificateValidityPeriodDays = 1095
			s.ClusterConfiguration.CACertificateValidityPeriodDays = 1095
		}},
		{"CertificateValidityWithTheDefaultCA", func(s *bootstrapv1.KubeadmConfigSpec) { s.ClusterConfiguration.CertificateValidityPeriodDays = 1095 }},
		{"CAValidityAtMaximum", func(s *bootstrapv1.KubeadmConfigSpec) { s.ClusterConfiguration.CACertificateValidityPeriodDays = 36500 }},
		{"DiskLayoutOfTheWholeDeviceWithEveryKindOfType", func(s *bootstrapv1.KubeadmConfigSpec) {
			s.DiskSetup.Partitions = []bootstrapv1.Partition{{Device: "/dev/sdb", TableType: "gpt", DiskLayout: []bootstrapv1.PartitionSpec{
				{Percentage: 40, PartitionType: bootstrapv1.PartitionTypeLVM}, {Percentage: 10},
				{Percentage: 50, PartitionType: "0fc63daf-8483-4772-8e79-3d69d8477de4"},
			}}}
		}},
		{"PartitionLeftAsItIs", func(s *bootstrapv1.KubeadmConfigSpec) {
			s.DiskSetup.Partitions = []bootstrapv1.Partition{{Device: "/dev/sdb", Layout: ptr.To(false)}}
		}},
		{"ExternalEtcdAlone", func(s *bootstrapv1.KubeadmConfigSpec) {
			s.ClusterConfiguration.Etcd.External = bootstrapv1.ExternalEtcd{Endpoints: []string{"https://e:2379"}, CAFile: "/ca", CertFile: "/c", KeyFile: "/k"}
		}},
		{"FileDiscoveryWithAuthProvider", func(s *bootstrapv1.KubeadmConfigSpec) {
			s.JoinConfiguration.Discovery.File = bootstrapv1.FileDiscovery{KubeConfigPath: "/d.conf", KubeConfig: bootstrapv1.FileDiscoveryKubeConfig{
				User: bootstrapv1.KubeConfigUser{AuthProvider: bootstrapv1.KubeConfigAuthProvider{Name: "oidc", Config: map[string]string{"client-id": "k8s"}}},
			}}
		}},
		{"TLSBootstrapTokenAlone", func(s *bootstrapv1.KubeadmConfigSpec) {
			s.JoinConfiguration.Discovery.TLSBootstrapToken = "abcdef.0123456789abcdef"
		}},
		{"FormatCloudConfig", func(s *bootstrapv1.KubeadmConfigSpec) { s.Format = bootstrapv1.CloudConfig }},
		{"UserWithPasswdFromOnly", func(s *bootstrapv1.KubeadmConfigSpec) {
			s.Users = []bootstrapv1.User{{Name: "ops", PasswdFrom: bootstrapv1.PasswdSource{Secret: bootstrapv1.SecretPasswdSource{Name: "p", Key: "ops"}}}}
		}},
		{"MountWithAllSixFstabFields", func(s *bootstrapv1.KubeadmConfigSpec) {
			s.Mounts = []bootstrapv1.MountPoints{{"/dev/sdb1", "/data", "ext4", "defaults,nofail", "0", "2"}}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ns := env.CreateNamespace(t, "admission-fields-ok")
			require.NoError(t, env.Client.Create(context.Background(), kc(ns, tt.mutate)))
		})
	}
}
