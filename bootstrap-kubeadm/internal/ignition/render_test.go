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

package ignition

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/utils/ptr"

	"capstan.dev/bootstrap-kubeadm/internal/cloudinit"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// The kubeadm configurations as package kubeadm marshals them, each document introduced by "---".
const (
	initKubeadmConfig = "---\napiVersion: kubeadm.k8s.io/v1beta4\nkind: ClusterConfiguration\nkubernetesVersion: v1.37.2\n" +
		"---\napiVersion: kubeadm.k8s.io/v1beta4\nkind: InitConfiguration\nnodeRegistration:\n  name: c1-cp-0\n"
	joinKubeadmConfig = "---\napiVersion: kubeadm.k8s.io/v1beta4\ncontrolPlane: {}\ndiscovery:\n  bootstrapToken:\n" +
		"    apiServerEndpoint: 10.0.0.10:6443\n    token: abcdef.0123456789abcdef\n    unsafeSkipCAVerification: true\nkind: JoinConfiguration\n"
	workerKubeadmConfig = "---\napiVersion: kubeadm.k8s.io/v1beta4\ndiscovery:\n  bootstrapToken:\n" +
		"    apiServerEndpoint: 10.0.0.10:6443\n    token: abcdef.0123456789abcdef\n    unsafeSkipCAVerification: true\nkind: JoinConfiguration\n"

	// gzipBlob is "compressed by gzip\n" gzip-compressed, fixed so the golden files do not
	// depend on the compressor.
	gzipBlob = "H4sIAAAAAAAA/0rOzy0oSi0uTk1RSKpUSK/KLOACBAAA///Jl4V/EwAAAA=="

	// mergeCLC is an additionalConfig using every section the config carries, plus a file
	// without a mode (a transpiler warning) and sections it does not carry.
	mergeCLC = `storage:
  files:
    - path: /etc/kubeadm.yml
      append: true
      contents:
        inline: |
          # appended by additionalConfig
    - path: /opt/bin/hello
      mode: 0755
      user:
        id: 500
      contents:
        inline: "#!/bin/sh\necho hello 100%\n"
    - path: /etc/no-mode
      filesystem: root
  directories:
    - path: /opt/data
      mode: 0750
systemd:
  units:
    - name: kubeadm.service
      dropins:
        - name: 10-env.conf
          contents: |
            [Service]
            Environment=KUBECONFIG=/etc/kubernetes/admin.conf
    - name: hello.service
      enabled: true
      contents: |
        [Service]
        ExecStart=/opt/bin/hello
    - name: locksmithd.service
      mask: true
passwd:
  users:
    - name: core
      ssh_authorized_keys:
        - ssh-ed25519 AAAAcore
      groups: [sudo, docker]
networkd:
  units:
    - name: 00-eth0.network
      contents: "[Match]\nName=eth0\n"
`
)

func pem(kind, name string) []byte {
	return []byte("-----BEGIN " + kind + "-----\n" + base64.StdEncoding.EncodeToString([]byte("fake "+name)) + "\n-----END " + kind + "-----\n")
}

// clusterCertificates are two key pairs, not in path order: the output sorts them.
func clusterCertificates() []cloudinit.Certificate {
	return []cloudinit.Certificate{
		{CertPath: "/etc/kubernetes/pki/sa.pub", KeyPath: "/etc/kubernetes/pki/sa.key", Cert: pem("PUBLIC KEY", "sa"), Key: pem("RSA PRIVATE KEY", "sa")},
		{CertPath: "/etc/kubernetes/pki/ca.crt", KeyPath: "/etc/kubernetes/pki/ca.key", Cert: pem("CERTIFICATE", "ca"), Key: pem("RSA PRIVATE KEY", "ca")},
	}
}

// files has one file per encoding Ignition takes and binary plain content.
func files(t testing.TB) []cloudinit.File {
	gz, err := base64.StdEncoding.DecodeString(gzipBlob)
	require.NoError(t, err)
	return []cloudinit.File{
		{Path: "/etc/kubernetes/audit-policy.yaml", Owner: "root:root", Permissions: "0600", Content: []byte("apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n")},
		{Path: "/etc/motd", Encoding: cloudinit.Base64, Append: true, Content: []byte(base64.StdEncoding.EncodeToString([]byte("welcome\n")))},
		{Path: "/opt/binary.bin", Owner: "1000:ops", Content: []byte{0x00, 0xff, 0xfe, 'k', '8', 's'}},
		{Path: "/opt/blob.txt", Encoding: cloudinit.Gzip, Content: gz},
	}
}

func ops() cloudinit.User {
	return cloudinit.User{
		Name: "ops", Gecos: "Operations", Groups: "wheel, docker", HomeDir: "/home/ops", Shell: "/bin/bash",
		Sudo: "ALL=(ALL) NOPASSWD:ALL", LockPassword: ptr.To(true), PrimaryGroup: "ops",
		SSHAuthorizedKeys: []string{"ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIFakeKeyForTests ops"},
	}
}

func auditor() cloudinit.User {
	return cloudinit.User{Name: "auditor", Passwd: "$6$rounds=4096$salt$hash", LockPassword: ptr.To(false)}
}

// goldenInputs are the inputs of the golden files, by file name.
func goldenInputs(t testing.TB) map[string]struct {
	in    cloudinit.Input
	extra AdditionalConfig
} {
	type tc = struct {
		in    cloudinit.Input
		extra AdditionalConfig
	}
	return map[string]tc{
		"init-control-plane.json": {in: cloudinit.Input{
			Kind: cloudinit.Init, KubeadmConfig: []byte(initKubeadmConfig), Certificates: clusterCertificates(),
			Files:               files(t)[:1],
			PreKubeadmCommands:  []string{"systemctl restart containerd", "echo 'pre: $(hostname)' >> /var/log/bootstrap.log"},
			PostKubeadmCommands: []string{"kubectl --kubeconfig /etc/kubernetes/admin.conf get nodes"},
			Verbosity:           ptr.To[int32](5),
		}},
		"join-control-plane.json": {in: cloudinit.Input{
			Kind: cloudinit.JoinControlPlane, KubeadmConfig: []byte(joinKubeadmConfig), Certificates: clusterCertificates(),
			Verbosity: ptr.To[int32](0),
		}},
		"join-worker.json": {in: cloudinit.Input{
			Kind: cloudinit.JoinWorker, KubeadmConfig: []byte(workerKubeadmConfig), Files: files(t),
			PreKubeadmCommands: []string{"swapoff -a"},
		}},
		"users-ntp-disks.json": {in: cloudinit.Input{
			Kind: cloudinit.JoinWorker, KubeadmConfig: []byte(workerKubeadmConfig),
			Users: []cloudinit.User{ops(), auditor()},
			NTP:   &cloudinit.NTP{Servers: []string{"192.0.2.10", "192.0.2.11"}, Enabled: ptr.To(true)},
			DiskSetup: &cloudinit.DiskSetup{
				Partitions:  []cloudinit.Partition{{Device: "/dev/sdb", Layout: true, Overwrite: ptr.To(true), TableType: "gpt"}},
				Filesystems: []cloudinit.Filesystem{{Device: "/dev/sdb1", Filesystem: "ext4", Label: "etcd_disk", ExtraOpts: []string{"-E", "lazy_itable_init=1"}}},
			},
			Mounts: [][]string{{"LABEL=etcd_disk", "/var/lib/etcd"}, {"/dev/sdc1", "/mnt/data-1", "xfs", "defaults,nofail"}},
		}},
		"additional-config.json": {
			in:    cloudinit.Input{Kind: cloudinit.JoinWorker, KubeadmConfig: []byte(workerKubeadmConfig), Users: []cloudinit.User{ops()}},
			extra: AdditionalConfig{CLC: mergeCLC},
		},
	}
}

// TestRender_MatchesGoldenFiles pins the Ignition config of each kind of node, of users, NTP
// and disks, and of an additionalConfig merged. The golden files are the JSON indented for
// review; the data itself is compact. Run with -update to rewrite them, then review the diff.
func TestRender_MatchesGoldenFiles(t *testing.T) {
	for name, tt := range goldenInputs(t) {
		t.Run(name, func(t *testing.T) {
			got, _, err := Render(tt.in, tt.extra)
			require.NoError(t, err)
			require.True(t, json.Valid(got))
			var indented bytes.Buffer
			require.NoError(t, json.Indent(&indented, got, "", "  "))
			indented.WriteByte('\n')
			path := filepath.Join("testdata", name)
			if *update {
				require.NoError(t, os.WriteFile(path, indented.Bytes(), 0o644))
			}
			want, err := os.ReadFile(path)
			require.NoError(t, err)
			require.Equal(t, string(want), indented.String(), "run go test -update and review the diff")

			again, _, err := Render(tt.in, tt.extra)
			require.NoError(t, err)
			require.Equal(t, string(got), string(again), "rendering the same input twice differs")
		})
	}
}

// TestRender_AdditionalConfigWarnsAboutWhatItDoesNotCarry: without strict, the sections and
// fields the config does not carry are named in warnings, and the rest is merged.
func TestRender_AdditionalConfigWarnsAboutWhatItDoesNotCarry(t *testing.T) {
	in := goldenInputs(t)["additional-config.json"]
	_, warnings, err := Render(in.in, in.extra)
	require.NoError(t, err)
	require.Equal(t, []string{
		"section networkd is not carried into the bootstrap data (Capstan carries storage.files, systemd.units and passwd.users): ignored",
		"section storage.directories is not carried into the bootstrap data (Capstan carries storage.files, systemd.units and passwd.users): ignored",
		"storage.files[2].mode: unspecified for file /etc/no-mode, defaulting to 0644",
	}, warnings)
}

// TestRender_StrictAdditionalConfigFailsNamingWhatItCannotCarry: with strict, the first thing
// the config cannot carry is an error naming it, as the transpiler's strict mode fails on any
// warning; a document that does not parse fails with or without strict.
func TestRender_StrictAdditionalConfigFailsNamingWhatItCannotCarry(t *testing.T) {
	base := cloudinit.Input{Kind: cloudinit.JoinWorker, KubeadmConfig: []byte(workerKubeadmConfig)}
	tests := []struct {
		name, clc string
		strict    bool
		wantErr   string
	}{
		{name: "Section", clc: "networkd:\n  units:\n    - name: a.network\n", strict: true,
			wantErr: "ignition.containerLinuxConfig.additionalConfig: section networkd is not carried into the bootstrap data (Capstan carries storage.files, systemd.units and passwd.users): ignored (strict is true)"},
		{name: "StorageSubsection", clc: "storage:\n  links:\n    - path: /a\n      target: /b\n", strict: true,
			wantErr: "section storage.links is not carried"},
		{name: "UnknownField", clc: "systemd:\n  units:\n    - name: a.service\n      enabeld: true\n", strict: true,
			wantErr: `systemd.units: json: unknown field "enabeld": ignored (strict is true)`},
		{name: "FileWithoutMode", clc: "storage:\n  files:\n    - path: /etc/a\n", strict: true,
			wantErr: "storage.files[0].mode: unspecified for file /etc/a, defaulting to 0644 (strict is true)"},
		{name: "NotYAML", clc: "storage: [", wantErr: "not a Container Linux Config (YAML)"},
		{name: "LocalContents", clc: "storage:\n  files:\n    - path: /etc/a\n      mode: 0644\n      contents:\n        local: a\n",
			wantErr: "storage.files[0].contents.local: local files are not supported"},
		{name: "RelativePath", clc: "storage:\n  files:\n    - path: etc/a\n      mode: 0644\n", wantErr: `storage.files[0].path: "etc/a" is not an absolute path`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := Render(base, AdditionalConfig{CLC: tt.clc, Strict: tt.strict})
			require.ErrorContains(t, err, tt.wantErr)
		})
	}
}

// TestRender_RefusesInputThatWouldNotBootstrap: what cannot bootstrap a node fails here rather
// than on the node.
func TestRender_RefusesInputThatWouldNotBootstrap(t *testing.T) {
	worker := func(change func(*cloudinit.Input)) cloudinit.Input {
		in := cloudinit.Input{Kind: cloudinit.JoinWorker, KubeadmConfig: []byte(workerKubeadmConfig)}
		change(&in)
		return in
	}
	tests := map[string]struct {
		in      cloudinit.Input
		wantErr string
	}{
		"UnknownKind":        {worker(func(in *cloudinit.Input) { in.Kind = "reboot" }), `unknown kind "reboot"`},
		"NoKubeadmConfig":    {worker(func(in *cloudinit.Input) { in.KubeadmConfig = nil }), "no kubeadm configuration"},
		"WorkerCertificates": {worker(func(in *cloudinit.Input) { in.Certificates = clusterCertificates() }), "certificates are for control plane nodes only"},
		"BootCommands":       {worker(func(in *cloudinit.Input) { in.BootCommands = []string{"echo"} }), `bootCommands: not supported when spec.format is set to: "ignition"`},
		"BadBase64": {worker(func(in *cloudinit.Input) {
			in.Files = []cloudinit.File{{Path: "/a", Encoding: cloudinit.Base64, Content: []byte("!")}}
		}), `file 0 ("/a"): content is not valid base64`},
		"BadPermissions": {worker(func(in *cloudinit.Input) { in.Files = []cloudinit.File{{Path: "/a", Permissions: "rw-r--r--"}} }), `permissions "rw-r--r--" are not an octal file mode`},
		"DiskLayout": {worker(func(in *cloudinit.Input) {
			in.DiskSetup = &cloudinit.DiskSetup{Partitions: []cloudinit.Partition{{Device: "/dev/sdb", DiskLayout: []cloudinit.PartitionSpec{{Percentage: 50}}}}}
		}), "diskSetup.partitions[0].diskLayout: not supported"},
		"NegativeVerbosity": {worker(func(in *cloudinit.Input) { in.Verbosity = ptr.To[int32](-1) }), "verbosity -1 is negative"},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			_, _, err := Render(tt.in, AdditionalConfig{})
			require.ErrorContains(t, err, tt.wantErr)
		})
	}
}
