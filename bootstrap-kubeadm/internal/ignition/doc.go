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

// Package ignition renders the bootstrap data of a kubeadm node as an Ignition config (spec
// 2.3.0, JSON), the format: ignition of the KubeadmConfig API, as upstream's kubeadm bootstrap
// provider does: upstream fills a Container Linux Config (CLC) template and transpiles it to
// Ignition 2.3; this package builds the same Ignition config directly. It takes the same input
// as package cloudinit (cloudinit.Input, already resolved by the controller: files read from
// their Secrets, templates rendered, certificates loaded), so that both formats write the same
// files.
//
// What the config holds, in this order, as upstream's:
//   - storage.files: /etc/sudoers.d/NAME for each user with sudo; /etc/ssh/sshd_config allowing
//     password logins for the users whose lockPassword is false; the cluster certificates
//     (control plane nodes, sorted by path), the user's files and the controller's extra files
//     (inline "data:" URLs: percent-encoded text, or base64 for binary and gzip content, which
//     gets compression "gzip"); /etc/kubeadm.sh, which runs the pre-kubeadm commands, "kubeadm
//     init|join --config /etc/kubeadm.yml [--v N]", writes the sentinel
//     /run/cluster-api/bootstrap-success.complete the provider contract requires, moves
//     /etc/kubeadm.yml to /tmp (so it runs once) and runs the post-kubeadm commands;
//     /etc/kubeadm.yml, the kubeadm configuration; /etc/ntp.conf when NTP is enabled with servers;
//   - storage.disks and storage.filesystems from diskSetup (a device with layout true gets one
//     partition spanning it; a diskLayout has no Ignition 2.3 equivalent, percentages not being
//     sizes, and is an error here where upstream silently drops it);
//   - systemd.units: kubeadm.service (oneshot, enabled, ExecStart=/etc/kubeadm.sh, only while
//     /etc/kubeadm.yml exists), ntpd.service enabled when NTP is enabled (upstream configures
//     ntpd, not chronyd), and one enabled .mount unit per mount;
//   - passwd.users from users (groups split at commas; inactive is refused at admission).
//
// additionalConfig (ignition.containerLinuxConfig) is a CLC document merged as upstream merges
// it, with Ignition 2.3's Append: its lists come after the generated ones (a file written again
// replaces the generated one on the node; a kubeadm.service entry with drop-ins overrides the
// generated unit). No CLC transpiler is imported: the document is read here, and the sections
// the result carries are storage.files (inline or remote contents, mode, user, group, append,
// overwrite), systemd.units (contents, enabled/enable, mask, drop-ins) and passwd.users. Any
// other section (networkd, storage.disks, etcd, ...), an unknown field, or a file without a
// mode (which the transpiler reports too) is a warning returned with the config; with strict:
// true it is an error naming it, as the transpiler's strict mode fails on any warning.
//
// It is pure, like package cloudinit: bytes in, bytes out, deterministic (Go's JSON encoding of
// fixed structs; lists keep the input order). It must not decide anything about the cluster.
package ignition
