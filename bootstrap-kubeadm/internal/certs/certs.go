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

package certs

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/hex"
	"encoding/pem"
	"fmt"
	"math/big"
	"path"
	"time"

	"k8s.io/client-go/util/cert"
	"k8s.io/client-go/util/keyutil"

	bootstrapv1 "capstan.dev/bootstrap-kubeadm/api/bootstrap/v1beta2"
	"capstan.dev/bootstrap-kubeadm/internal/cloudinit"
	"capstan.dev/contracts/secret"
)

const (
	// Validity is how long a generated CA is valid: 3650 days, as upstream.
	Validity = 3650 * 24 * time.Hour

	// clockSkew backdates NotBefore so that a node whose clock is slightly behind the
	// management cluster's still accepts a CA generated a moment ago.
	clockSkew = time.Minute

	// DefaultCertificatesDir is kubeadm's default certificatesDir.
	DefaultCertificatesDir = "/etc/kubernetes/pki"
)

// commonNames are the subjects kubeadm itself gives the CAs it generates.
var commonNames = map[secret.Purpose]string{
	secret.ClusterCA:    "kubernetes",
	secret.EtcdCA:       "etcd-ca",
	secret.FrontProxyCA: "front-proxy-ca",
}

// nodeFiles are where kubeadm expects each key pair, relative to certificatesDir.
var nodeFiles = map[secret.Purpose][2]string{
	secret.ClusterCA:      {"ca.crt", "ca.key"},
	secret.EtcdCA:         {"etcd/ca.crt", "etcd/ca.key"},
	secret.FrontProxyCA:   {"front-proxy-ca.crt", "front-proxy-ca.key"},
	secret.ServiceAccount: {"sa.pub", "sa.key"},
}

// KeyPair is one cluster certificate (or, for the service account, public key) and its
// private key, both PEM.
type KeyPair struct {
	Purpose secret.Purpose
	// Cert is the PEM CA certificate; for secret.ServiceAccount the PEM public key.
	Cert []byte
	// Key is the PEM private key.
	Key []byte
}

// Generate returns a new key pair for purpose p with the default Options: RSA-2048, a CA valid
// for Validity.
func Generate(p secret.Purpose, now time.Time) (*KeyPair, error) {
	return GenerateWith(p, now, Options{})
}

// Options say how new key pairs are generated.
type Options struct {
	// Algorithm is the key type; empty means RSA-2048, kubeadm's default.
	Algorithm bootstrapv1.EncryptionAlgorithmType
	// CAValidity is how long a new CA is valid; zero means Validity.
	CAValidity time.Duration
}

// GenerateWith returns a new key pair for purpose p: a self-signed CA valid from now for
// opts.CAValidity, or for secret.ServiceAccount a bare key pair, with keys of opts.Algorithm.
func GenerateWith(p secret.Purpose, now time.Time, opts Options) (*KeyPair, error) {
	key, err := newKey(opts.Algorithm)
	if err != nil {
		return nil, fmt.Errorf("generating the %s key: %w", p, err)
	}
	keyPEM, err := keyutil.MarshalPrivateKeyToPEM(key)
	if err != nil {
		return nil, fmt.Errorf("encoding the %s key: %w", p, err)
	}
	if p == secret.ServiceAccount {
		pub, err := publicKeyPEM(key.Public())
		if err != nil {
			return nil, err
		}
		return &KeyPair{Purpose: p, Cert: pub, Key: keyPEM}, nil
	}
	cn, ok := commonNames[p]
	if !ok {
		return nil, fmt.Errorf("no certificate authority for purpose %q", p)
	}
	validity := opts.CAValidity
	if validity == 0 {
		validity = Validity
	}
	ca, err := newSelfSignedCA(cn, key, now, validity)
	if err != nil {
		return nil, fmt.Errorf("signing the %s certificate: %w", p, err)
	}
	certPEM, err := cert.EncodeCertificates(ca)
	if err != nil {
		return nil, err
	}
	return &KeyPair{Purpose: p, Cert: certPEM, Key: keyPEM}, nil
}

// newKey generates a private key of the given type, as kubeadm does for encryptionAlgorithm.
func newKey(algorithm bootstrapv1.EncryptionAlgorithmType) (crypto.Signer, error) {
	switch algorithm {
	case "", bootstrapv1.EncryptionAlgorithmRSA2048:
		return rsa.GenerateKey(rand.Reader, 2048)
	case bootstrapv1.EncryptionAlgorithmRSA3072:
		return rsa.GenerateKey(rand.Reader, 3072)
	case bootstrapv1.EncryptionAlgorithmRSA4096:
		return rsa.GenerateKey(rand.Reader, 4096)
	case bootstrapv1.EncryptionAlgorithmECDSAP256:
		return ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	case bootstrapv1.EncryptionAlgorithmECDSAP384:
		return ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	}
	return nil, fmt.Errorf("unknown encryption algorithm %q", algorithm)
}

func newSelfSignedCA(commonName string, key crypto.Signer, now time.Time, validity time.Duration) (*x509.Certificate, error) {
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		return nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber:          new(big.Int).Add(serial, big.NewInt(1)), // positive, as RFC 5280 wants
		Subject:               pkix.Name{CommonName: commonName},
		DNSNames:              []string{commonName},
		NotBefore:             now.Add(-clockSkew).UTC(),
		NotAfter:              now.Add(validity).UTC(),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment | x509.KeyUsageCertSign,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	if err != nil {
		return nil, err
	}
	return x509.ParseCertificate(der)
}

func publicKeyPEM(pub crypto.PublicKey) ([]byte, error) {
	der, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		return nil, fmt.Errorf("encoding the service-account public key: %w", err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: keyutil.PublicKeyBlockType, Bytes: der}), nil
}

// CACertHash returns the "sha256:<hex>" pin of a PEM CA certificate that kubeadm join's
// discovery.bootstrapToken.caCertHashes expects: the SHA-256 of its SubjectPublicKeyInfo.
func CACertHash(certPEM []byte) (string, error) {
	certs, err := cert.ParseCertsPEM(certPEM)
	if err != nil {
		return "", fmt.Errorf("parsing the CA certificate: %w", err)
	}
	sum := sha256.Sum256(certs[0].RawSubjectPublicKeyInfo)
	return "sha256:" + hex.EncodeToString(sum[:]), nil
}

// Set is the cluster certificates that were read or generated, by purpose.
type Set map[secret.Purpose]*KeyPair

// Files returns the key pairs as the files kubeadm reads on a control plane node configured by
// cc: under its certificatesDir (empty means DefaultCertificatesDir), in the order of
// secret.CertificatePurposes; with an external etcd, its CA certificate and the API server's
// client key pair go where clusterConfiguration.etcd.external names them.
func (s Set) Files(cc bootstrapv1.ClusterConfiguration) []cloudinit.Certificate {
	dir := cc.CertificatesDir
	if dir == "" {
		dir = DefaultCertificatesDir
	}
	ext := cc.Etcd.External
	var out []cloudinit.Certificate
	for _, p := range secret.CertificatePurposes {
		kp, ok := s[p]
		if !ok {
			continue
		}
		if p == secret.EtcdCA && ext.IsDefined() {
			// Only the certificate: the external cluster's CA key stays with its owner.
			out = append(out, cloudinit.Certificate{CertPath: ext.CAFile, Cert: kp.Cert})
			if client, ok := s[secret.APIServerEtcdClient]; ok {
				out = append(out, cloudinit.Certificate{CertPath: ext.CertFile, KeyPath: ext.KeyFile, Cert: client.Cert, Key: client.Key})
			}
			continue
		}
		names := nodeFiles[p]
		out = append(out, cloudinit.Certificate{
			CertPath: path.Join(dir, names[0]), KeyPath: path.Join(dir, names[1]),
			Cert: kp.Cert, Key: kp.Key,
		})
	}
	return out
}
