// Package kubeconfig writes the admin kubeconfig of a workload cluster — the
// <cluster>-kubeconfig Secret of the contract — from the cluster CA. The core (for
// Clusters without a control-plane provider) and the kubeadm control plane both
// need it, so it lives here once. It signs client certificates only; it never
// generates or stores a CA.
package kubeconfig

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"k8s.io/client-go/util/cert"
	"k8s.io/client-go/util/keyutil"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/secret"
)

// ClientCertificateValidity is how long the admin client certificate lasts; owners
// rotate it at half-life (RenewalThreshold).
const ClientCertificateValidity = 365 * 24 * time.Hour

// RenewalThreshold is how close to expiry a kubeconfig is re-issued.
const RenewalThreshold = ClientCertificateValidity / 2

// Generate returns a kubeconfig for cluster that reaches server (https://host:port)
// as kubernetes-admin (group system:masters), with a client certificate signed by
// the cluster CA.
func Generate(clusterName, server string, caCertPEM, caKeyPEM []byte, now time.Time) ([]byte, error) {
	certs, err := cert.ParseCertsPEM(caCertPEM)
	if err != nil || len(certs) == 0 {
		return nil, fmt.Errorf("parsing the CA certificate of Cluster %s: %v", clusterName, err)
	}
	key, err := keyutil.ParsePrivateKeyPEM(caKeyPEM)
	if err != nil {
		return nil, fmt.Errorf("parsing the CA key of Cluster %s: %w", clusterName, err)
	}
	signer, ok := key.(crypto.Signer)
	if !ok {
		return nil, fmt.Errorf("the CA key of Cluster %s cannot sign", clusterName)
	}
	clientKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	if err != nil {
		return nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: "kubernetes-admin", Organization: []string{"system:masters"}},
		NotBefore:    now.Add(-time.Minute),
		NotAfter:     now.Add(ClientCertificateValidity),
		KeyUsage:     x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, certs[0], clientKey.Public(), signer)
	if err != nil {
		return nil, fmt.Errorf("signing the admin certificate of Cluster %s: %w", clusterName, err)
	}
	clientKeyPEM, err := keyutil.MarshalPrivateKeyToPEM(clientKey)
	if err != nil {
		return nil, err
	}
	user := clusterName + "-admin"
	context := user + "@" + clusterName
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters[clusterName] = &clientcmdapi.Cluster{Server: server, CertificateAuthorityData: caCertPEM}
	cfg.AuthInfos[user] = &clientcmdapi.AuthInfo{
		ClientCertificateData: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		ClientKeyData:         clientKeyPEM,
	}
	cfg.Contexts[context] = &clientcmdapi.Context{Cluster: clusterName, AuthInfo: user}
	cfg.CurrentContext = context
	return clientcmd.Write(*cfg)
}

// ClientCertificateExpiry returns when the client certificate of the current
// context expires, so owners know when to rotate.
func ClientCertificateExpiry(kubeconfig []byte) (time.Time, error) {
	cfg, err := clientcmd.Load(kubeconfig)
	if err != nil {
		return time.Time{}, fmt.Errorf("parsing kubeconfig: %w", err)
	}
	ctx, ok := cfg.Contexts[cfg.CurrentContext]
	if !ok {
		return time.Time{}, fmt.Errorf("kubeconfig has no current context")
	}
	auth, ok := cfg.AuthInfos[ctx.AuthInfo]
	if !ok || len(auth.ClientCertificateData) == 0 {
		return time.Time{}, fmt.Errorf("kubeconfig user %q has no client certificate", ctx.AuthInfo)
	}
	certs, err := cert.ParseCertsPEM(auth.ClientCertificateData)
	if err != nil || len(certs) == 0 {
		return time.Time{}, fmt.Errorf("parsing the client certificate: %v", err)
	}
	return certs[0].NotAfter, nil
}

// NewSecret wraps a kubeconfig into the contract's <cluster>-kubeconfig Secret.
func NewSecret(cluster *clusterv1.Cluster, data []byte, owner metav1.OwnerReference) *corev1.Secret {
	return &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{
			Name:            secret.Name(cluster.Name, secret.Kubeconfig),
			Namespace:       cluster.Namespace,
			Labels:          map[string]string{clusterv1.ClusterNameLabel: cluster.Name},
			OwnerReferences: []metav1.OwnerReference{owner},
		},
		Type: clusterv1.ClusterSecretType,
		Data: map[string][]byte{secret.KubeconfigDataName: data},
	}
}

// Server is the kubeconfig server URL for an API endpoint.
func Server(endpoint clusterv1.APIEndpoint) string {
	return fmt.Sprintf("https://%s:%d", endpoint.Host, endpoint.Port)
}
