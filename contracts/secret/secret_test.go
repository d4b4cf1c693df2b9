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

package secret_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"capstan.dev/contracts/secret"
)

func TestName_IsClusterDashPurpose(t *testing.T) {
	tests := []struct {
		cluster string
		purpose secret.Purpose
		want    string
	}{
		{cluster: "prod", purpose: secret.ClusterCA, want: "prod-ca"},
		{cluster: "prod", purpose: secret.EtcdCA, want: "prod-etcd"},
		{cluster: "prod", purpose: secret.FrontProxyCA, want: "prod-proxy"},
		{cluster: "prod", purpose: secret.ServiceAccount, want: "prod-sa"},
		{cluster: "prod", purpose: secret.Kubeconfig, want: "prod-kubeconfig"},
		{cluster: "my-cluster.a", purpose: secret.Kubeconfig, want: "my-cluster.a-kubeconfig"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			require.Equal(t, tt.want, secret.Name(tt.cluster, tt.purpose))
		})
	}
}

func TestDataKeys_MatchTheProviderContract(t *testing.T) {
	tests := []struct {
		name string
		got  string
		want string
	}{
		{name: "certificate", got: secret.TLSCrtDataName, want: "tls.crt"},
		{name: "private key", got: secret.TLSKeyDataName, want: "tls.key"},
		{name: "kubeconfig", got: secret.KubeconfigDataName, want: "value"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.want, tt.got)
		})
	}
}

func TestCertificatePurposes_ExcludeKubeconfig(t *testing.T) {
	require.Equal(t, []secret.Purpose{secret.ClusterCA, secret.EtcdCA, secret.FrontProxyCA, secret.ServiceAccount},
		secret.CertificatePurposes)
	require.NotContains(t, secret.CertificatePurposes, secret.Kubeconfig)
}
