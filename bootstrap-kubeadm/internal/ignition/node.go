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
	"encoding/base64"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"capstan.dev/bootstrap-kubeadm/internal/cloudinit"
)

// textFile is a root-owned file with text content.
func textFile(path string, mode int, content string) file {
	return file{Filesystem: "root", Path: path, Mode: ptrTo(mode), Contents: contents{Source: dataURL([]byte(content))}}
}

// userFile converts a file of the input: its content decoded (base64 removed; gzip kept and
// declared as compression), its owner and octal permissions in Ignition's terms.
func userFile(f cloudinit.File) (file, error) {
	if f.Path == "" || !strings.HasPrefix(f.Path, "/") {
		return file{}, fmt.Errorf("path %q is not absolute", f.Path)
	}
	content, gzipped, err := f.Decoded()
	if err != nil {
		return file{}, err
	}
	mode := modeDefault
	if f.Permissions != "" {
		m, err := strconv.ParseUint(f.Permissions, 8, 32)
		if err != nil || m > 0o7777 {
			return file{}, fmt.Errorf("permissions %q are not an octal file mode such as 0640", f.Permissions)
		}
		mode = int(m)
	}
	out := file{Filesystem: "root", Path: f.Path, Append: f.Append, Mode: &mode, Contents: contents{Source: dataURL(content)}}
	if gzipped {
		out.Contents = contents{Compression: "gzip", Source: base64URL(content)}
	}
	out.User, out.Group, err = owner(f.Owner)
	return out, err
}

// owner reads cloud-init's "user:group" (or "user"); a number is an ID. Empty is root:root,
// Ignition's default, and left out.
func owner(s string) (user, group *identity, err error) {
	if s == "" {
		return nil, nil, nil
	}
	u, g, _ := strings.Cut(s, ":")
	if user, err = ownerIdentity(u); err == nil {
		group, err = ownerIdentity(g)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("owner %q: %w", s, err)
	}
	return user, group, nil
}

func ownerIdentity(s string) (*identity, error) {
	s = strings.TrimSpace(s)
	switch {
	case s == "":
		return nil, nil
	case strings.ContainsAny(s, " :\t\n"):
		return nil, fmt.Errorf("%q is not a user or group name", s)
	}
	if id, err := strconv.Atoi(s); err == nil && id >= 0 {
		return &identity{ID: &id}, nil
	}
	return &identity{Name: s}, nil
}

// dataURL is an RFC 2397 "data:" URL of content: percent-encoded text, as the CLC transpiler
// writes inline contents, or base64 when the content is not UTF-8 text.
func dataURL(content []byte) string {
	if !utf8.Valid(content) {
		return base64URL(content)
	}
	var b strings.Builder
	b.WriteString("data:,")
	for _, c := range content {
		if isUnreserved(c) {
			b.WriteByte(c)
			continue
		}
		fmt.Fprintf(&b, "%%%02X", c)
	}
	return b.String()
}

func base64URL(content []byte) string {
	return "data:;base64," + base64.StdEncoding.EncodeToString(content)
}

// isUnreserved reports the bytes a data URL carries unescaped: RFC 3986's unreserved characters
// and the sub-delimiters and separators that mean nothing after the comma.
func isUnreserved(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("-_.~!$&'()*+,;=:@/", c) >= 0
}

// sshdConfig allows password logins for the users whose password is not locked, as upstream's
// does; empty when there are none.
func sshdConfig(users []cloudinit.User) string {
	var names []string
	for _, u := range users {
		if u.LockPassword != nil && !*u.LockPassword {
			names = append(names, u.Name)
		}
	}
	if len(names) == 0 {
		return ""
	}
	return `# Written by the kubeadm bootstrap provider: sshd's defaults, and password logins for the
# users whose password is not locked.
Subsystem sftp internal-sftp
ClientAliveInterval 180
UseDNS no
UsePAM yes
PrintLastLog no # PAM prints it
PrintMotd no # PAM prints it

Match User ` + strings.Join(names, ",") + `
  PasswordAuthentication yes
`
}

// ntpConf configures ntpd with the servers, answering time queries only.
func ntpConf(servers []string) string {
	var b strings.Builder
	b.WriteString("# Written by the kubeadm bootstrap provider from spec.ntp.servers.\n")
	for _, s := range servers {
		b.WriteString("server " + s + "\n")
	}
	b.WriteString(`
# Answer time queries only, at a limited rate; this host has full access.
restrict default nomodify nopeer noquery notrap limited kod
restrict 127.0.0.1
restrict [::1]
`)
	return b.String()
}

// ntpUnits enables ntpd when NTP is enabled.
func ntpUnits(ntp *cloudinit.NTP) []unit {
	if ntp == nil || ntp.Enabled == nil || !*ntp.Enabled {
		return nil
	}
	return []unit{{Name: "ntpd.service", Enabled: ptrTo(true)}}
}

// passwdUsers are the users of passwd.users. A password is a hash, as cloud-init's passwd.
func passwdUsers(in []cloudinit.User) ([]user, error) {
	var out []user
	for i, u := range in {
		if u.Name == "" {
			return nil, fmt.Errorf("user %d: no name", i)
		}
		pu := user{Name: u.Name, Gecos: u.Gecos, HomeDir: u.HomeDir, Shell: u.Shell, PrimaryGroup: u.PrimaryGroup,
			SSHAuthorizedKeys: u.SSHAuthorizedKeys}
		if u.Passwd != "" {
			pu.PasswordHash = ptrTo(u.Passwd)
		}
		for g := range strings.SplitSeq(u.Groups, ",") {
			if g = strings.TrimSpace(g); g != "" {
				pu.Groups = append(pu.Groups, g)
			}
		}
		out = append(out, pu)
	}
	return out, nil
}

// disks are storage.disks and storage.filesystems of the disk setup.
func disks(in *cloudinit.DiskSetup) ([]disk, []filesystem, error) {
	if in == nil {
		return nil, nil, nil
	}
	var ds []disk
	for i, p := range in.Partitions {
		if len(p.DiskLayout) > 0 {
			return nil, nil, fmt.Errorf("diskSetup.partitions[%d].diskLayout: not supported when spec.format is set to: \"ignition\" (Ignition partitions have sizes, not percentages); use layout: true", i)
		}
		d := disk{Device: p.Device, WipeTable: p.Overwrite != nil && *p.Overwrite}
		if p.Layout {
			d.Partitions = []partition{{}}
		}
		ds = append(ds, d)
	}
	var fss []filesystem
	for _, f := range in.Filesystems {
		m := &mount{Device: f.Device, Format: f.Filesystem, Options: f.ExtraOpts, WipeFilesystem: f.Overwrite != nil && *f.Overwrite}
		if f.Label != "" {
			m.Label = ptrTo(f.Label)
		}
		fss = append(fss, filesystem{Name: f.Label, Mount: m})
	}
	return ds, fss, nil
}

// mountUnits are the .mount units of the mounts, each enabled. A mount's device is a label of
// the disk setup's file systems (with or without LABEL=), which names its device, or a device.
func mountUnits(mounts [][]string, setup *cloudinit.DiskSetup) ([]unit, error) {
	byLabel := map[string]string{}
	if setup != nil {
		for _, f := range setup.Filesystems {
			byLabel[f.Label] = f.Device
		}
	}
	var out []unit
	for i, m := range mounts {
		if len(m) < 2 || m[0] == "" || !strings.HasPrefix(m[1], "/") || m[1] == "/" {
			return nil, fmt.Errorf("mounts[%d]: want a device and an absolute mount point, found %q", i, m)
		}
		label, isLabel := strings.CutPrefix(m[0], "LABEL=")
		what, ok := byLabel[label]
		switch {
		case ok:
		case isLabel:
			what = "/dev/disk/by-label/" + label
		default:
			what = m[0]
		}
		var b strings.Builder
		fmt.Fprintf(&b, "[Unit]\nDescription=Mount %s\n\n[Mount]\nWhat=%s\nWhere=%s\n", m[0], what, m[1])
		if len(m) > 2 && m[2] != "" && m[2] != "auto" {
			fmt.Fprintf(&b, "Type=%s\n", m[2])
		}
		if len(m) > 3 && m[3] != "" {
			fmt.Fprintf(&b, "Options=%s\n", m[3])
		}
		b.WriteString("\n[Install]\nWantedBy=multi-user.target\n")
		out = append(out, unit{Name: mountUnitName(m[1]), Enabled: ptrTo(true), Contents: b.String()})
	}
	return out, nil
}

// mountUnitName is systemd's name of the mount unit of an absolute path ("/var/lib/etcd" is
// var-lib-etcd.mount); the path's characters other than letters, digits, ":_." are escaped as
// systemd-escape --path does.
func mountUnitName(p string) string {
	var b strings.Builder
	for i, c := range []byte(strings.Trim(p, "/")) {
		switch {
		case c == '/':
			b.WriteByte('-')
		case 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == ':' || c == '_' || (c == '.' && i > 0):
			b.WriteByte(c)
		default:
			fmt.Fprintf(&b, `\x%02x`, c)
		}
	}
	return b.String() + ".mount"
}
