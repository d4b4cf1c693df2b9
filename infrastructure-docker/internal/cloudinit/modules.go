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
	"fmt"
	"strings"

	yaml "go.yaml.in/yaml/v3"
)

// SudoersPath is where the sudo rules of the users module go, as cloud-init writes them.
const SudoersPath = "/etc/sudoers.d/90-cloud-init-users"

// whyDisksAreSkipped says why disk_setup, fs_setup and mounts are skipped.
const whyDisksAreSkipped = "a node container has no disks of its own to partition, format or mount (its storage is the Docker volume behind /var)"

// Scripts the users module runs; the user's values are positional arguments, never spliced into
// the script text.
const (
	// createUserScript: $1 is the login, the rest useradd's options. An existing user is kept,
	// as cloud-init does.
	createUserScript = `u=$1; shift; id -u "$u" >/dev/null 2>&1 || useradd "$@" "$u"`
	// authorizedKeysScript: $1 is the login, the rest the keys, appended to its authorized_keys.
	authorizedKeysScript = `u=$1; shift; h=$(getent passwd "$u" | cut -d: -f6) && [ -n "$h" ] && mkdir -p "$h/.ssh" && ` +
		`printf '%s\n' "$@" >> "$h/.ssh/authorized_keys" && chown -R "$u:" "$h/.ssh" && chmod 700 "$h/.ssh" && chmod 600 "$h/.ssh/authorized_keys"`
)

// user is a cloud-init users entry, the keys the provider acts on.
type user struct {
	name, gecos, homedir, shell, passwd, primaryGroup string
	groups, sudo, keys                                []string
	lockPasswd, inactive                              bool
	line                                              int
}

// parseUsers turns the users module into commands (group creation, useradd, password, lock,
// expiry, authorized keys) and a sudoers file. "default" (the image's default user) is ignored.
func parseUsers(n *yaml.Node) (commands []Action, files []Action, ignored []Ignored, err error) {
	n = resolve(n)
	if isNull(n) {
		return nil, nil, nil, nil
	}
	if n.Kind != yaml.SequenceNode {
		return nil, nil, nil, errorAt(n, "users must be a list of users, found %s", kindName(n))
	}
	var sudoers strings.Builder
	for i, entry := range n.Content {
		entry = resolve(entry)
		where := fmt.Sprintf("users[%d]", i)
		if entry.Kind == yaml.ScalarNode && entry.Value == "default" {
			ignored = append(ignored, Ignored{Key: where, Line: entry.Line, Reason: "a node container has no distribution default user"})
			continue
		}
		u, ign, err := parseUser(entry, where)
		if err != nil {
			return nil, nil, nil, err
		}
		ignored = append(ignored, ign...)
		commands = append(commands, u.commands()...)
		for _, rule := range u.sudo {
			fmt.Fprintf(&sudoers, "%s %s\n", u.name, rule)
		}
	}
	if sudoers.Len() > 0 {
		files = append(files, &WriteFile{Path: SudoersPath, Content: []byte(sudoers.String()), Permissions: 0o440, Owner: DefaultOwner, Append: true, Line: n.Line})
	}
	return commands, files, ignored, nil
}

// commands are the steps that create u, in order.
func (u user) commands() []Action {
	cmd := func(args ...string) Action { return &RunCommand{Args: args, Line: u.line} }
	var out []Action
	for _, g := range append([]string{u.primaryGroup}, u.groups...) {
		if g != "" {
			out = append(out, cmd("groupadd", "-f", g))
		}
	}
	create := []string{"/bin/sh", "-c", createUserScript, "sh", u.name, "-m"}
	for _, o := range [][2]string{{"-c", u.gecos}, {"-d", u.homedir}, {"-s", u.shell}, {"-g", u.primaryGroup}, {"-G", strings.Join(u.groups, ",")}} {
		if o[1] != "" {
			create = append(create, o[0], o[1])
		}
	}
	out = append(out, cmd(create...))
	if u.passwd != "" {
		out = append(out, cmd("usermod", "-p", u.passwd, u.name))
	}
	if u.lockPasswd {
		out = append(out, cmd("usermod", "-L", u.name))
	}
	if u.inactive {
		out = append(out, cmd("usermod", "--expiredate", "1", u.name))
	}
	if len(u.keys) > 0 {
		out = append(out, cmd(append([]string{"/bin/sh", "-c", authorizedKeysScript, "sh", u.name}, u.keys...)...))
	}
	return out
}

// parseUser reads one users entry: a name, or a mapping with cloud-init's keys. lock_passwd
// defaults to true, as in cloud-init.
func parseUser(n *yaml.Node, where string) (user, []Ignored, error) {
	u := user{lockPasswd: true, line: n.Line}
	if n.Kind == yaml.ScalarNode {
		u.name = n.Value
		return u, nil, validName(n, where, u.name)
	}
	if n.Kind != yaml.MappingNode {
		return user{}, nil, errorAt(n, "%s must be a user name or a mapping, found %s", where, kindName(n))
	}
	var ignored []Ignored
	for i := 0; i+1 < len(n.Content); i += 2 {
		key, value := n.Content[i], resolve(n.Content[i+1])
		var err error
		switch key.Value {
		case "name", "gecos", "homedir", "shell", "passwd", "primary_group":
			var s string
			if s, err = scalar(value, where+"."+key.Value); err == nil {
				*u.text(key.Value) = s
			}
		case "groups":
			u.groups, err = stringList(value, where+".groups", true)
		case "sudo":
			u.sudo, err = sudoRules(value, where+".sudo")
		case "ssh_authorized_keys":
			u.keys, err = stringList(value, where+".ssh_authorized_keys", false)
		case "lock_passwd":
			u.lockPasswd, err = boolValue(value, where+".lock_passwd", true)
		case "inactive":
			u.inactive, err = boolValue(value, where+".inactive", false)
		default:
			ignored = append(ignored, Ignored{Key: where + "." + key.Value, Line: key.Line})
		}
		if err != nil {
			return user{}, nil, err
		}
	}
	return u, ignored, validName(n, where, u.name)
}

// text is the field of a string key of a users entry.
func (u *user) text(key string) *string {
	switch key {
	case "name":
		return &u.name
	case "gecos":
		return &u.gecos
	case "homedir":
		return &u.homedir
	case "shell":
		return &u.shell
	case "passwd":
		return &u.passwd
	default: // primary_group
		return &u.primaryGroup
	}
}

func validName(n *yaml.Node, where, name string) error {
	if !validOwner.MatchString(name) || strings.Contains(name, ":") {
		return errorAt(n, "%s has no valid user name (found %q)", where, name)
	}
	return nil
}

func scalar(n *yaml.Node, where string) (string, error) {
	if n.Kind != yaml.ScalarNode {
		return "", errorAt(n, "%s must be a single value, found %s", where, kindName(n))
	}
	if isNull(n) {
		return "", nil
	}
	return n.Value, nil
}

// boolValue reads a boolean; null means def.
func boolValue(n *yaml.Node, where string, def bool) (bool, error) {
	s, err := scalar(n, where)
	if err != nil || s == "" {
		return def, err
	}
	b, err := parseBool(s)
	if err != nil {
		return false, errorAt(n, "%s: %v", where, err)
	}
	return b, nil
}

// stringList reads a list of strings; with commaSeparated a single "a, b" string is accepted too.
func stringList(n *yaml.Node, where string, commaSeparated bool) ([]string, error) {
	if n.Kind == yaml.ScalarNode && commaSeparated {
		var out []string
		for _, s := range strings.Split(n.Value, ",") {
			if s = strings.TrimSpace(s); s != "" {
				out = append(out, s)
			}
		}
		return out, nil
	}
	if n.Kind != yaml.SequenceNode {
		return nil, errorAt(n, "%s must be a list of strings, found %s", where, kindName(n))
	}
	out := make([]string, 0, len(n.Content))
	for i, item := range n.Content {
		s, err := scalar(resolve(item), fmt.Sprintf("%s[%d]", where, i))
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// sudoRules reads sudo: a rule, a list of rules, or false (none).
func sudoRules(n *yaml.Node, where string) ([]string, error) {
	if n.Kind == yaml.ScalarNode {
		if isNull(n) {
			return nil, nil
		}
		if b, err := parseBool(n.Value); err == nil && !b {
			return nil, nil // sudo: false
		}
		return []string{n.Value}, nil
	}
	return stringList(n, where, false)
}
