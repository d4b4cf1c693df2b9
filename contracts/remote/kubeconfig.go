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
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"capstan.dev/contracts/secret"
)

// errKubeconfigSecretNotFound marks a missing <cluster>-kubeconfig Secret: nothing to
// connect to yet, which is not a connection failure.
var errKubeconfigSecretNotFound = errors.New("kubeconfig Secret not found")

// kubeconfigSecret is what the ClusterCache reads from a kubeconfig Secret.
type kubeconfigSecret struct {
	data            []byte
	resourceVersion string
}

// readKubeconfigSecret reads <cluster>-kubeconfig from the Cluster's namespace. A missing
// Secret is reported as errKubeconfigSecretNotFound (wrapping the API error).
func readKubeconfigSecret(ctx context.Context, r client.Reader, cluster client.ObjectKey) (kubeconfigSecret, error) {
	key := client.ObjectKey{Namespace: cluster.Namespace, Name: secret.Name(cluster.Name, secret.Kubeconfig)}
	s := &corev1.Secret{}
	if err := r.Get(ctx, key, s); err != nil {
		if apierrors.IsNotFound(err) {
			return kubeconfigSecret{}, fmt.Errorf("%w: Secret %s: %w", errKubeconfigSecretNotFound, key, err)
		}
		return kubeconfigSecret{}, fmt.Errorf("reading kubeconfig Secret %s: %w", key, err)
	}
	data := s.Data[secret.KubeconfigDataName]
	if len(data) == 0 {
		return kubeconfigSecret{}, fmt.Errorf("kubeconfig Secret %s has no data under key %q", key, secret.KubeconfigDataName)
	}
	return kubeconfigSecret{data: data, resourceVersion: s.ResourceVersion}, nil
}

// RESTConfigFromKubeconfig parses the kubeconfig of the given Cluster and returns a REST
// config for its current context.
//
// A kubeconfig Secret is user input, so the kubeconfig must carry its credentials inline.
// It is rejected when the user of the current context has an exec credential plugin or an
// auth-provider plugin (Capstan does not run programs a Secret names), or when the user or
// cluster refers to a file: client-go would read that file from the manager's own
// filesystem, so a tokenFile naming the manager's service-account token would send that
// token to whatever server the kubeconfig names.
func RESTConfigFromKubeconfig(cluster client.ObjectKey, data []byte) (*rest.Config, error) {
	cfg, err := clientcmd.Load(data)
	if err != nil {
		return nil, fmt.Errorf("parsing kubeconfig of Cluster %s: %w", cluster, err)
	}
	current, ok := cfg.Contexts[cfg.CurrentContext]
	if cfg.CurrentContext == "" || !ok {
		return nil, fmt.Errorf("kubeconfig of Cluster %s has no usable current-context (current-context is %q)",
			cluster, cfg.CurrentContext)
	}
	if user, ok := cfg.AuthInfos[current.AuthInfo]; ok {
		if err := checkUser(cluster, current.AuthInfo, user); err != nil {
			return nil, err
		}
	}
	if c, ok := cfg.Clusters[current.Cluster]; ok && c.CertificateAuthority != "" {
		return nil, fileReferenceError(cluster, "cluster", current.Cluster, "certificate-authority",
			c.CertificateAuthority, "certificate-authority-data")
	}
	restConfig, err := clientcmd.NewNonInteractiveClientConfig(*cfg, cfg.CurrentContext, &clientcmd.ConfigOverrides{}, nil).ClientConfig()
	if err != nil {
		return nil, fmt.Errorf("building REST config from kubeconfig of Cluster %s: %w", cluster, err)
	}
	return restConfig, nil
}

func checkUser(cluster client.ObjectKey, name string, user *clientcmdapi.AuthInfo) error {
	switch {
	case user.Exec != nil:
		return fmt.Errorf("kubeconfig of Cluster %s uses an exec credential plugin, which Capstan does not run: "+
			"user %q would run %q on the manager's host; put a token or a client certificate in the kubeconfig instead",
			cluster, name, user.Exec.Command)
	case user.AuthProvider != nil:
		return fmt.Errorf("kubeconfig of Cluster %s uses the %q auth-provider plugin, which Capstan does not run: "+
			"put a token or a client certificate for user %q in the kubeconfig instead",
			cluster, user.AuthProvider.Name, name)
	case user.TokenFile != "":
		return fileReferenceError(cluster, "user", name, "tokenFile", user.TokenFile, "token")
	case user.ClientCertificate != "":
		return fileReferenceError(cluster, "user", name, "client-certificate", user.ClientCertificate, "client-certificate-data")
	case user.ClientKey != "":
		return fileReferenceError(cluster, "user", name, "client-key", user.ClientKey, "client-key-data")
	}
	return nil
}

func fileReferenceError(cluster client.ObjectKey, what, name, field, path, inline string) error {
	return fmt.Errorf("kubeconfig of Cluster %s refers to a file, which Capstan does not read: %s %q has %s %q; "+
		"use %s with the content inline instead", cluster, what, name, field, path, inline)
}
