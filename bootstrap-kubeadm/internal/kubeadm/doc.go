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

// Package kubeadm turns a KubeadmConfigSpec, plus the values that come from the Cluster and the
// Machine (Cluster), into the kubeadm configuration file a node runs "kubeadm init" or
// "kubeadm join" with: kubeadm.k8s.io/v1beta4 ClusterConfiguration + InitConfiguration for the
// first control plane node, JoinConfiguration for every other node.
//
// It owns its own Go structs for the v1beta4 documents, declaring only the fields Capstan sets,
// with kubeadm's JSON names and shapes (extraArgs and kubeletExtraArgs are lists of
// {name, value}; durations are strings such as "4m0s"). Importing kubeadm's own types would pull
// k8s.io/kubernetes into the module; instead the tests run the real kubeadm binary
// ("kubeadm config validate", which decodes strictly) on the rendered documents.
//
// The package is pure: no I/O, no clients, no clock. It must not touch the cloud-init document
// (package cloudinit wraps its output) nor decide whether a Machine inits or joins (the
// controller does).
//
// KubeletConfiguration: the rendered file deliberately carries no kubelet.config.k8s.io
// document. The kubelet settings the environment notes require on these machines
// (cgroupDriver cgroupfs, failCgroupV1 false, eviction thresholds at 0%, plus ignoring the
// SystemVerification preflight check that fails on cgroup v1) are properties of a node running
// inside a Docker container on a cgroup v1 host, not of the cluster a user describes: the same
// KubeadmConfig must stay valid on a real machine. They reach the node the way upstream CAPD does
// it: the Docker infrastructure provider, which executes the bootstrap data itself, re-parses
// /run/kubeadm/kubeadm.yaml and /run/kubeadm/kubeadm-join-config.yaml and adds them to
// nodeRegistration.kubeletExtraArgs (cgroup-driver, fail-cgroupv1, eviction-hard) and
// nodeRegistration.ignorePreflightErrors. Flags work for joining nodes too, whereas a
// KubeletConfiguration document is only read by "kubeadm init" (kubeadm join ignores it and
// downloads the cluster-wide kubelet-config ConfigMap instead). Users who need other kubelet
// settings can still write kubeletExtraArgs, or kubeletconfiguration patches through
// patches.directory and files.
package kubeadm
