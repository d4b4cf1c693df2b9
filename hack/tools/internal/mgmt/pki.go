package mgmt

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"

	"k8s.io/client-go/util/cert"
	"k8s.io/client-go/util/keyutil"
)

// pki file names under <dir>/pki.
const (
	caCert      = "ca.crt"
	caKey       = "ca.key"
	servingCert = "apiserver.crt"
	servingKey  = "apiserver.key"
	adminCert   = "admin.crt"
	adminKey    = "admin.key"
	saKey       = "sa.key"
	saPub       = "sa.pub"
)

// certValidity is long because this is a local development plane whose data must
// survive restarts for months; it is never exposed beyond loopback.
const certValidity = 10 * 365 * 24 * time.Hour

// ensurePKI creates the CA, the API server's serving certificate, the admin client
// certificate and the service-account key pair, each only when missing, so a
// restarted plane keeps its identity and existing kubeconfigs stay valid.
func ensurePKI(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("creating %s: %w", dir, err)
	}
	if !exists(filepath.Join(dir, caCert)) {
		key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			return fmt.Errorf("generating CA key: %w", err)
		}
		ca, err := cert.NewSelfSignedCACert(cert.Config{CommonName: "capstan-mgmt-ca"}, key)
		if err != nil {
			return fmt.Errorf("self-signing CA: %w", err)
		}
		if err := writePair(dir, caCert, caKey, ca, key); err != nil {
			return err
		}
	}
	ca, caSigner, err := loadPair(filepath.Join(dir, caCert), filepath.Join(dir, caKey))
	if err != nil {
		return err
	}
	if !exists(filepath.Join(dir, servingCert)) {
		tmpl := &x509.Certificate{
			Subject:     pkix.Name{CommonName: "kube-apiserver"},
			DNSNames:    []string{"localhost", "kubernetes", "kubernetes.default", "kubernetes.default.svc"},
			IPAddresses: []net.IP{net.ParseIP("127.0.0.1"), net.ParseIP("10.96.0.1")},
			ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		}
		if err := issue(dir, servingCert, servingKey, tmpl, ca, caSigner); err != nil {
			return err
		}
	}
	if !exists(filepath.Join(dir, adminCert)) {
		tmpl := &x509.Certificate{
			Subject:     pkix.Name{CommonName: "capstan-admin", Organization: []string{"system:masters"}},
			ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
		}
		if err := issue(dir, adminCert, adminKey, tmpl, ca, caSigner); err != nil {
			return err
		}
	}
	if !exists(filepath.Join(dir, saKey)) {
		key, err := rsa.GenerateKey(rand.Reader, 2048)
		if err != nil {
			return fmt.Errorf("generating service-account key: %w", err)
		}
		keyPEM, err := keyutil.MarshalPrivateKeyToPEM(key)
		if err != nil {
			return err
		}
		pubDER, err := x509.MarshalPKIXPublicKey(&key.PublicKey)
		if err != nil {
			return err
		}
		pubPEM := pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pubDER})
		if err := os.WriteFile(filepath.Join(dir, saPub), pubPEM, 0o644); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, saKey), keyPEM, 0o600); err != nil {
			return err
		}
	}
	return nil
}

func issue(dir, certName, keyName string, tmpl, ca *x509.Certificate, caSigner crypto.Signer) error {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return fmt.Errorf("generating key for %s: %w", certName, err)
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	if err != nil {
		return err
	}
	tmpl.SerialNumber = serial
	tmpl.NotBefore = time.Now().Add(-time.Minute)
	tmpl.NotAfter = time.Now().Add(certValidity)
	tmpl.KeyUsage = x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, key.Public(), caSigner)
	if err != nil {
		return fmt.Errorf("signing %s: %w", certName, err)
	}
	crt, err := x509.ParseCertificate(der)
	if err != nil {
		return err
	}
	return writePair(dir, certName, keyName, crt, key)
}

func writePair(dir, certName, keyName string, crt *x509.Certificate, key crypto.Signer) error {
	keyPEM, err := keyutil.MarshalPrivateKeyToPEM(key)
	if err != nil {
		return fmt.Errorf("encoding %s: %w", keyName, err)
	}
	// Key first: a crash between the two writes leaves no certificate without its key.
	if err := os.WriteFile(filepath.Join(dir, keyName), keyPEM, 0o600); err != nil {
		return err
	}
	certPEM, err := cert.EncodeCertificates(crt)
	if err != nil {
		return fmt.Errorf("encoding %s: %w", certName, err)
	}
	return os.WriteFile(filepath.Join(dir, certName), certPEM, 0o644)
}

func loadPair(certPath, keyPath string) (*x509.Certificate, crypto.Signer, error) {
	certs, err := cert.CertsFromFile(certPath)
	if err != nil {
		return nil, nil, fmt.Errorf("reading %s: %w", certPath, err)
	}
	key, err := keyutil.PrivateKeyFromFile(keyPath)
	if err != nil {
		return nil, nil, fmt.Errorf("reading %s: %w", keyPath, err)
	}
	signer, ok := key.(crypto.Signer)
	if !ok {
		return nil, nil, fmt.Errorf("%s does not hold a signing key", keyPath)
	}
	return certs[0], signer, nil
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return !errors.Is(err, os.ErrNotExist)
}
