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

// Package cloudinit renders the bootstrap data of a kubeadm node: a cloud-init "#cloud-config"
// document that writes the cluster certificates (control plane nodes only), the user's files,
// the kubeadm configuration file and a placeholder under /run/cluster-api, then runs the user's
// pre-kubeadm commands, "kubeadm init|join --config <file> && echo success >
// /run/cluster-api/bootstrap-success.complete" (the sentinel the provider contract requires), and
// the post-kubeadm commands; plus bootcmd, disk_setup, fs_setup, mounts, users and ntp.
//
// It is pure: bytes in, bytes out. Its input is already resolved (Secrets read, certificates
// loaded, the kubeadm file rendered by package kubeadm), so it imports no API types, reads no
// Secrets and talks to no cluster. It must not decide anything about the cluster (init or join,
// which certificates, which token): the controller does.
//
// Guarantees, checked by golden files, a parse-back test and a fuzz test:
//   - the output is valid YAML after the "#cloud-config" line and parses back with
//     sigs.k8s.io/yaml into exactly the files, commands, disks, mounts, users and ntp settings of
//     the input;
//   - every write_files entry decodes to the bytes its input declared. Content YAML cannot carry
//     verbatim (not valid UTF-8, such as raw gzip) is base64-wrapped: plain becomes base64 and
//     gzip becomes gzip+base64, both cloud-init encodings. Content declared base64 or
//     gzip+base64 must decode, and gzip content must start with a gzip header, so that a
//     mislabelled file fails here rather than on the node;
//   - the output is deterministic: certificates are sorted by path (their order means nothing);
//     files, commands, users and NTP servers keep the input order, which does mean something
//     (appends, command sequence, server preference); YAML keys are sorted.
//
// Unlike upstream CABPK the document has no "## template: jinja" header: nothing here needs
// instance metadata, and with the header cloud-init would expand "{{" in users' file contents.
package cloudinit
