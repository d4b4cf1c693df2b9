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
	"crypto/ecdsa"
	"crypto/x509"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestClientTLSConfig_ClientCertificateSignedByTheEtcdCA(t *testing.T) {
	now := time.Date(2026, 12, 3, 8, 0, 0, 0, time.UTC)
	ca, err := generateCA(now.Add(-24 * time.Hour))
	require.NoError(t, err)

	cfg, err := ClientTLSConfig(ca.Cert, ca.Key, "node-0", now)
	require.NoError(t, err)
	require.Equal(t, "node-0", cfg.ServerName)
	require.Len(t, cfg.Certificates, 1)
	leaf, err := x509.ParseCertificate(cfg.Certificates[0].Certificate[0])
	require.NoError(t, err)
	require.IsType(t, &ecdsa.PrivateKey{}, cfg.Certificates[0].PrivateKey)

	require.Equal(t, ClientCommonName, leaf.Subject.CommonName)
	require.False(t, leaf.IsCA)
	require.Equal(t, []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}, leaf.ExtKeyUsage)
	require.True(t, leaf.NotBefore.Before(now), "backdated for clock skew")
	require.Equal(t, now.Add(ClientCertValidity), leaf.NotAfter)

	// It verifies as a client certificate against the CA, the way etcd's client-cert-auth does,
	// and the same pool is the root for the server's certificate.
	_, err = leaf.Verify(x509.VerifyOptions{Roots: cfg.RootCAs, CurrentTime: now, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}})
	require.NoError(t, err)

	other, err := generateCA(now)
	require.NoError(t, err)
	otherCfg, err := ClientTLSConfig(other.Cert, other.Key, "node-0", now)
	require.NoError(t, err)
	_, err = leaf.Verify(x509.VerifyOptions{Roots: otherCfg.RootCAs, CurrentTime: now, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}})
	require.Error(t, err, "another cluster's etcd CA does not accept it")

	again, err := ClientTLSConfig(ca.Cert, ca.Key, "node-0", now)
	require.NoError(t, err)
	require.NotEqual(t, cfg.Certificates[0].Certificate[0], again.Certificates[0].Certificate[0], "a new key and certificate each time")
}

func TestClientTLSConfig_RejectsWhatCannotSign(t *testing.T) {
	now := time.Now()
	ca, err := generateCA(now)
	require.NoError(t, err)
	sa, err := generateCA(now) // a CA whose key does not match ca
	require.NoError(t, err)

	_, err = ClientTLSConfig([]byte("not PEM"), ca.Key, "n", now)
	require.ErrorContains(t, err, "parsing the etcd CA certificate")
	_, err = ClientTLSConfig(ca.Cert, []byte("not PEM"), "n", now)
	require.ErrorContains(t, err, "parsing the etcd CA key")
	_, err = ClientTLSConfig(ca.Cert, sa.Key, "n", now)
	require.ErrorContains(t, err, "signing the etcd client certificate", "a key that does not match the CA")
}
