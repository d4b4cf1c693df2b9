package cluster

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/client-go/util/cert"
	"k8s.io/client-go/util/keyutil"
)

func newCA(t *testing.T) (certPEM, keyPEM []byte) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	ca, err := cert.NewSelfSignedCACert(cert.Config{CommonName: "kubernetes"}, key)
	require.NoError(t, err)
	keyPEM, err = keyutil.MarshalPrivateKeyToPEM(key)
	require.NoError(t, err)
	certPEM, err = cert.EncodeCertificates(ca)
	require.NoError(t, err)
	return certPEM, keyPEM
}
