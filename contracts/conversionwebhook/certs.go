package conversionwebhook

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"
)

// servingCertificate is a CA and the serving certificate it signed, valid together. The CA's
// key is not kept: a rotation makes a new CA.
type servingCertificate struct {
	caPEM, certPEM, keyPEM []byte
	tls                    tls.Certificate
	notAfter               time.Time
	renewAt                time.Time // two thirds of the validity after issuance
}

// backdate is how long before its issuance a certificate is valid from (clock skew).
const backdate = time.Minute

// issue makes a new CA and a serving certificate for hosts (DNS names or IP addresses), both
// valid from a minute ago (clock skew) for validity.
func issue(hosts []string, validity time.Duration, now time.Time) (*servingCertificate, error) {
	notBefore, notAfter := now.Add(-backdate), now.Add(validity)
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("generating the webhook CA key: %w", err)
	}
	ca := &x509.Certificate{
		SerialNumber:          serial(),
		Subject:               pkix.Name{CommonName: "capstan-webhook-ca"},
		NotBefore:             notBefore,
		NotAfter:              notAfter,
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, ca, ca, &caKey.PublicKey, caKey)
	if err != nil {
		return nil, fmt.Errorf("signing the webhook CA: %w", err)
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("generating the webhook serving key: %w", err)
	}
	leaf := &x509.Certificate{
		SerialNumber: serial(),
		Subject:      pkix.Name{CommonName: hosts[0]},
		NotBefore:    notBefore,
		NotAfter:     notAfter,
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	for _, h := range hosts {
		if ip := net.ParseIP(h); ip != nil {
			leaf.IPAddresses = append(leaf.IPAddresses, ip)
		} else {
			leaf.DNSNames = append(leaf.DNSNames, h)
		}
	}
	leafDER, err := x509.CreateCertificate(rand.Reader, leaf, ca, &key.PublicKey, caKey)
	if err != nil {
		return nil, fmt.Errorf("signing the webhook serving certificate: %w", err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return nil, fmt.Errorf("encoding the webhook serving key: %w", err)
	}
	return parseServing(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}),
		pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: leafDER}),
		pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}))
}

// parseServing loads a CA and serving pair (as issue makes them and the shared Secret holds
// them); the pair must be the CA's.
func parseServing(caPEM, certPEM, keyPEM []byte) (*servingCertificate, error) {
	pair, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return nil, fmt.Errorf("loading the webhook serving certificate: %w", err)
	}
	leaf, err := x509.ParseCertificate(pair.Certificate[0])
	if err != nil {
		return nil, fmt.Errorf("loading the webhook serving certificate: %w", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(caPEM) {
		return nil, fmt.Errorf("the webhook CA is not a PEM certificate")
	}
	if _, err := leaf.Verify(x509.VerifyOptions{Roots: pool, CurrentTime: leaf.NotBefore.Add(backdate)}); err != nil {
		return nil, fmt.Errorf("the webhook serving certificate is not the CA's: %w", err)
	}
	issued := leaf.NotBefore.Add(backdate)
	return &servingCertificate{
		caPEM: caPEM, certPEM: certPEM, keyPEM: keyPEM, tls: pair,
		notAfter: leaf.NotAfter,
		renewAt:  issued.Add(leaf.NotAfter.Sub(issued) * 2 / 3),
	}, nil
}

// serves reports whether the certificate is valid at now for every one of hosts.
func (s *servingCertificate) serves(hosts []string, now time.Time) bool {
	leaf, err := x509.ParseCertificate(s.tls.Certificate[0])
	if err != nil || now.Before(leaf.NotBefore) || !now.Before(leaf.NotAfter) {
		return false
	}
	for _, h := range hosts {
		if leaf.VerifyHostname(h) != nil {
			return false
		}
	}
	return true
}

func serial() *big.Int {
	n, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		return big.NewInt(time.Now().UnixNano())
	}
	return n
}

// unexpired reports whether the PEM certificate caPEM is still valid at now.
func unexpired(caPEM []byte, now time.Time) bool {
	block, _ := pem.Decode(caPEM)
	if block == nil {
		return false
	}
	cert, err := x509.ParseCertificate(block.Bytes)
	return err == nil && now.Before(cert.NotAfter)
}

// SelfSigned makes a new CA and a serving certificate it signs for hosts (DNS names or IP
// addresses), valid from a minute ago for validity, as the webhook issues its own: for servers
// that publish their CA themselves, e.g. a Runtime Extension writing its ExtensionConfig's
// caBundle. caPEM is the CA to trust.
func SelfSigned(hosts []string, validity time.Duration) (cert tls.Certificate, caPEM []byte, err error) {
	s, err := issue(hosts, validity, time.Now())
	if err != nil {
		return tls.Certificate{}, nil, err
	}
	return s.tls, s.caPEM, nil
}

// WriteSelfSigned writes a serving certificate for hosts, as SelfSigned makes it, into dir
// (created if missing) as controller-runtime's webhook server reads one: tls.crt and tls.key in
// PEM. For a manager that refuses to start without a webhook certificate nothing calls, e.g.
// upstream's managers beside Capstan's in tests and benchmarks.
func WriteSelfSigned(dir string, hosts []string, validity time.Duration) error {
	s, err := issue(hosts, validity, time.Now())
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "tls.crt"), s.certPEM, 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "tls.key"), s.keyPEM, 0o600)
}
