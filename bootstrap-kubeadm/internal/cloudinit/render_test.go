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

package cloudinit

import (
	"encoding/base64"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	"k8s.io/utils/ptr"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// gzipBlob is "compressed by gzip\n" gzip-compressed, fixed here rather than compressed at test
// time so that the golden files do not depend on the compressor's output staying byte-identical.
const gzipBlob = "H4sIAAAAAAAA/0rOzy0oSi0uTk1RSKpUSK/KLOACBAAA///Jl4V/EwAAAA=="

func mustBase64(t testing.TB, s string) []byte {
	t.Helper()
	b, err := base64.StdEncoding.DecodeString(s)
	require.NoError(t, err)
	return b
}

func pem(kind, name string) []byte {
	return []byte("-----BEGIN " + kind + "-----\n" + base64.StdEncoding.EncodeToString([]byte("fake "+name)) + "\n-----END " + kind + "-----\n")
}

// clusterCertificates are the four key pairs a control plane node gets, deliberately not in path
// order: the output sorts them.
func clusterCertificates() []Certificate {
	pair := func(dir, name string) Certificate {
		return Certificate{
			CertPath: dir + name + ".crt", KeyPath: dir + name + ".key",
			Cert: pem("CERTIFICATE", name), Key: pem("RSA PRIVATE KEY", name),
		}
	}
	sa := Certificate{
		CertPath: "/etc/kubernetes/pki/sa.pub", KeyPath: "/etc/kubernetes/pki/sa.key",
		Cert: pem("PUBLIC KEY", "sa"), Key: pem("RSA PRIVATE KEY", "sa"),
	}
	return []Certificate{
		sa,
		pair("/etc/kubernetes/pki/", "front-proxy-ca"),
		pair("/etc/kubernetes/pki/etcd/", "ca"),
		pair("/etc/kubernetes/pki/", "ca"),
	}
}

// filesOfEveryEncoding has one file per encoding, plus binary plain content YAML cannot carry
// verbatim.
func filesOfEveryEncoding(t testing.TB) []File {
	return []File{
		{Path: "/etc/kubernetes/audit-policy.yaml", Owner: "root:root", Permissions: "0600", Content: []byte("apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n")},
		{Path: "/etc/motd", Encoding: Base64, Append: true, Content: []byte(base64.StdEncoding.EncodeToString([]byte("welcome\n")))},
		{Path: "/opt/blob.txt", Encoding: Gzip, Content: mustBase64(t, gzipBlob)},
		{Path: "/opt/blob-b64.txt", Encoding: GzipBase64, Permissions: "0644", Content: []byte(gzipBlob)},
		{Path: "/opt/binary.bin", Owner: "ops:ops", Content: []byte{0x00, 0xff, 0xfe, 'k', '8', 's'}},
	}
}

func ops() User {
	return User{
		Name: "ops", Groups: "wheel,docker", HomeDir: "/home/ops", Shell: "/bin/bash",
		Sudo: "ALL=(ALL) NOPASSWD:ALL", LockPassword: ptr.To(true),
		SSHAuthorizedKeys: []string{"ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIFakeKeyForTests ops"},
	}
}

// auditor uses every user field ops does not.
func auditor() User {
	return User{
		Name: "auditor", Gecos: "Audit Team", PrimaryGroup: "audit", Inactive: ptr.To(true),
		Passwd: "$6$rounds=4096$salt$hashedpasswordfortests", LockPassword: ptr.To(false),
	}
}

// etcdDisk partitions and formats a disk for etcd and mounts it, as upstream's examples do.
func etcdDisk() (*DiskSetup, [][]string) {
	return &DiskSetup{
			Partitions: []Partition{
				{Device: "/dev/sdb", Layout: true, Overwrite: ptr.To(false), TableType: "gpt"},
				{Device: "/dev/sdc", Layout: false},
				{Device: "/dev/sdd", TableType: "gpt", DiskLayout: []PartitionSpec{
					{Percentage: 30, Type: "Linux"}, {Percentage: 20}, {Percentage: 10, Type: "LinuxSwap"},
					{Percentage: 25, Type: "0FC63DAF-8483-4772-8E79-3D69D8477DE4"}, {Percentage: 15, Type: "LVM"},
				}},
			},
			Filesystems: []Filesystem{
				{Device: "/dev/sdb1", Filesystem: "ext4", Label: "etcd_disk", ExtraOpts: []string{"-E", "lazy_itable_init=1,lazy_journal_init=1"}},
				{Device: "ephemeral0.1", Filesystem: "ext4", Label: "ephemeral0", Partition: "any", Overwrite: ptr.To(true), ReplaceFS: "ntfs"},
			},
		}, [][]string{
			{"LABEL=etcd_disk", "/var/lib/etcddisk"},
			{"ephemeral0.1", "/mnt/ephemeral", "ext4", "defaults,nofail", "0", "2"},
		}
}

const (
	initKubeadmConfig = "---\napiVersion: kubeadm.k8s.io/v1beta4\nclusterName: c1\nkind: ClusterConfiguration\nkubernetesVersion: v1.37.2\n" +
		"---\napiVersion: kubeadm.k8s.io/v1beta4\nkind: InitConfiguration\nnodeRegistration:\n  name: c1-cp-0\n"
	joinKubeadmConfig = "---\napiVersion: kubeadm.k8s.io/v1beta4\ncontrolPlane: {}\ndiscovery:\n  bootstrapToken:\n" +
		"    apiServerEndpoint: 10.0.0.10:6443\n    token: abcdef.0123456789abcdef\n    unsafeSkipCAVerification: true\nkind: JoinConfiguration\n"
	workerKubeadmConfig = "---\napiVersion: kubeadm.k8s.io/v1beta4\ndiscovery:\n  bootstrapToken:\n" +
		"    apiServerEndpoint: 10.0.0.10:6443\n    token: abcdef.0123456789abcdef\n    unsafeSkipCAVerification: true\nkind: JoinConfiguration\n"
)

// TestRender_MatchesGoldenFiles pins the exact bootstrap data of the three kinds of node. Run with
// -update to rewrite testdata/ after an intended change, then review the diff.
func TestRender_MatchesGoldenFiles(t *testing.T) {
	tests := []struct {
		golden string
		in     Input
	}{
		{
			golden: "init-control-plane.yaml",
			in: Input{
				Kind:                Init,
				KubeadmConfig:       []byte(initKubeadmConfig),
				Certificates:        clusterCertificates(),
				Files:               filesOfEveryEncoding(t)[:1],
				PreKubeadmCommands:  []string{"systemctl restart containerd", "echo 'pre: $(hostname)' >> /var/log/bootstrap.log"},
				PostKubeadmCommands: []string{"kubectl --kubeconfig /etc/kubernetes/admin.conf get nodes"},
				Users:               []User{ops()},
				NTP:                 &NTP{Servers: []string{"192.0.2.10"}, Enabled: ptr.To(true)},
				Verbosity:           ptr.To[int32](5),
			},
		},
		{
			golden: "init-control-plane-disks.yaml",
			in: func() Input {
				disks, mounts := etcdDisk()
				return Input{
					Kind: Init, KubeadmConfig: []byte(initKubeadmConfig), Certificates: clusterCertificates(),
					BootCommands: []string{"cloud-init-per once modprobe modprobe br_netfilter", "echo 'boot: $(date)' >> /var/log/boot.log"},
					DiskSetup:    disks, Mounts: mounts,
					Users: []User{ops(), auditor()},
				}
			}(),
		},
		{
			golden: "join-control-plane.yaml",
			in: Input{
				Kind:          JoinControlPlane,
				KubeadmConfig: []byte(joinKubeadmConfig),
				Certificates:  clusterCertificates(),
				Verbosity:     ptr.To[int32](0),
			},
		},
		{
			golden: "join-worker.yaml",
			in: Input{
				Kind:               JoinWorker,
				KubeadmConfig:      []byte(workerKubeadmConfig),
				Files:              filesOfEveryEncoding(t),
				PreKubeadmCommands: []string{"swapoff -a"},
				Users:              []User{ops(), {Name: "audit", LockPassword: ptr.To(false)}},
				NTP:                &NTP{Servers: []string{"192.0.2.10", "192.0.2.11"}, Enabled: ptr.To(true)},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.golden, func(t *testing.T) {
			got, err := Render(tt.in)
			require.NoError(t, err)
			assertGolden(t, filepath.Join("testdata", tt.golden), got)

			again, err := Render(tt.in)
			require.NoError(t, err)
			require.Equal(t, string(got), string(again), "rendering the same input twice differs")
		})
	}
}

// TestRender_DisksBootCommandsAndUsersParseBack reads the document back strictly: cloud-init's
// module names and keys, and every value of the input, in the input's order.
func TestRender_DisksBootCommandsAndUsersParseBack(t *testing.T) {
	disks, mounts := etcdDisk()
	out, err := Render(Input{
		Kind: JoinWorker, KubeadmConfig: []byte(workerKubeadmConfig),
		BootCommands: []string{"b1", "b2"}, DiskSetup: disks, Mounts: mounts, Users: []User{auditor()},
	})
	require.NoError(t, err)
	doc, err := parse(out)
	require.NoError(t, err)
	require.Equal(t, []string{"b1", "b2"}, doc.BootCmd)
	require.Equal(t, map[string]diskSetup{
		"/dev/sdb": {TableType: "gpt", Layout: true, Overwrite: ptr.To(false)},
		"/dev/sdc": {Layout: false},
		// Percentages and codes as cloud-init reads them: numbers, and the codes as strings.
		"/dev/sdd": {TableType: "gpt", Layout: []any{
			[]any{float64(30), "83"}, float64(20), []any{float64(10), "82"},
			[]any{float64(25), "0FC63DAF-8483-4772-8E79-3D69D8477DE4"}, []any{float64(15), "8e"},
		}},
	}, doc.DiskSetup)
	require.Equal(t, []fsSetup{
		{Label: "etcd_disk", Filesystem: "ext4", Device: "/dev/sdb1", ExtraOpts: []string{"-E", "lazy_itable_init=1,lazy_journal_init=1"}},
		{Label: "ephemeral0", Filesystem: "ext4", Device: "ephemeral0.1", Partition: "any", Overwrite: ptr.To(true), ReplaceFS: "ntfs"},
	}, doc.FSSetup)
	require.Equal(t, mounts, doc.Mounts)
	require.Equal(t, []user{{
		Name: "auditor", Gecos: "Audit Team", PrimaryGroup: "audit", Inactive: ptr.To(true),
		Passwd: "$6$rounds=4096$salt$hashedpasswordfortests", LockPassword: ptr.To(false),
	}}, doc.Users)
}

// TestRender_WriteFilesDecodeToTheInputBytes reads the document back and decodes each write_files
// entry as cloud-init would: whatever the encoding the user chose, and whether or not the
// renderer had to add a base64 layer, the node must end up with the original bytes.
func TestRender_WriteFilesDecodeToTheInputBytes(t *testing.T) {
	plaintexts := map[string][]byte{
		"Text":         []byte("line one\n  indented: yes\n---\n\ttab and trailing space \n"),
		"Empty":        {},
		"Binary":       {0x00, 0x01, 0x80, 0xff, 0xfe, '\r', '\n'},
		"UnicodeAndCR": []byte("héllo\r\nwörld\u2028\u2029\ufeff\U0001F600\n"),
		// Characters YAML rejects (DEL, C1, U+FFFE) or rewrites (NEL becomes a space) in text
		// that is otherwise valid UTF-8.
		"YAMLHostileText": []byte("a\u0085b\x7fc\u0080d\ufffe\x00\x1b\x0b\n"),
	}
	encodings := map[Encoding]func([]byte) []byte{
		Plain:      func(p []byte) []byte { return p },
		Base64:     func(p []byte) []byte { return []byte(base64.StdEncoding.EncodeToString(p)) },
		Gzip:       gzipped,
		GzipBase64: func(p []byte) []byte { return []byte(base64.StdEncoding.EncodeToString(gzipped(p))) },
	}
	for name, plain := range plaintexts {
		for enc, encode := range encodings {
			t.Run(name+"/"+string(enc), func(t *testing.T) {
				out, err := Render(Input{
					Kind: JoinWorker, KubeadmConfig: []byte(workerKubeadmConfig),
					Files: []File{{Path: "/etc/f", Encoding: enc, Content: encode(plain)}},
				})
				require.NoError(t, err)
				doc, err := parse(out)
				require.NoError(t, err)
				require.Equal(t, "/etc/f", doc.WriteFiles[0].Path)
				got, err := decode([]byte(doc.WriteFiles[0].Content), doc.WriteFiles[0].Encoding)
				require.NoError(t, err)
				require.Equal(t, plain, got)
			})
		}
	}
}

func TestRender_KubeadmFileAndCommandDependOnKind(t *testing.T) {
	tests := []struct {
		kind      Kind
		verbosity *int32
		wantPath  string
		wantCmd   string
	}{
		{
			kind: Init, wantPath: KubeadmInitConfigPath,
			wantCmd: "kubeadm init --config /run/kubeadm/kubeadm.yaml && echo success > /run/cluster-api/bootstrap-success.complete",
		},
		{
			kind: JoinControlPlane, verbosity: ptr.To[int32](4), wantPath: KubeadmJoinConfigPath,
			wantCmd: "kubeadm join --config /run/kubeadm/kubeadm-join-config.yaml --v 4 && echo success > /run/cluster-api/bootstrap-success.complete",
		},
		{
			kind: JoinWorker, verbosity: ptr.To[int32](0), wantPath: KubeadmJoinConfigPath,
			wantCmd: "kubeadm join --config /run/kubeadm/kubeadm-join-config.yaml --v 0 && echo success > /run/cluster-api/bootstrap-success.complete",
		},
	}
	for _, tt := range tests {
		t.Run(string(tt.kind), func(t *testing.T) {
			out, err := Render(Input{
				Kind: tt.kind, KubeadmConfig: []byte("kind: X\n"), Verbosity: tt.verbosity,
				PreKubeadmCommands: []string{"pre-1", "pre-2"}, PostKubeadmCommands: []string{"post-1"},
			})
			require.NoError(t, err)
			doc, err := parse(out)
			require.NoError(t, err)
			require.Equal(t, []string{"pre-1", "pre-2", tt.wantCmd, "post-1"}, doc.RunCmd)
			want := []writeFile{
				{Path: tt.wantPath, Owner: "root:root", Permissions: "0640", Content: "kind: X\n"},
				{Path: PlaceholderPath, Owner: "root:root", Permissions: "0640", Content: placeholderNotes},
			}
			require.Empty(t, cmp.Diff(want, doc.WriteFiles), "(-want +got)")
		})
	}
}

func TestRender_CertificatesAreRootOwnedSortedWithPrivateKeys(t *testing.T) {
	certs := clusterCertificates()
	certs = append(certs, Certificate{CertPath: "/etc/kubernetes/pki/external-ca.crt", KeyPath: "/etc/kubernetes/pki/external-ca.key", Cert: pem("CERTIFICATE", "external")})
	out, err := Render(Input{Kind: Init, KubeadmConfig: []byte(initKubeadmConfig), Certificates: certs})
	require.NoError(t, err)
	doc, err := parse(out)
	require.NoError(t, err)

	type entry struct{ Path, Owner, Permissions string }
	var got []entry
	for _, f := range doc.WriteFiles {
		got = append(got, entry{f.Path, f.Owner, f.Permissions})
	}
	want := []entry{
		{"/etc/kubernetes/pki/ca.crt", "root:root", "0640"},
		{"/etc/kubernetes/pki/ca.key", "root:root", "0600"},
		{"/etc/kubernetes/pki/etcd/ca.crt", "root:root", "0640"},
		{"/etc/kubernetes/pki/etcd/ca.key", "root:root", "0600"},
		// A certificate without its key (an external CA) gets no key file.
		{"/etc/kubernetes/pki/external-ca.crt", "root:root", "0640"},
		{"/etc/kubernetes/pki/front-proxy-ca.crt", "root:root", "0640"},
		{"/etc/kubernetes/pki/front-proxy-ca.key", "root:root", "0600"},
		{"/etc/kubernetes/pki/sa.key", "root:root", "0600"},
		{"/etc/kubernetes/pki/sa.pub", "root:root", "0640"},
		{KubeadmInitConfigPath, "root:root", "0640"},
		{PlaceholderPath, "root:root", "0640"},
	}
	require.Empty(t, cmp.Diff(want, got), "(-want +got)")
}

func TestRender_RejectsInputThatWouldNotBootstrap(t *testing.T) {
	valid := func() Input {
		return Input{Kind: JoinWorker, KubeadmConfig: []byte(workerKubeadmConfig)}
	}
	tests := []struct {
		name    string
		mutate  func(*Input)
		wantErr string
	}{
		{name: "UnknownKind", mutate: func(in *Input) { in.Kind = "join" }, wantErr: `unknown kind "join": want "init", "join-control-plane" or "join-worker"`},
		{name: "NoKubeadmConfig", mutate: func(in *Input) { in.KubeadmConfig = nil }, wantErr: "no kubeadm configuration to write"},
		{
			name: "WorkerWithCertificates", mutate: func(in *Input) { in.Certificates = clusterCertificates() },
			wantErr: "certificates are for control plane nodes only: a worker must not receive the cluster's private keys",
		},
		{
			name: "CertificateWithoutData", mutate: func(in *Input) {
				in.Kind = Init
				in.Certificates = []Certificate{{CertPath: "/etc/kubernetes/pki/ca.crt"}}
			},
			wantErr: `certificate 0 ("/etc/kubernetes/pki/ca.crt") has no certificate data`,
		},
		{name: "FileWithoutPath", mutate: func(in *Input) { in.Files = []File{{Content: []byte("x")}} }, wantErr: `file 0 (""): no path`},
		{
			name:    "FileBase64NotBase64",
			mutate:  func(in *Input) { in.Files = []File{{Path: "/etc/a", Encoding: Base64, Content: []byte("not base64!")}} },
			wantErr: `file 0 ("/etc/a"): content is not valid base64`,
		},
		{
			name:    "FileGzipNotGzip",
			mutate:  func(in *Input) { in.Files = []File{{Path: "/etc/a", Encoding: Gzip, Content: []byte("plain text")}} },
			wantErr: `file 0 ("/etc/a"): content is not gzip data`,
		},
		{
			name: "FileGzipBase64OfPlainText",
			mutate: func(in *Input) {
				in.Files = []File{{Path: "/etc/a", Encoding: GzipBase64, Content: []byte(base64.StdEncoding.EncodeToString([]byte("plain")))}}
			},
			wantErr: `file 0 ("/etc/a"): after base64 decoding: content is not gzip data`,
		},
		{
			name:    "FileUnknownEncoding",
			mutate:  func(in *Input) { in.Files = []File{{Path: "/etc/a", Encoding: "zstd"}} },
			wantErr: `unknown encoding "zstd": want none, "base64", "gzip" or "gzip+base64"`,
		},
		{name: "UserWithoutName", mutate: func(in *Input) { in.Users = []User{{Shell: "/bin/sh"}} }, wantErr: "user 0: no name"},
		{
			name:    "UserPasswordNotText",
			mutate:  func(in *Input) { in.Users = []User{{Name: "a", Passwd: "$6$\x00"}} },
			wantErr: `user 0: "a": fields: "$6$\x00" is not valid UTF-8 text or holds control characters`,
		},
		{
			name: "DevicePartitionedTwice",
			mutate: func(in *Input) {
				in.DiskSetup = &DiskSetup{Partitions: []Partition{{Device: "/dev/sdb", Layout: true}, {Device: "/dev/sdb", TableType: "gpt"}}}
			},
			wantErr: `diskSetup.partitions[1]: device "/dev/sdb" is partitioned twice: cloud-init takes one partition table per device; merge the entries`,
		},
		{
			name: "DiskLayoutOverTheDevice",
			mutate: func(in *Input) {
				in.DiskSetup = &DiskSetup{Partitions: []Partition{{Device: "/dev/sdb", DiskLayout: []PartitionSpec{{Percentage: 60}, {Percentage: 41, Type: "Linux"}}}}}
			},
			wantErr: "diskSetup.partitions[0]: the diskLayout percentages add up to 101: the partitions of a device take at most 100 percent of it",
		},
		{
			name: "DiskLayoutEmptyPartition",
			mutate: func(in *Input) {
				in.DiskSetup = &DiskSetup{Partitions: []Partition{{Device: "/dev/sdb", DiskLayout: []PartitionSpec{{Percentage: 50}, {Type: "Linux"}}}}}
			},
			wantErr: "diskSetup.partitions[0]: diskLayout[1].percentage is 0: a partition takes 1 to 100 percent of the device",
		},
		{
			name:    "FilesystemWithoutType",
			mutate:  func(in *Input) { in.DiskSetup = &DiskSetup{Filesystems: []Filesystem{{Device: "/dev/sdb1"}}} },
			wantErr: "diskSetup.filesystems[0] needs a device and a filesystem type",
		},
		{
			name:    "MountWithoutMountPoint",
			mutate:  func(in *Input) { in.Mounts = [][]string{{"/dev/sdb1"}} },
			wantErr: `mounts[0] is ["/dev/sdb1"]: a mount needs at least a device and a mount point`,
		},
		{
			name:    "BootCommandNotText",
			mutate:  func(in *Input) { in.BootCommands = []string{"echo \x1b"} },
			wantErr: `bootCommands: "echo \x1b" is not valid UTF-8 text or holds control characters`,
		},
		{name: "NegativeVerbosity", mutate: func(in *Input) { in.Verbosity = ptr.To[int32](-1) }, wantErr: "verbosity -1 is negative"},
		{
			name:    "CommandNotUTF8",
			mutate:  func(in *Input) { in.PostKubeadmCommands = []string{"echo \xff"} },
			wantErr: `postKubeadmCommands: "echo \xff" is not valid UTF-8 text or holds control characters`,
		},
		{
			// YAML would turn the NEL into a space: the node would run another command.
			name:    "CommandWithNextLine",
			mutate:  func(in *Input) { in.PreKubeadmCommands = []string{"echo a\u0085b"} },
			wantErr: `preKubeadmCommands: "echo a\u0085b" is not valid UTF-8 text or holds control characters`,
		},
		{
			name:    "PathWithDelete",
			mutate:  func(in *Input) { in.Files = []File{{Path: "/etc/a\x7f"}} },
			wantErr: `file 0 ("/etc/a\x7f"): path, owner and permissions: "/etc/a\x7f" is not valid UTF-8 text or holds control characters`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := valid()
			tt.mutate(&in)
			out, err := Render(in)
			require.ErrorContains(t, err, tt.wantErr)
			require.Nil(t, out)
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
