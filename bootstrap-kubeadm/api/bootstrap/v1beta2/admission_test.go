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
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	bootstrapv1 "capstan.dev/bootstrap-kubeadm/api/bootstrap/v1beta2"
)

// secretSource is a valid contentFrom.
var secretSource = bootstrapv1.FileSource{Secret: bootstrapv1.SecretFileSource{Name: "files", Key: "audit.yaml"}}

// TestAdmission_RejectsInvalidObjects sends one invalid object per admission rule to the real
// apiserver and checks that it is refused with the rule's own message, so that users get an
// actionable error without any webhook running.
func TestAdmission_RejectsInvalidObjects(t *testing.T) {
	tests := []struct {
		name string
		obj  func(t *testing.T, ns string) client.Object
		// wantMessages must all appear in the apiserver's error.
		wantMessages []string
	}{
		{
			name: "FileWithContentAndContentFrom",
			obj: func(_ *testing.T, ns string) client.Object {
				kc := newKubeadmConfig(ns)
				kc.Spec.Files = []bootstrapv1.File{{Path: "/etc/audit.yaml", Content: "rules: []", ContentFrom: secretSource}}
				return kc
			},
			wantMessages: []string{`spec.files[0]: Invalid value: file "/etc/audit.yaml" sets both content and contentFrom: a file takes its content from exactly one source; remove one of them`},
		},
		{
			name: "TemplateFileWithContentAndContentFrom",
			obj: func(_ *testing.T, ns string) client.Object {
				kct := newKubeadmConfigTemplate(ns)
				kct.Spec.Template.Spec.Files = []bootstrapv1.File{
					{Path: "/etc/ok", Content: "ok"},
					{Path: "/etc/both", Content: "x", ContentFrom: secretSource},
				}
				return kct
			},
			wantMessages: []string{`spec.template.spec.files[1]: Invalid value: file "/etc/both" sets both content and contentFrom`},
		},
		{
			name: "FileEncodingUnknown",
			obj: func(_ *testing.T, ns string) client.Object {
				kc := newKubeadmConfig(ns)
				kc.Spec.Files = []bootstrapv1.File{{Path: "/etc/a", Encoding: "gz+b64", Content: "H4sI"}}
				return kc
			},
			wantMessages: []string{`spec.files[0].encoding: Unsupported value: "gz+b64": supported values: "base64", "gzip", "gzip+base64"`},
		},
		{
			name: "FilePathTwice",
			obj: func(_ *testing.T, ns string) client.Object {
				kc := newKubeadmConfig(ns)
				kc.Spec.Files = []bootstrapv1.File{{Path: "/etc/a", Content: "1"}, {Path: "/etc/a", Content: "2"}}
				return kc
			},
			wantMessages: []string{"spec.files[1]: Duplicate value", `"path":"/etc/a"`},
		},
		{
			name: "FileContentFromWithoutKey",
			obj: func(_ *testing.T, ns string) client.Object {
				kc := newKubeadmConfig(ns)
				kc.Spec.Files = []bootstrapv1.File{{Path: "/etc/a", ContentFrom: bootstrapv1.FileSource{
					Secret: bootstrapv1.SecretFileSource{Name: "files"},
				}}}
				return kc
			},
			wantMessages: []string{"spec.files[0].contentFrom.secret.key: Required value"},
		},
		{
			name: "IgnitionWithoutFormatIgnition",
			obj: func(_ *testing.T, ns string) client.Object {
				kc := newKubeadmConfig(ns)
				kc.Spec.Format = bootstrapv1.CloudConfig
				kc.Spec.Ignition.ContainerLinuxConfig.Strict = ptr.To(true)
				return kc
			},
			wantMessages: []string{`spec.format: Invalid value: must be set to "ignition" if spec.ignition is set`},
		},
		{
			name: "TemplateIgnitionWithoutFormat",
			obj: func(_ *testing.T, ns string) client.Object {
				kct := newKubeadmConfigTemplate(ns)
				kct.Spec.Template.Spec.Ignition.ContainerLinuxConfig.AdditionalConfig = "systemd: {}"
				return kct
			},
			wantMessages: []string{`spec.template.spec.format: Invalid value: must be set to "ignition" if spec.ignition is set`},
		},
		{
			name: "IgnitionInactiveUser",
			obj: func(_ *testing.T, ns string) client.Object {
				kc := ignitionKubeadmConfig(ns)
				kc.Spec.Users = []bootstrapv1.User{{Name: "ops"}, {Name: "old", Inactive: ptr.To(true)}}
				return kc
			},
			wantMessages: []string{`spec.users: Forbidden: users[].inactive: not supported when spec.format is set to: "ignition"`},
		},
		{
			name: "IgnitionGzipFile",
			obj: func(_ *testing.T, ns string) client.Object {
				kc := ignitionKubeadmConfig(ns)
				kc.Spec.Files = []bootstrapv1.File{{Path: "/etc/a", Encoding: bootstrapv1.GzipBase64, ContentFrom: secretSource}}
				return kc
			},
			wantMessages: []string{`spec.files: Forbidden: files[].encoding gzip and gzip+base64: not supported when spec.format is set to: "ignition"`},
		},
		{
			name: "IgnitionBootCommands",
			obj: func(_ *testing.T, ns string) client.Object {
				kc := ignitionKubeadmConfig(ns)
				kc.Spec.BootCommands = []string{"echo boot"}
				return kc
			},
			wantMessages: []string{`spec.bootCommands: Forbidden: bootCommands: not supported when spec.format is set to: "ignition"`},
		},
		{
			name: "IgnitionMBRPartitionTable",
			obj: func(_ *testing.T, ns string) client.Object {
				kc := ignitionKubeadmConfig(ns)
				kc.Spec.DiskSetup.Partitions = []bootstrapv1.Partition{{Device: "/dev/sdb", Layout: ptr.To(true), TableType: "mbr"}}
				return kc
			},
			wantMessages: []string{`spec.diskSetup.partitions: Invalid value: diskSetup.partitions[].tableType: only partition type "gpt" is supported when spec.format is set to "ignition"`},
		},
		{
			name: "IgnitionFilesystemReplaceFSAndPartition",
			obj: func(_ *testing.T, ns string) client.Object {
				kc := ignitionKubeadmConfig(ns)
				kc.Spec.DiskSetup.Filesystems = []bootstrapv1.Filesystem{{Device: "/dev/sdb", Filesystem: "ext4", Label: "etcd", ReplaceFS: "ntfs", Partition: "auto"}}
				return kc
			},
			wantMessages: []string{
				`spec.diskSetup.filesystems: Forbidden: diskSetup.filesystems[].replaceFS: not supported when spec.format is set to: "ignition"`,
				`spec.diskSetup.filesystems: Forbidden: diskSetup.filesystems[].partition: not supported when spec.format is set to: "ignition"`,
			},
		},
		{
			name: "IgnitionAdditionalConfigTooLong",
			obj: func(_ *testing.T, ns string) client.Object {
				kc := ignitionKubeadmConfig(ns)
				kc.Spec.Ignition.ContainerLinuxConfig.AdditionalConfig = strings.Repeat("#", 32769)
				return kc
			},
			wantMessages: []string{"spec.ignition.containerLinuxConfig.additionalConfig: Too long"},
		},
		{
			name: "APIServerExtraArgNameTwice",
			obj: func(_ *testing.T, ns string) client.Object {
				kc := newKubeadmConfig(ns)
				kc.Spec.ClusterConfiguration.APIServer.ExtraArgs = []bootstrapv1.Arg{arg("v", "2"), arg("audit-log-path", "-"), arg("v", "4")}
				return kc
			},
			wantMessages: []string{`spec.clusterConfiguration.apiServer.extraArgs: Invalid value: extraArgs names must be unique: kubeadm turns each entry into one --name=value flag of the component; keep a single entry per name`},
		},
		{
			name: "EtcdExtraArgNameTwice",
			obj: func(_ *testing.T, ns string) client.Object {
				kc := newKubeadmConfig(ns)
				kc.Spec.ClusterConfiguration.Etcd.Local.ExtraArgs = []bootstrapv1.Arg{arg("snapshot-count", "1"), arg("snapshot-count", "2")}
				return kc
			},
			wantMessages: []string{"spec.clusterConfiguration.etcd.local.extraArgs", "extraArgs names must be unique"},
		},
		{
			name: "KubeletExtraArgNameTwice",
			obj: func(_ *testing.T, ns string) client.Object {
				kc := newKubeadmConfig(ns)
				kc.Spec.JoinConfiguration.NodeRegistration.KubeletExtraArgs = []bootstrapv1.Arg{arg("node-labels", "a=b"), arg("node-labels", "c=d")}
				return kc
			},
			wantMessages: []string{"spec.joinConfiguration.nodeRegistration.kubeletExtraArgs", "kubeletExtraArgs names must be unique: kubeadm turns each entry into one --name=value kubelet flag; keep a single entry per name"},
		},
		{
			name: "BootstrapTokenMalformed",
			obj: func(_ *testing.T, ns string) client.Object {
				kc := newKubeadmConfig(ns)
				kc.Spec.InitConfiguration.BootstrapTokens = []bootstrapv1.BootstrapToken{{Token: "ABCDEF.0123456789abcdef"}}
				return kc
			},
			wantMessages: []string{"spec.initConfiguration.bootstrapTokens[0].token: Invalid value", "token must be 6 characters of a-z and 0-9, a dot, then 16 characters of a-z and 0-9 (e.g. abcdef.0123456789abcdef"},
		},
		{
			// An empty object says what it may hold instead of "should have at least 1 properties".
			name: "SpecEmpty",
			obj: func(t *testing.T, ns string) client.Object {
				return env.WithField(t, newKubeadmConfig(ns), map[string]any{}, "spec")
			},
			wantMessages: []string{`spec: Invalid value: must set at least one of clusterConfiguration, initConfiguration, joinConfiguration, files`, "or be left out instead of written as an empty object ({})"},
		},
		{
			name: "NTPEmpty",
			obj: func(t *testing.T, ns string) client.Object {
				return env.WithField(t, newKubeadmConfig(ns), map[string]any{}, "spec", "ntp")
			},
			wantMessages: []string{`spec.ntp: Invalid value: must set at least one of servers or enabled, or be left out instead of written as an empty object ({})`},
		},
		{
			name: "DNSImageTagNotAVersion",
			obj: func(_ *testing.T, ns string) client.Object {
				kc := newKubeadmConfig(ns)
				kc.Spec.ClusterConfiguration.DNS.ImageTag = "latest"
				return kc
			},
			wantMessages: []string{`spec.clusterConfiguration.dns.imageTag: Invalid value: "latest": imageTag "latest" is not a versioned image tag: write the CoreDNS version, e.g. v1.14.6 or 1.14.6`},
		},
		{
			name: "DNSImageTagNotATag",
			obj: func(_ *testing.T, ns string) client.Object {
				kc := newKubeadmConfig(ns)
				kc.Spec.ClusterConfiguration.DNS.ImageTag = "v1.14.6:x"
				return kc
			},
			wantMessages: []string{"spec.clusterConfiguration.dns.imageTag", `imageTag "v1.14.6:x" is not a versioned image tag`},
		},
		{
			name: "ImagePullPolicyUnknown",
			obj: func(_ *testing.T, ns string) client.Object {
				kc := newKubeadmConfig(ns)
				kc.Spec.JoinConfiguration.NodeRegistration.ImagePullPolicy = "Sometimes"
				return kc
			},
			wantMessages: []string{`spec.joinConfiguration.nodeRegistration.imagePullPolicy: Unsupported value: "Sometimes"`},
		},
		{
			name: "VerbosityAboveTen",
			obj: func(_ *testing.T, ns string) client.Object {
				kc := newKubeadmConfig(ns)
				kc.Spec.Verbosity = ptr.To[int32](11)
				return kc
			},
			wantMessages: []string{"spec.verbosity", "should be less than or equal to 10"},
		},
		{
			name: "BindPortNotANumber",
			obj: func(t *testing.T, ns string) client.Object {
				return env.WithField(t, newKubeadmConfig(ns), "6443", "spec", "initConfiguration", "localAPIEndpoint", "bindPort")
			},
			wantMessages: []string{"spec.initConfiguration.localAPIEndpoint.bindPort", `must be of type integer`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env.RequireInvalid(t, tt.obj(t, env.CreateNamespace(t, "admission")), tt.wantMessages...)
		})
	}
}

// TestAdmission_AcceptsValuesAtTheEdgeOfEachRule guards against rules that are stricter than
// intended: each object sits just inside a rule that TestAdmission_RejectsInvalidObjects exercises.
func TestAdmission_AcceptsValuesAtTheEdgeOfEachRule(t *testing.T) {
	tests := []struct {
		name string
		obj  func(ns string) client.Object
	}{
		{
			// Tags upstream's tolerant parser accepts: with or without v, without patch, with a
			// build suffix after "_".
			name: "DNSImageTagsThatReadAsVersions",
			obj: func(ns string) client.Object {
				kc := newKubeadmConfig(ns)
				kc.Spec.ClusterConfiguration.DNS.ImageTag = "1.14"
				return kc
			},
		},
		{
			name: "DNSImageTagWithBuildSuffix",
			obj: func(ns string) client.Object {
				kc := newKubeadmConfig(ns)
				kc.Spec.ClusterConfiguration.DNS.ImageTag = "v1.14.6_custom.1"
				return kc
			},
		},
		{
			name: "FilesWithOneSourceEachOrNone",
			obj: func(ns string) client.Object {
				kc := newKubeadmConfig(ns)
				kc.Spec.Files = []bootstrapv1.File{
					{Path: "/etc/inline", Content: "x"},
					{Path: "/etc/from-secret", ContentFrom: secretSource},
					{Path: "/etc/empty"},
				}
				return kc
			},
		},
		{
			name: "EveryEncoding",
			obj: func(ns string) client.Object {
				kc := newKubeadmConfig(ns)
				for i, enc := range []bootstrapv1.Encoding{bootstrapv1.Base64, bootstrapv1.Gzip, bootstrapv1.GzipBase64} {
					kc.Spec.Files = append(kc.Spec.Files, bootstrapv1.File{Path: fmt.Sprintf("/etc/f%d", i), Encoding: enc, ContentFrom: secretSource})
				}
				return kc
			},
		},
		{
			// The most extraArgs the schema allows, all distinct: the uniqueness rule must stay
			// within the apiserver's runtime CEL budget too.
			name: "HundredDistinctExtraArgsWithEmptyValues",
			obj: func(ns string) client.Object {
				kc := newKubeadmConfig(ns)
				for i := range 100 {
					kc.Spec.ClusterConfiguration.APIServer.ExtraArgs = append(kc.Spec.ClusterConfiguration.APIServer.ExtraArgs, arg(fmt.Sprintf("flag-%03d", i), ""))
				}
				return kc
			},
		},
		{
			name: "SameFlagValueUnderDifferentNames",
			obj: func(ns string) client.Object {
				kc := newKubeadmConfig(ns)
				kc.Spec.JoinConfiguration.NodeRegistration.KubeletExtraArgs = []bootstrapv1.Arg{arg("a", "1"), arg("b", "1")}
				return kc
			},
		},
		{
			// Everything format ignition carries, at the edge of its rules: a gpt table, users
			// inactive: false, plain and base64 files, mounts, the largest additionalConfig.
			name: "IgnitionWithEverythingItCarries",
			obj: func(ns string) client.Object {
				kc := ignitionKubeadmConfig(ns)
				kc.Spec.Ignition.ContainerLinuxConfig.AdditionalConfig = strings.Repeat("#", 32768)
				kc.Spec.Users = []bootstrapv1.User{{Name: "ops", Inactive: ptr.To(false), SSHAuthorizedKeys: []string{"ssh-ed25519 AAAA"}}}
				kc.Spec.Files = []bootstrapv1.File{{Path: "/etc/a", Content: "a"}, {Path: "/etc/b", Encoding: bootstrapv1.Base64, Content: "Yg=="}}
				kc.Spec.DiskSetup.Partitions = []bootstrapv1.Partition{{Device: "/dev/sdb", Layout: ptr.To(true), TableType: "gpt"}}
				kc.Spec.DiskSetup.Filesystems = []bootstrapv1.Filesystem{{Device: "/dev/sdb1", Filesystem: "ext4", Label: "etcd"}}
				kc.Spec.Mounts = []bootstrapv1.MountPoints{{"etcd", "/var/lib/etcd"}}
				kc.Spec.NTP = bootstrapv1.NTP{Enabled: ptr.To(true), Servers: []string{"time.example"}}
				return kc
			},
		},
		{
			// Without format ignition the ignition-only rules do not apply.
			name: "CloudConfigWithWhatIgnitionRefuses",
			obj: func(ns string) client.Object {
				kc := newKubeadmConfig(ns)
				kc.Spec.BootCommands = []string{"echo boot"}
				kc.Spec.Users = []bootstrapv1.User{{Name: "old", Inactive: ptr.To(true)}}
				kc.Spec.DiskSetup.Partitions = []bootstrapv1.Partition{{Device: "/dev/sdb", Layout: ptr.To(true), TableType: "mbr"}}
				return kc
			},
		},
		{
			name: "VerbosityTen",
			obj: func(ns string) client.Object {
				kc := newKubeadmConfig(ns)
				kc.Spec.Verbosity = ptr.To[int32](10)
				return kc
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ns := env.CreateNamespace(t, "admission-ok")
			require.NoError(t, env.Client.Create(context.Background(), tt.obj(ns)))
		})
	}
}
