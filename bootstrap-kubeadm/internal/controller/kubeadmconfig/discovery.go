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

package kubeadmconfig

import (
	"fmt"
	"maps"
	"slices"

	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"k8s.io/utils/ptr"

	bootstrapv1 "capstan.dev/bootstrap-kubeadm/api/bootstrap/v1beta2"
	"capstan.dev/bootstrap-kubeadm/internal/cloudinit"
	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
)

// discoveryKubeconfigUser and discoveryKubeconfigContext name the entries of the generated
// discovery kubeconfig; kubeadm reads its current context.
const (
	discoveryKubeconfigUser    = "kubeadm-discovery"
	discoveryKubeconfigContext = "default"
	defaultExecAPIVersion      = "client.authentication.k8s.io/v1"
)

// discoveryKubeconfig returns the kubeconfig file to write at file.kubeConfigPath when the
// KubeadmConfig asks the controller to generate it (file.kubeConfig set), as upstream does: the
// server defaults to https://<the Cluster's controlPlaneEndpoint> and the CA to the cluster CA
// (unless TLS verification is skipped); the credentials are the user's auth provider or exec
// plugin. Without kubeConfig the file is the user's (spec.files) and nothing is returned. wait
// says what is missing.
func discoveryKubeconfig(file bootstrapv1.FileDiscovery, c *clusterv1.Cluster, clusterCA []byte) (files []cloudinit.File, wait string, _ error) {
	kc := file.KubeConfig
	if kc.User.AuthProvider.Name == "" && kc.User.Exec.Command == "" {
		return nil, "", nil
	}
	server := kc.Cluster.Server
	if server == "" {
		if !c.Spec.ControlPlaneEndpoint.IsValid() {
			return nil, fmt.Sprintf("Waiting for Cluster %s to have spec.controlPlaneEndpoint, the server of the discovery kubeconfig (or set discovery.file.kubeConfig.cluster.server)", c.Name), nil
		}
		server = "https://" + c.Spec.ControlPlaneEndpoint.String()
	}
	insecure := ptr.Deref(kc.Cluster.InsecureSkipTLSVerify, false)
	ca := kc.Cluster.CertificateAuthorityData
	if len(ca) == 0 && !insecure {
		ca = clusterCA
	}
	config := clientcmdapi.NewConfig()
	config.Clusters[c.Name] = &clientcmdapi.Cluster{
		Server: server, TLSServerName: kc.Cluster.TLSServerName, InsecureSkipTLSVerify: insecure,
		CertificateAuthorityData: slices.Clone(ca), ProxyURL: kc.Cluster.ProxyURL,
	}
	config.AuthInfos[discoveryKubeconfigUser] = kubeconfigUser(kc.User)
	config.Contexts[discoveryKubeconfigContext] = &clientcmdapi.Context{Cluster: c.Name, AuthInfo: discoveryKubeconfigUser}
	config.CurrentContext = discoveryKubeconfigContext
	data, err := clientcmd.Write(*config)
	if err != nil {
		return nil, "", fmt.Errorf("encoding the discovery kubeconfig: %w", err)
	}
	return []cloudinit.File{{Path: file.KubeConfigPath, Owner: "root:root", Permissions: "0640", Content: data}}, "", nil
}

func kubeconfigUser(u bootstrapv1.KubeConfigUser) *clientcmdapi.AuthInfo {
	if ap := u.AuthProvider; ap.Name != "" {
		return &clientcmdapi.AuthInfo{AuthProvider: &clientcmdapi.AuthProviderConfig{Name: ap.Name, Config: maps.Clone(ap.Config)}}
	}
	ex := u.Exec
	exec := &clientcmdapi.ExecConfig{
		Command: ex.Command, Args: slices.Clone(ex.Args), APIVersion: ex.APIVersion,
		ProvideClusterInfo: ptr.Deref(ex.ProvideClusterInfo, false),
		// kubeadm runs unattended: a plugin must not wait for someone to type.
		InteractiveMode: clientcmdapi.NeverExecInteractiveMode,
	}
	if exec.APIVersion == "" {
		exec.APIVersion = defaultExecAPIVersion
	}
	for _, e := range ex.Env {
		exec.Env = append(exec.Env, clientcmdapi.ExecEnvVar{Name: e.Name, Value: e.Value})
	}
	return &clientcmdapi.AuthInfo{Exec: exec}
}
