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

// Package secret names the Secrets that Cluster API components share through the
// provider contract: the cluster certificate authorities, the service-account key
// pair and the kubeconfig, all stored as <cluster>-<purpose> in the Cluster's
// namespace, plus the data keys inside them. It owns names only; creating,
// reading and rotating the Secrets belongs to the controllers that use them.
package secret

// Purpose is what a cluster Secret holds; it is the suffix of the Secret's name.
type Purpose string

const (
	// ClusterCA is the Kubernetes cluster certificate authority (<cluster>-ca).
	ClusterCA Purpose = "ca"

	// EtcdCA is the etcd certificate authority (<cluster>-etcd).
	EtcdCA Purpose = "etcd"

	// FrontProxyCA is the front-proxy (API aggregation) certificate authority (<cluster>-proxy).
	FrontProxyCA Purpose = "proxy"

	// ServiceAccount is the key pair that signs service-account tokens (<cluster>-sa).
	ServiceAccount Purpose = "sa"

	// Kubeconfig is the admin kubeconfig of the workload cluster (<cluster>-kubeconfig).
	Kubeconfig Purpose = "kubeconfig"

	// APIServerEtcdClient is the API server's client key pair for an external etcd cluster
	// (<cluster>-apiserver-etcd-client). The user provides it; with an external etcd, EtcdCA then
	// holds that cluster's CA certificate only.
	APIServerEtcdClient Purpose = "apiserver-etcd-client"
)

// Data keys inside cluster Secrets.
const (
	// TLSCrtDataName is the key of the PEM certificate in a certificate Secret (for ServiceAccount:
	// the public key).
	TLSCrtDataName = "tls.crt"

	// TLSKeyDataName is the key of the PEM private key in a certificate Secret.
	TLSKeyDataName = "tls.key"

	// KubeconfigDataName is the key of the kubeconfig in the Kubeconfig Secret. Bootstrap data Secrets
	// use the same key for their payload.
	KubeconfigDataName = "value"
)

// CertificatePurposes are the purposes whose Secrets hold a certificate (or key pair) under
// TLSCrtDataName and TLSKeyDataName, in the order a control plane provider generates them.
var CertificatePurposes = []Purpose{ClusterCA, EtcdCA, FrontProxyCA, ServiceAccount}

// Name returns the name of the Secret of the given purpose for the named cluster:
// "<cluster>-<purpose>", e.g. Name("prod", Kubeconfig) == "prod-kubeconfig".
func Name(cluster string, p Purpose) string {
	return cluster + "-" + string(p)
}
