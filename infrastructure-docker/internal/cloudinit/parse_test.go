package cloudinit

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
)

func gz(t testing.TB, s string) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	_, err := w.Write([]byte(s))
	require.NoError(t, err)
	require.NoError(t, w.Close())
	return buf.Bytes()
}

func b64(b []byte) string { return base64.StdEncoding.EncodeToString(b) }

func TestParse_ReturnsFilesThenCommands(t *testing.T) {
	gzBody := b64(gz(t, "compressed\n"))
	doc := `#cloud-config
runcmd:
- swapoff -a
- [kubeadm, init, --config, /run/kubeadm/kubeadm.yaml]
users:
- name: ops
write_files:
- path: /etc/plain.txt
  content: |
    hello
- path: /etc/b64
  encoding: b64
  content: ` + b64([]byte("b64 body")) + `
- path: /etc/base64
  encoding: base64
  owner: ops:ops
  permissions: "0600"
  content: ` + b64([]byte("base64 body")) + `
- path: /etc/gzb64
  encoding: gz+b64
  permissions: 0755
  content: ` + gzBody + `
- path: /etc/gzipbase64
  encoding: gzip+base64
  append: true
  permissions: '4750'
  content: ` + gzBody + `
- path: /run/empty/../placeholder
  defer: true
ntp:
  enabled: true
`
	got, err := Parse([]byte(doc), InstanceData{})
	require.NoError(t, err)
	want := &Result{
		Actions: []Action{
			&WriteFile{Path: "/etc/plain.txt", Content: []byte("hello\n"), Permissions: 0o644, Owner: "root:root", Line: 8},
			&WriteFile{Path: "/etc/b64", Content: []byte("b64 body"), Permissions: 0o644, Owner: "root:root", Line: 11},
			&WriteFile{Path: "/etc/base64", Content: []byte("base64 body"), Permissions: 0o600, Owner: "ops:ops", Line: 14},
			&WriteFile{Path: "/etc/gzb64", Content: []byte("compressed\n"), Permissions: 0o755, Owner: "root:root", Line: 19},
			&WriteFile{Path: "/etc/gzipbase64", Content: []byte("compressed\n"), Permissions: 0o750 | fs.ModeSetuid, Owner: "root:root", Append: true, Line: 23},
			&WriteFile{Path: "/run/placeholder", Permissions: 0o644, Owner: "root:root", Line: 28},
			&RunCommand{Args: []string{"/bin/sh", "-c", createUserScript, "sh", "ops", "-m"}, Line: 6},
			&RunCommand{Args: []string{"usermod", "-L", "ops"}, Line: 6},
			&RunCommand{Args: []string{"/bin/sh", "-c", "swapoff -a"}, Line: 3},
			&RunCommand{Args: []string{"kubeadm", "init", "--config", "/run/kubeadm/kubeadm.yaml"}, Line: 4},
		},
		Ignored: []Ignored{{Key: "write_files[5].defer", Line: 29}, {Key: "ntp", Line: 30}},
	}
	require.Empty(t, cmp.Diff(want, got))
}

func TestParse_GzipContentThatIsNotGzipIsRefused(t *testing.T) {
	// Renderers write gzip as gzip+base64 (raw gzip is not valid UTF-8, so YAML cannot carry it);
	// plain text declared gzip is a mislabelled file and must fail here, naming the content's line.
	_, err := Parse([]byte("#cloud-config\nwrite_files:\n- path: /x\n  encoding: gzip\n  content: not gzip\n"), InstanceData{})
	requireLineError(t, err, 5, `write_files[0] (/x): content is not gzip data`)
}

func TestParse_EmptyAndNullDocuments(t *testing.T) {
	for _, doc := range []string{"#cloud-config\n", "#cloud-config", "#cloud-config\n# only a comment\n", "#cloud-config\n~\n",
		"#cloud-config\nwrite_files:\nruncmd:\n"} {
		got, err := Parse([]byte(doc), InstanceData{})
		require.NoError(t, err, doc)
		require.Empty(t, got.Actions, doc)
	}
}

func requireLineError(t *testing.T, err error, line int, contains string) {
	t.Helper()
	require.Error(t, err)
	var perr *Error
	require.True(t, errors.As(err, &perr), "error %v is not a *cloudinit.Error", err)
	require.Equal(t, line, perr.Line, "line of %v", err)
	require.Contains(t, err.Error(), contains)
}

func TestParse_RejectsBadInputNamingTheLine(t *testing.T) {
	tests := []struct {
		name, doc string
		line      int
		want      string
	}{
		{"NoHeader", "write_files: []\n", 1, `does not start with "#cloud-config"`},
		{"Ignition", `{"ignition": {"version": "3.4.0"}}`, 1, "only cloud-config is supported"},
		{"BadYAML", "#cloud-config\nruncmd:\n- a\n  b: [\n", 4, "invalid YAML"},
		{"NotAMapping", "#cloud-config\n- a\n", 2, "must be a mapping of cloud-init modules, found a list"},
		{"ModuleTwice", "#cloud-config\nruncmd: []\nruncmd: []\n", 3, `module "runcmd" appears twice (first on line 2)`},
		{"WriteFilesNotAList", "#cloud-config\nwrite_files:\n  path: /x\n", 3, "write_files must be a list of files, found a mapping"},
		{"FileNotAMapping", "#cloud-config\nwrite_files:\n- /etc/x\n", 3, `write_files[0] must be a mapping with path and content, found the value "/etc/x"`},
		{"FileWithoutPath", "#cloud-config\nwrite_files:\n- content: x\n", 3, "write_files[0] has no path"},
		{"RelativePath", "#cloud-config\nwrite_files:\n- path: etc/x\n", 3, `write_files[0].path "etc/x" must be an absolute file path`},
		{"RootPath", "#cloud-config\nwrite_files:\n- path: /..\n", 3, `must be an absolute file path`},
		{"UnknownEncoding", "#cloud-config\nwrite_files:\n- path: /x\n  content: x\n  encoding: zstd\n", 5, `unknown encoding "zstd"`},
		{"UnknownEncodingWithoutContent", "#cloud-config\nwrite_files:\n- path: /x\n  encoding: zstd\n", 4, `unknown encoding "zstd"`},
		{"BadBase64", "#cloud-config\nwrite_files:\n- path: /x\n  encoding: b64\n  content: '!!!'\n", 5, "write_files[0] (/x): content is not valid base64"},
		{"BadGzipAfterBase64", "#cloud-config\nwrite_files:\n- path: /x\n  encoding: gzip+base64\n  content: aGVsbG8=\n", 5, "after base64 decoding: content is not gzip data"},
		{"BadPermissions", "#cloud-config\nwrite_files:\n- path: /x\n  permissions: '0999'\n", 4, `write_files[0].permissions: "0999" is not an octal mode`},
		{"PermissionsTooLarge", "#cloud-config\nwrite_files:\n- path: /x\n  permissions: '17777'\n", 4, `is not an octal mode`},
		{"BadOwner", "#cloud-config\nwrite_files:\n- path: /x\n  owner: 'root; rm -rf /'\n", 4, `write_files[0].owner "root; rm -rf /" is not "user" or "user:group"`},
		{"BadAppend", "#cloud-config\nwrite_files:\n- path: /x\n  append: sometimes\n", 4, `write_files[0].append: "sometimes" is not true or false`},
		{"ContentNotAScalar", "#cloud-config\nwrite_files:\n- path: /x\n  content: [a]\n", 4, "write_files[0].content must be a single value, found a list"},
		{"Source", "#cloud-config\nwrite_files:\n- path: /x\n  source:\n    uri: file:///x\n", 4, "fetching file content from a URI is not supported"},
		{"SourceScalar", "#cloud-config\nwrite_files:\n- path: /x\n  source: x\n", 4, "fetching file content from a URI is not supported"},
		{"RunCmdNotAList", "#cloud-config\nruncmd: echo hi\n", 2, `runcmd must be a list of commands, found the value "echo hi"`},
		{"RunCmdEmptyString", "#cloud-config\nruncmd:\n- ''\n", 3, "runcmd[0] is empty"},
		{"RunCmdEmptyList", "#cloud-config\nruncmd:\n- []\n", 3, "runcmd[0] is an empty list"},
		{"RunCmdNestedList", "#cloud-config\nruncmd:\n- [echo, [a]]\n", 3, "runcmd[0][1] must be a string, found a list"},
		{"RunCmdMapping", "#cloud-config\nruncmd:\n- {a: b}\n", 3, "runcmd[0] must be a string or a list of strings, found a mapping"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.doc), InstanceData{})
			requireLineError(t, err, tt.line, tt.want)
		})
	}
}

func TestParse_GzipBombIsRefused(t *testing.T) {
	big := gz(t, string(make([]byte, MaxFileSize+1)))
	_, err := Parse([]byte("#cloud-config\nwrite_files:\n- path: /x\n  encoding: gz+b64\n  content: "+b64(big)+"\n"), InstanceData{})
	requireLineError(t, err, 5, "decompresses to more than")
}

func TestParsePermissions_ReadsOctalWithSpecialBits(t *testing.T) {
	for s, want := range map[string]fs.FileMode{
		"644": 0o644, "0600": 0o600, "0o755": 0o755, "4755": 0o755 | fs.ModeSetuid,
		"2750": 0o750 | fs.ModeSetgid, "1777": 0o777 | fs.ModeSticky, "0": 0,
	} {
		got, err := parsePermissions(s)
		require.NoError(t, err, s)
		require.Equal(t, want, got, s)
	}
}

// TestParse_ReadsTheKubeadmRenderersDocuments parses the golden files of the kubeadm bootstrap
// provider's renderer (read as files: no provider imports another) so that the two packages'
// YAML field names cannot drift apart unnoticed.
func TestParse_ReadsTheKubeadmRenderersDocuments(t *testing.T) {
	golden, err := filepath.Glob(filepath.Join("..", "..", "..", "bootstrap-kubeadm", "internal", "cloudinit", "testdata", "*.yaml"))
	require.NoError(t, err)
	if len(golden) == 0 {
		t.Skip("no rendered documents of bootstrap-kubeadm in this checkout")
	}
	for _, file := range golden {
		t.Run(filepath.Base(file), func(t *testing.T) {
			data, err := os.ReadFile(file)
			require.NoError(t, err)
			got, err := Parse(data, InstanceData{})
			require.NoError(t, err)
			var files, cmds int
			for _, a := range got.Actions {
				switch a := a.(type) {
				case *WriteFile:
					require.Zero(t, cmds, "file %s after a command", a.Path)
					files++
				case *RunCommand:
					if !a.Boot { // bootcmd runs before the files, as in cloud-init
						cmds++
					}
				}
			}
			for _, ig := range got.Ignored {
				require.Contains(t, []string{"ntp", "disk_setup", "fs_setup", "mounts"}, ig.Key, "the renderer emits no key the parser does not know")
			}
			require.Positive(t, files)
			require.Positive(t, cmds)
			last := got.Actions[len(got.Actions)-1].(*RunCommand)
			require.Contains(t, last.Args[len(last.Args)-1]+" "+joinAll(got.Actions), "bootstrap-success.complete")
		})
	}
}

func joinAll(actions []Action) string {
	var out string
	for _, a := range actions {
		if c, ok := a.(*RunCommand); ok {
			out += c.Args[len(c.Args)-1] + "\n"
		}
	}
	return out
}

// TestParse_BootcmdUsersAndDisksInCloudInitOrder: bootcmd runs first, then the files (the users'
// sudo rules among them), then the users' commands, then runcmd; disks and mounts are skipped
// with the reason, as a node container has none.
func TestParse_BootcmdUsersAndDisksInCloudInitOrder(t *testing.T) {
	doc := `#cloud-config
bootcmd:
- modprobe br_netfilter
- [sysctl, -w, net.ipv4.ip_forward=1]
disk_setup:
  /dev/sdb:
    layout: true
fs_setup:
- device: /dev/sdb1
  filesystem: ext4
mounts:
- - LABEL=etcd_disk
  - /var/lib/etcddisk
runcmd:
- kubeadm join
users:
- default
- name: ops
  gecos: Operations Team
  groups: wheel, docker
  homedir: /srv/ops
  shell: /bin/bash
  primary_group: ops
  passwd: $6$salt$hash
  lock_passwd: false
  inactive: true
  sudo: ALL=(ALL) NOPASSWD:ALL
  ssh_authorized_keys:
  - ssh-ed25519 AAAA ops@laptop
  uid: 1500
- auditor
write_files:
- path: /etc/motd
  content: hi
`
	got, err := Parse([]byte(doc), InstanceData{})
	require.NoError(t, err)
	want := &Result{
		Actions: []Action{
			&RunCommand{Args: []string{"/bin/sh", "-c", "modprobe br_netfilter"}, Boot: true, Line: 3},
			&RunCommand{Args: []string{"sysctl", "-w", "net.ipv4.ip_forward=1"}, Boot: true, Line: 4},
			&WriteFile{Path: "/etc/motd", Content: []byte("hi"), Permissions: 0o644, Owner: "root:root", Line: 33},
			&WriteFile{Path: SudoersPath, Content: []byte("ops ALL=(ALL) NOPASSWD:ALL\n"), Permissions: 0o440, Owner: "root:root", Append: true, Line: 17},
			&RunCommand{Args: []string{"groupadd", "-f", "ops"}, Line: 18},
			&RunCommand{Args: []string{"groupadd", "-f", "wheel"}, Line: 18},
			&RunCommand{Args: []string{"groupadd", "-f", "docker"}, Line: 18},
			&RunCommand{Args: []string{"/bin/sh", "-c", createUserScript, "sh", "ops", "-m",
				"-c", "Operations Team", "-d", "/srv/ops", "-s", "/bin/bash", "-g", "ops", "-G", "wheel,docker"}, Line: 18},
			&RunCommand{Args: []string{"usermod", "-p", "$6$salt$hash", "ops"}, Line: 18},
			&RunCommand{Args: []string{"usermod", "--expiredate", "1", "ops"}, Line: 18},
			&RunCommand{Args: []string{"/bin/sh", "-c", authorizedKeysScript, "sh", "ops", "ssh-ed25519 AAAA ops@laptop"}, Line: 18},
			&RunCommand{Args: []string{"/bin/sh", "-c", createUserScript, "sh", "auditor", "-m"}, Line: 31},
			&RunCommand{Args: []string{"usermod", "-L", "auditor"}, Line: 31},
			&RunCommand{Args: []string{"/bin/sh", "-c", "kubeadm join"}, Line: 15},
		},
		Ignored: []Ignored{
			{Key: "disk_setup", Line: 5, Reason: whyDisksAreSkipped},
			{Key: "fs_setup", Line: 8, Reason: whyDisksAreSkipped},
			{Key: "mounts", Line: 11, Reason: whyDisksAreSkipped},
			{Key: "users[0]", Line: 17, Reason: "a node container has no distribution default user"},
			{Key: "users[1].uid", Line: 30},
		},
	}
	require.Empty(t, cmp.Diff(want, got))
}

func TestParse_RefusesUsersItCannotCreate(t *testing.T) {
	tests := []struct {
		name, doc, wantErr string
	}{
		{"NotAList", "#cloud-config\nusers: ops\n", `cloud-config line 2: users must be a list of users, found the value "ops"`},
		{"NoName", "#cloud-config\nusers:\n- shell: /bin/sh\n", `cloud-config line 3: users[0] has no valid user name (found "")`},
		{"NameWithColon", "#cloud-config\nusers:\n- name: a:b\n", `users[0] has no valid user name (found "a:b")`},
		{"LockPasswdNotABool", "#cloud-config\nusers:\n- name: ops\n  lock_passwd: maybe\n", `users[0].lock_passwd: "maybe" is not true or false`},
		{"KeysNotAList", "#cloud-config\nusers:\n- name: ops\n  ssh_authorized_keys: {a: b}\n", "users[0].ssh_authorized_keys must be a list of strings"},
		{"BootcmdNotAList", "#cloud-config\nbootcmd: reboot\n", `bootcmd must be a list of commands, found the value "reboot"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.doc), InstanceData{})
			require.ErrorContains(t, err, tt.wantErr)
		})
	}
}
