package kubeconfig

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/client-go/util/cert"
	"k8s.io/client-go/util/keyutil"
)

func testCA(t *testing.T) (certPEM, keyPEM []byte, ca *x509.Certificate) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	ca, err = cert.NewSelfSignedCACert(cert.Config{CommonName: "kubernetes"}, key)
	require.NoError(t, err)
	keyPEM, err = keyutil.MarshalPrivateKeyToPEM(key)
	require.NoError(t, err)
	certPEM, err = cert.EncodeCertificates(ca)
	require.NoError(t, err)
	return certPEM, keyPEM, ca
}

func TestGenerate_AdminCertificateSignedByTheClusterCA(t *testing.T) {
	caPEM, keyPEM, ca := testCA(t)
	now := time.Now().Add(time.Hour).Truncate(time.Second) // within the fresh CA's validity
	data, err := Generate("c1", "https://127.0.0.1:6443", caPEM, keyPEM, now)
	require.NoError(t, err)

	cfg, err := clientcmd.Load(data)
	require.NoError(t, err)
	require.Equal(t, "c1-admin@c1", cfg.CurrentContext)
	require.Equal(t, "https://127.0.0.1:6443", cfg.Clusters["c1"].Server)
	certs, err := cert.ParseCertsPEM(cfg.AuthInfos["c1-admin"].ClientCertificateData)
	require.NoError(t, err)
	require.Equal(t, "kubernetes-admin", certs[0].Subject.CommonName)
	require.Equal(t, []string{"system:masters"}, certs[0].Subject.Organization)
	pool := x509.NewCertPool()
	pool.AddCert(ca)
	_, err = certs[0].Verify(x509.VerifyOptions{Roots: pool, CurrentTime: now, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}})
	require.NoError(t, err, "the client certificate chains to the cluster CA")

	expiry, err := ClientCertificateExpiry(data)
	require.NoError(t, err)
	require.Equal(t, now.Add(ClientCertificateValidity).UTC(), expiry.UTC())
}

func TestGenerate_RejectsABrokenCA(t *testing.T) {
	_, keyPEM, _ := testCA(t)
	_, err := Generate("c1", "https://x:6443", []byte("not pem"), keyPEM, time.Now())
	require.ErrorContains(t, err, "parsing the CA certificate of Cluster c1")
	caPEM, _, _ := testCA(t)
	_, err = Generate("c1", "https://x:6443", caPEM, []byte("nope"), time.Now())
	require.ErrorContains(t, err, "parsing the CA key of Cluster c1")
}
