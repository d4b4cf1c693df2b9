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

package remote

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
)

var testCluster = client.ObjectKey{Namespace: "ns1", Name: "c1"}

// kubeconfig renders a kubeconfig whose current context uses the given user; edit may change
// anything before it is written.
func kubeconfig(t *testing.T, user *clientcmdapi.AuthInfo, edit func(*clientcmdapi.Config)) []byte {
	t.Helper()
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["c1"] = &clientcmdapi.Cluster{Server: "https://127.0.0.1:6443", CertificateAuthorityData: []byte("ca-pem")}
	cfg.AuthInfos["admin"] = user
	cfg.Contexts["admin@c1"] = &clientcmdapi.Context{Cluster: "c1", AuthInfo: "admin"}
	cfg.CurrentContext = "admin@c1"
	if edit != nil {
		edit(cfg)
	}
	data, err := clientcmd.Write(*cfg)
	require.NoError(t, err)
	return data
}

func TestRESTConfigFromKubeconfig_UsesTheInlineCredentialsOfTheCurrentContext(t *testing.T) {
	data := kubeconfig(t, &clientcmdapi.AuthInfo{Token: "s3cret"}, nil)
	cfg, err := RESTConfigFromKubeconfig(testCluster, data)
	require.NoError(t, err)
	require.Equal(t, "https://127.0.0.1:6443", cfg.Host)
	require.Equal(t, "s3cret", cfg.BearerToken)
	require.Equal(t, []byte("ca-pem"), cfg.CAData)
}

func TestRESTConfigFromKubeconfig_RejectsAnExecCredentialPlugin(t *testing.T) {
	data := kubeconfig(t, &clientcmdapi.AuthInfo{Exec: &clientcmdapi.ExecConfig{
		Command: "aws-iam-authenticator", APIVersion: "client.authentication.k8s.io/v1", InteractiveMode: clientcmdapi.NeverExecInteractiveMode,
	}}, nil)
	_, err := RESTConfigFromKubeconfig(testCluster, data)
	require.ErrorContains(t, err, "kubeconfig of Cluster ns1/c1 uses an exec credential plugin, which Capstan does not run: ")
	require.ErrorContains(t, err, `"aws-iam-authenticator"`)
}

func TestRESTConfigFromKubeconfig_RejectsAnAuthProviderPlugin(t *testing.T) {
	data := kubeconfig(t, &clientcmdapi.AuthInfo{AuthProvider: &clientcmdapi.AuthProviderConfig{Name: "oidc"}}, nil)
	_, err := RESTConfigFromKubeconfig(testCluster, data)
	require.ErrorContains(t, err, `kubeconfig of Cluster ns1/c1 uses the "oidc" auth-provider plugin, which Capstan does not run: `)
}

func TestRESTConfigFromKubeconfig_RejectsFileReferences(t *testing.T) {
	// The token file below is the one a manager pod has: reading it would hand the manager's
	// own credentials to the server the kubeconfig names.
	const saToken = "/var/run/secrets/kubernetes.io/serviceaccount/token"
	for _, tc := range []struct {
		name string
		user *clientcmdapi.AuthInfo
		edit func(*clientcmdapi.Config)
		want string
	}{
		{"tokenFile", &clientcmdapi.AuthInfo{TokenFile: saToken}, nil, `user "admin" has tokenFile "` + saToken + `"; use token`},
		{"client-certificate", &clientcmdapi.AuthInfo{ClientCertificate: "/etc/cert.pem", ClientKeyData: []byte("k")}, nil,
			`user "admin" has client-certificate "/etc/cert.pem"; use client-certificate-data`},
		{"client-key", &clientcmdapi.AuthInfo{ClientCertificateData: []byte("c"), ClientKey: "/etc/key.pem"}, nil,
			`user "admin" has client-key "/etc/key.pem"; use client-key-data`},
		{"certificate-authority", &clientcmdapi.AuthInfo{Token: "t"}, func(c *clientcmdapi.Config) {
			c.Clusters["c1"].CertificateAuthorityData = nil
			c.Clusters["c1"].CertificateAuthority = "/etc/ca.pem"
		}, `cluster "c1" has certificate-authority "/etc/ca.pem"; use certificate-authority-data`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := RESTConfigFromKubeconfig(testCluster, kubeconfig(t, tc.user, tc.edit))
			require.ErrorContains(t, err, "kubeconfig of Cluster ns1/c1 refers to a file, which Capstan does not read")
			require.ErrorContains(t, err, tc.want)
		})
	}
}

func TestRESTConfigFromKubeconfig_IgnoresPluginsOfUsersTheCurrentContextDoesNotUse(t *testing.T) {
	data := kubeconfig(t, &clientcmdapi.AuthInfo{Token: "t"}, func(c *clientcmdapi.Config) {
		c.AuthInfos["other"] = &clientcmdapi.AuthInfo{Exec: &clientcmdapi.ExecConfig{Command: "x"}}
	})
	_, err := RESTConfigFromKubeconfig(testCluster, data)
	require.NoError(t, err)
}

func TestRESTConfigFromKubeconfig_RejectsAKubeconfigWithoutCurrentContext(t *testing.T) {
	data := kubeconfig(t, &clientcmdapi.AuthInfo{Token: "t"}, func(c *clientcmdapi.Config) { c.CurrentContext = "" })
	_, err := RESTConfigFromKubeconfig(testCluster, data)
	require.ErrorContains(t, err, `kubeconfig of Cluster ns1/c1 has no usable current-context (current-context is "")`)

	_, err = RESTConfigFromKubeconfig(testCluster, []byte("{not yaml"))
	require.ErrorContains(t, err, "parsing kubeconfig of Cluster ns1/c1")
}

func TestReadKubeconfigSecret_ReadsTheValueKeyOfClusterKubeconfig(t *testing.T) {
	c := fake.NewClientBuilder().WithObjects(
		&corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{Namespace: "ns1", Name: "c1-kubeconfig"},
			Data:       map[string][]byte{"value": []byte("kubeconfig")},
		},
		&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "ns1", Name: "empty-kubeconfig"}},
	).Build()

	kc, err := readKubeconfigSecret(context.Background(), c, testCluster)
	require.NoError(t, err)
	require.Equal(t, []byte("kubeconfig"), kc.data)
	require.NotEmpty(t, kc.resourceVersion)

	_, err = readKubeconfigSecret(context.Background(), c, client.ObjectKey{Namespace: "ns1", Name: "missing"})
	require.True(t, errors.Is(err, errKubeconfigSecretNotFound), "got %v", err)

	_, err = readKubeconfigSecret(context.Background(), c, client.ObjectKey{Namespace: "ns1", Name: "empty"})
	require.ErrorContains(t, err, `kubeconfig Secret ns1/empty-kubeconfig has no data under key "value"`)
	require.False(t, errors.Is(err, errKubeconfigSecretNotFound))
}
