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
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"capstan.dev/bootstrap-kubeadm/internal/cloudinit"
)

// Paths on the node. The Docker provider amends KubeadmConfigPath as it amends the cloud-config
// kubeadm files.
const (
	// KubeadmConfigPath is the kubeadm configuration file kubeadm.sh passes to kubeadm.
	KubeadmConfigPath = "/etc/kubeadm.yml"
	// KubeadmScriptPath is the script kubeadm.service runs.
	KubeadmScriptPath = "/etc/kubeadm.sh"
	// KubeadmUnit is the unit that runs the script once, on the first boot.
	KubeadmUnit = "kubeadm.service"

	modeKubeadmScript = 0o700
	modeKubeadmConfig = 0o600
	modeSudoers       = 0o600
	modeSSHDConfig    = 0o600
	modeDefault       = 0o644
)

// AdditionalConfig is the KubeadmConfig's ignition.containerLinuxConfig.
type AdditionalConfig struct {
	// CLC is a Container Linux Config document (YAML) to merge; empty merges nothing.
	CLC string
	// Strict makes what the document holds that the config cannot carry an error.
	Strict bool
}

// Render returns the Ignition config for in with extra merged into it, and the warnings about
// what extra holds that the config does not carry (always none when extra.Strict). It fails on
// input that would not bootstrap a node: an unknown kind, no kubeadm file, certificates for a
// worker, boot commands (Ignition has none; refused at admission), a file without a path or whose
// content does not match its encoding, a user without a name, a diskLayout, or an additionalConfig
// that does not parse.
func Render(in cloudinit.Input, extra AdditionalConfig) (data []byte, warnings []string, err error) {
	verb, err := in.Kind.KubeadmSubcommand()
	if err != nil {
		return nil, nil, err
	}
	verbosity, err := cloudinit.VerbosityFlag(in.Verbosity)
	if err != nil {
		return nil, nil, err
	}
	switch {
	case len(in.KubeadmConfig) == 0:
		return nil, nil, errors.New("no kubeadm configuration to write")
	case in.Kind == cloudinit.JoinWorker && len(in.Certificates) > 0:
		return nil, nil, errors.New("certificates are for control plane nodes only: a worker must not receive the cluster's private keys")
	case len(in.BootCommands) > 0:
		return nil, nil, errors.New(`bootCommands: not supported when spec.format is set to: "ignition"`)
	}

	cfg := config{Ignition: ignitionSection{Version: Version}, Storage: &storage{}, Systemd: &systemd{}}
	cfg.Storage.Files, err = nodeFiles(in, "kubeadm "+verb+" --config "+KubeadmConfigPath+verbosity)
	if err != nil {
		return nil, nil, err
	}
	if cfg.Storage.Disks, cfg.Storage.Filesystems, err = disks(in.DiskSetup); err != nil {
		return nil, nil, err
	}
	cfg.Systemd.Units = append([]unit{kubeadmUnit()}, ntpUnits(in.NTP)...)
	mounts, err := mountUnits(in.Mounts, in.DiskSetup)
	if err != nil {
		return nil, nil, err
	}
	cfg.Systemd.Units = append(cfg.Systemd.Units, mounts...)
	users, err := passwdUsers(in.Users)
	if err != nil {
		return nil, nil, err
	}
	if len(users) > 0 {
		cfg.Passwd = &passwd{Users: users}
	}

	if extra.CLC != "" {
		add, warns, err := parseCLC([]byte(extra.CLC), extra.Strict)
		if err != nil {
			return nil, nil, fmt.Errorf("ignition.containerLinuxConfig.additionalConfig: %w", err)
		}
		appendConfig(&cfg, add)
		warnings = warns
	}
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false) // "&&" in kubeadm.sh stays readable; it is not HTML
	if err := enc.Encode(cfg); err != nil {
		return nil, nil, fmt.Errorf("marshalling the Ignition config: %w", err)
	}
	return bytes.TrimSuffix(out.Bytes(), []byte("\n")), warnings, nil
}

// appendConfig appends add to cfg as Ignition spec 2.3's Append does (what upstream merges
// additionalConfig with): lists are concatenated, base first; the version stays the base's.
func appendConfig(cfg *config, add *config) {
	if add.Passwd != nil {
		if cfg.Passwd == nil {
			cfg.Passwd = &passwd{}
		}
		cfg.Passwd.Users = append(cfg.Passwd.Users, add.Passwd.Users...)
	}
	if add.Storage != nil {
		cfg.Storage.Files = append(cfg.Storage.Files, add.Storage.Files...)
	}
	if add.Systemd != nil {
		cfg.Systemd.Units = append(cfg.Systemd.Units, add.Systemd.Units...)
	}
}

// nodeFiles are the files of storage.files, in upstream's order: sudoers and sshd settings of
// the users, the certificates, the user's and the controller's files, the kubeadm script and
// configuration, and the NTP configuration.
func nodeFiles(in cloudinit.Input, kubeadmCommand string) ([]file, error) {
	var out []file
	for i, u := range in.Users {
		if u.Name == "" {
			return nil, fmt.Errorf("user %d: no name", i)
		}
		if u.Sudo != "" {
			out = append(out, textFile("/etc/sudoers.d/"+u.Name, modeSudoers, u.Name+" "+u.Sudo+"\n"))
		}
	}
	if conf := sshdConfig(in.Users); conf != "" {
		out = append(out, textFile("/etc/ssh/sshd_config", modeSSHDConfig, conf))
	}
	certs, err := cloudinit.CertificateFiles(in.Certificates)
	if err != nil {
		return nil, err
	}
	for i, f := range slices.Concat(certs, in.Files) {
		nf, err := userFile(f)
		if err != nil {
			return nil, fmt.Errorf("file %d (%q): %w", i, f.Path, err)
		}
		out = append(out, nf)
	}
	out = append(out,
		textFile(KubeadmScriptPath, modeKubeadmScript, kubeadmScript(in.PreKubeadmCommands, kubeadmCommand, in.PostKubeadmCommands)),
		textFile(KubeadmConfigPath, modeKubeadmConfig, string(in.KubeadmConfig)))
	if in.NTP != nil && in.NTP.Enabled != nil && *in.NTP.Enabled && len(in.NTP.Servers) > 0 {
		out = append(out, textFile("/etc/ntp.conf", modeDefault, ntpConf(in.NTP.Servers)))
	}
	return out, nil
}

// kubeadmScript is /etc/kubeadm.sh: it stops at the first failing command, and writes the
// sentinel only once kubeadm succeeded.
func kubeadmScript(pre []string, kubeadm string, post []string) string {
	var b strings.Builder
	b.WriteString("#!/bin/bash\nset -e\n\n")
	for _, c := range pre {
		b.WriteString(c + "\n")
	}
	b.WriteString("\n" + kubeadm + "\n")
	b.WriteString("mkdir -p /run/cluster-api && echo success > " + cloudinit.SentinelPath + "\n")
	b.WriteString("mv " + KubeadmConfigPath + " /tmp/\n\n")
	for _, c := range post {
		b.WriteString(c + "\n")
	}
	return b.String()
}

// kubeadmUnit runs /etc/kubeadm.sh at boot while /etc/kubeadm.yml exists, that is until kubeadm
// succeeded once. Override it with a drop-in in additionalConfig.
func kubeadmUnit() unit {
	return unit{Name: KubeadmUnit, Enabled: ptrTo(true), Contents: `[Unit]
Description=kubeadm
# Runs until kubeadm succeeds once: /etc/kubeadm.sh then moves /etc/kubeadm.yml to /tmp.
ConditionPathExists=` + KubeadmConfigPath + `
After=network.target

[Service]
# Done when the script exits; the unit fails when the script does.
Type=oneshot
ExecStart=` + KubeadmScriptPath + `

[Install]
WantedBy=multi-user.target
`}
}

func ptrTo[T any](v T) *T { return &v }
