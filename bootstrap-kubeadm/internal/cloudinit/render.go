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
	"cmp"
	"errors"
	"fmt"
	"slices"

	"sigs.k8s.io/yaml"
)

// Paths and text the bootstrap data uses on the node. Infrastructure providers that execute the
// data themselves (the Docker provider) rely on the kubeadm file paths and the sentinel.
const (
	// Header is the first line of the document; cloud-init needs it to treat the data as cloud-config.
	Header = "#cloud-config\n"

	// KubeadmInitConfigPath is the kubeadm file of an Init node.
	KubeadmInitConfigPath = "/run/kubeadm/kubeadm.yaml"
	// KubeadmJoinConfigPath is the kubeadm file of a joining node.
	KubeadmJoinConfigPath = "/run/kubeadm/kubeadm-join-config.yaml"
	// PlaceholderPath is a file written only so that /run/cluster-api exists for the sentinel.
	PlaceholderPath = "/run/cluster-api/placeholder"
	// SentinelPath is created when kubeadm succeeded, as the bootstrap provider contract requires.
	SentinelPath = "/run/cluster-api/bootstrap-success.complete"

	rootOwner        = "root:root"
	kubeadmFileMode  = "0640"
	certificateMode  = "0640"
	privateKeyMode   = "0600"
	placeholderNotes = "Written by the bootstrap data so that /run/cluster-api exists before kubeadm runs; " +
		"the success sentinel goes into the same directory.\n"
)

// document is the cloud-config document. sigs.k8s.io/yaml sorts its keys, which makes the output
// deterministic; cloud-init runs its modules in its own order whatever the key order.
type document struct {
	BootCmd    []string             `json:"bootcmd,omitempty"`
	DiskSetup  map[string]diskSetup `json:"disk_setup,omitempty"`
	FSSetup    []fsSetup            `json:"fs_setup,omitempty"`
	Mounts     [][]string           `json:"mounts,omitempty"`
	WriteFiles []writeFile          `json:"write_files,omitempty"`
	RunCmd     []string             `json:"runcmd,omitempty"`
	Users      []user               `json:"users,omitempty"`
	NTP        *ntp                 `json:"ntp,omitempty"`
}

type writeFile struct {
	Path        string   `json:"path"`
	Owner       string   `json:"owner,omitempty"`
	Permissions string   `json:"permissions,omitempty"`
	Encoding    Encoding `json:"encoding,omitempty"`
	Append      bool     `json:"append,omitempty"`
	Content     string   `json:"content"`
}

type user struct {
	Name              string   `json:"name"`
	Gecos             string   `json:"gecos,omitempty"`
	Groups            string   `json:"groups,omitempty"`
	HomeDir           string   `json:"homedir,omitempty"`
	Inactive          *bool    `json:"inactive,omitempty"`
	Shell             string   `json:"shell,omitempty"`
	Passwd            string   `json:"passwd,omitempty"`
	PrimaryGroup      string   `json:"primary_group,omitempty"`
	Sudo              string   `json:"sudo,omitempty"`
	LockPassword      *bool    `json:"lock_passwd,omitempty"`
	SSHAuthorizedKeys []string `json:"ssh_authorized_keys,omitempty"`
}

type ntp struct {
	Enabled *bool    `json:"enabled,omitempty"`
	Servers []string `json:"servers,omitempty"`
}

// Render returns the cloud-config document for in. It fails on input that would not bootstrap a
// node: an unknown kind, no kubeadm file, certificates for a worker, a file without a path or
// whose content does not match its encoding, a user without a name, a device partitioned twice,
// a mount without a mount point, a negative verbosity, or a path, command, user, disk or mount
// field YAML cannot carry unchanged (invalid UTF-8, control characters).
func Render(in Input) ([]byte, error) {
	command, kubeadmPath, err := kubeadmCommand(in.Kind, in.Verbosity)
	if err != nil {
		return nil, err
	}
	if len(in.KubeadmConfig) == 0 {
		return nil, errors.New("no kubeadm configuration to write")
	}
	if in.Kind == JoinWorker && len(in.Certificates) > 0 {
		return nil, errors.New("certificates are for control plane nodes only: a worker must not receive the cluster's private keys")
	}

	doc := document{}
	certs, err := certificateFiles(in.Certificates)
	if err != nil {
		return nil, err
	}
	doc.WriteFiles = append(doc.WriteFiles, certs...)
	for i, f := range in.Files {
		wf, err := userFile(f)
		if err != nil {
			return nil, fmt.Errorf("file %d (%q): %w", i, f.Path, err)
		}
		doc.WriteFiles = append(doc.WriteFiles, wf)
	}
	kubeadmFile, err := fileFor(kubeadmPath, rootOwner, kubeadmFileMode, in.KubeadmConfig)
	if err != nil {
		return nil, fmt.Errorf("kubeadm configuration: %w", err)
	}
	doc.WriteFiles = append(doc.WriteFiles, kubeadmFile,
		writeFile{Path: PlaceholderPath, Owner: rootOwner, Permissions: kubeadmFileMode, Content: placeholderNotes})

	if err := checkTexts("preKubeadmCommands", in.PreKubeadmCommands); err != nil {
		return nil, err
	}
	if err := checkTexts("postKubeadmCommands", in.PostKubeadmCommands); err != nil {
		return nil, err
	}
	doc.RunCmd = slices.Concat(in.PreKubeadmCommands, []string{command}, in.PostKubeadmCommands)
	if err := addDisksAndBoot(&doc, in); err != nil {
		return nil, err
	}

	for i, u := range in.Users {
		out, err := userFor(u)
		if err != nil {
			return nil, fmt.Errorf("user %d: %w", i, err)
		}
		doc.Users = append(doc.Users, out)
	}
	if in.NTP != nil {
		if err := checkTexts("ntp.servers", in.NTP.Servers); err != nil {
			return nil, err
		}
		doc.NTP = &ntp{Enabled: in.NTP.Enabled, Servers: slices.Clone(in.NTP.Servers)}
	}

	body, err := yaml.Marshal(doc)
	if err != nil {
		return nil, fmt.Errorf("marshalling cloud-config: %w", err)
	}
	return append([]byte(Header), body...), nil
}

// kubeadmCommand returns the runcmd entry that runs kubeadm and creates the sentinel, and the
// kubeadm file it reads.
func kubeadmCommand(kind Kind, verbosity *int32) (string, string, error) {
	verb, err := kind.KubeadmSubcommand()
	if err != nil {
		return "", "", err
	}
	path := KubeadmJoinConfigPath
	if kind == Init {
		path = KubeadmInitConfigPath
	}
	v, err := VerbosityFlag(verbosity)
	if err != nil {
		return "", "", err
	}
	return fmt.Sprintf("kubeadm %s --config %s%s && echo success > %s", verb, path, v, SentinelPath), path, nil
}

// KubeadmSubcommand is the kubeadm subcommand the kind runs: init or join.
func (k Kind) KubeadmSubcommand() (string, error) {
	switch k {
	case Init:
		return "init", nil
	case JoinControlPlane, JoinWorker:
		return "join", nil
	}
	return "", fmt.Errorf("unknown kind %q: want %q, %q or %q", k, Init, JoinControlPlane, JoinWorker)
}

// VerbosityFlag is kubeadm's " --v N" for verbosity, with its leading space; empty when unset.
func VerbosityFlag(verbosity *int32) (string, error) {
	if verbosity == nil {
		return "", nil
	}
	if *verbosity < 0 {
		return "", fmt.Errorf("verbosity %d is negative", *verbosity)
	}
	return fmt.Sprintf(" --v %d", *verbosity), nil
}

// certificateFiles returns the write_files entries of the key pairs, sorted by path.
func certificateFiles(certs []Certificate) ([]writeFile, error) {
	files, err := CertificateFiles(certs)
	if err != nil {
		return nil, err
	}
	out := make([]writeFile, 0, len(files))
	for _, f := range files {
		wf, err := userFile(f)
		if err != nil {
			return nil, fmt.Errorf("certificate file %q: %w", f.Path, err)
		}
		out = append(out, wf)
	}
	return out, nil
}

// CertificateFiles returns the files of the key pairs, sorted by path (their order means
// nothing): each certificate root:root 0640, each key root:root 0600. Both bootstrap data
// formats write them so.
func CertificateFiles(certs []Certificate) ([]File, error) {
	var out []File
	for i, c := range certs {
		if len(c.Cert) == 0 {
			return nil, fmt.Errorf("certificate %d (%q) has no certificate data", i, c.CertPath)
		}
		if c.CertPath == "" || (len(c.Key) > 0 && c.KeyPath == "") {
			return nil, fmt.Errorf("certificate %d: no path", i)
		}
		out = append(out, File{Path: c.CertPath, Owner: rootOwner, Permissions: certificateMode, Content: c.Cert})
		if len(c.Key) > 0 {
			out = append(out, File{Path: c.KeyPath, Owner: rootOwner, Permissions: privateKeyMode, Content: c.Key})
		}
	}
	slices.SortStableFunc(out, func(a, b File) int { return cmp.Compare(a.Path, b.Path) })
	return out, nil
}

// fileFor returns a write_files entry for plain content.
func fileFor(path, owner, mode string, content []byte) (writeFile, error) {
	return userFile(File{Path: path, Owner: owner, Permissions: mode, Content: content})
}

func userFile(f File) (writeFile, error) {
	if f.Path == "" {
		return writeFile{}, errors.New("no path")
	}
	if err := checkTexts("path, owner and permissions", []string{f.Path, f.Owner, f.Permissions}); err != nil {
		return writeFile{}, err
	}
	content, enc, err := carry(f.Content, f.Encoding)
	if err != nil {
		return writeFile{}, err
	}
	return writeFile{Path: f.Path, Owner: f.Owner, Permissions: f.Permissions, Encoding: enc, Append: f.Append, Content: content}, nil
}

func userFor(u User) (user, error) {
	if u.Name == "" {
		return user{}, errors.New("no name")
	}
	texts := append([]string{u.Name, u.Gecos, u.Groups, u.HomeDir, u.Shell, u.Passwd, u.PrimaryGroup, u.Sudo}, u.SSHAuthorizedKeys...)
	if err := checkTexts("fields", texts); err != nil {
		return user{}, fmt.Errorf("%q: %w", u.Name, err)
	}
	return user{
		Name: u.Name, Gecos: u.Gecos, Groups: u.Groups, HomeDir: u.HomeDir, Inactive: u.Inactive, Shell: u.Shell,
		Passwd: u.Passwd, PrimaryGroup: u.PrimaryGroup, Sudo: u.Sudo,
		LockPassword: u.LockPassword, SSHAuthorizedKeys: slices.Clone(u.SSHAuthorizedKeys),
	}, nil
}

// checkTexts rejects strings YAML cannot carry unchanged (see yamlSafe): the encoder would fail
// or, worse, silently replace characters. Unlike file content they have no encoding to fall back on.
func checkTexts(what string, texts []string) error {
	for _, s := range texts {
		if !yamlSafe([]byte(s)) {
			return fmt.Errorf("%s: %q is not valid UTF-8 text or holds control characters", what, s)
		}
	}
	return nil
}
