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

package etcd

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"fmt"
	"math/big"
	"time"

	"k8s.io/client-go/util/cert"
	"k8s.io/client-go/util/keyutil"
)

const (
	// ClientCertValidity is how long a generated client certificate is valid: it is made for one
	// connection, so an hour is plenty and a leaked one is soon useless.
	ClientCertValidity = time.Hour

	// ClientCommonName names the certificate in etcd's logs.
	ClientCommonName = "capstan-kubeadm-control-plane"

	// clockSkew backdates NotBefore so that an etcd whose clock is slightly behind accepts it.
	clockSkew = time.Minute
)

// ClientTLSConfig returns the TLS configuration for a client of the etcd whose CA is caCertPEM
// (with its private key caKeyPEM, PEM, as stored in <cluster>-etcd): a new ECDSA P-256 client
// certificate signed by that CA, valid from now for ClientCertValidity, and the CA as the only
// root. serverName is the name checked in the server's certificate (kubeadm's etcd serving
// certificate holds localhost and the node name). ECDSA keeps the per-connection key cheap
// (upstream issue #8602: RSA key generation on every reconcile dominated KCP's CPU).
func ClientTLSConfig(caCertPEM, caKeyPEM []byte, serverName string, now time.Time) (*tls.Config, error) {
	cas, err := cert.ParseCertsPEM(caCertPEM)
	if err != nil {
		return nil, fmt.Errorf("parsing the etcd CA certificate: %w", err)
	}
	ca := cas[0]
	if !ca.IsCA {
		return nil, errors.New("the etcd CA certificate is not a CA certificate")
	}
	parsed, err := keyutil.ParsePrivateKeyPEM(caKeyPEM)
	if err != nil {
		return nil, fmt.Errorf("parsing the etcd CA key: %w", err)
	}
	caKey, ok := parsed.(crypto.Signer)
	if !ok {
		return nil, fmt.Errorf("the etcd CA key (%T) cannot sign", parsed)
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("generating the etcd client key: %w", err)
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		return nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber: new(big.Int).Add(serial, big.NewInt(1)),
		Subject:      pkix.Name{CommonName: ClientCommonName},
		NotBefore:    now.Add(-clockSkew).UTC(),
		NotAfter:     now.Add(ClientCertValidity).UTC(),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, key.Public(), caKey)
	if err != nil {
		return nil, fmt.Errorf("signing the etcd client certificate: %w", err)
	}
	roots := x509.NewCertPool()
	roots.AddCert(ca)
	return &tls.Config{
		MinVersion:   tls.VersionTLS12,
		RootCAs:      roots,
		ServerName:   serverName,
		Certificates: []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: key}},
	}, nil
}
