package conversionwebhook

import (
	"crypto/tls"
	"crypto/x509"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestWriteSelfSigned_AWebhookServerLoadsThePairForItsHosts: the files load as the key pair a
// webhook server reads (tls.crt, tls.key) and the certificate serves the hosts asked for.
func TestWriteSelfSigned_AWebhookServerLoadsThePairForItsHosts(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "certs")
	require.NoError(t, WriteSelfSigned(dir, []string{"localhost", "127.0.0.1"}, time.Hour))
	pair, err := tls.LoadX509KeyPair(filepath.Join(dir, "tls.crt"), filepath.Join(dir, "tls.key"))
	require.NoError(t, err)
	leaf, err := x509.ParseCertificate(pair.Certificate[0])
	require.NoError(t, err)
	require.NoError(t, leaf.VerifyHostname("localhost"))
	require.NoError(t, leaf.VerifyHostname("127.0.0.1"))
	require.WithinDuration(t, time.Now().Add(time.Hour), leaf.NotAfter, time.Minute)
}
