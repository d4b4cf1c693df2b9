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
	"time"
)

// servingCertificate is a CA and the serving certificate it signed, valid together.
type servingCertificate struct {
	caPEM    []byte
	tls      tls.Certificate
	notAfter time.Time
	renewAt  time.Time // two thirds of the validity after issuance
}

// issue makes a new CA and a serving certificate for hosts (DNS names or IP addresses), both
// valid from a minute ago (clock skew) for validity.
func issue(hosts []string, validity time.Duration, now time.Time) (*servingCertificate, error) {
	notBefore, notAfter := now.Add(-time.Minute), now.Add(validity)
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
	pair, err := tls.X509KeyPair(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: leafDER}),
		pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}))
	if err != nil {
		return nil, fmt.Errorf("loading the webhook serving certificate: %w", err)
	}
	return &servingCertificate{
		caPEM:    pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}),
		tls:      pair,
		notAfter: notAfter,
		renewAt:  now.Add(validity * 2 / 3),
	}, nil
}

func serial() *big.Int {
	n, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		return big.NewInt(time.Now().UnixNano())
	}
	return n
}

// maxBundleCAs bounds the CA bundle: the current CA and the two newest others still valid
// (another replica's, or the one before a rotation).
const maxBundleCAs = 3

// mergeBundle returns current followed by the unexpired CAs of existing that differ from it,
// newest first, at most maxBundleCAs in all.
func mergeBundle(current, existing []byte, now time.Time) []byte {
	type ca struct {
		pem       []byte
		notBefore time.Time
	}
	var others []ca
	rest := existing
	for {
		var block *pem.Block
		block, rest = pem.Decode(rest)
		if block == nil {
			break
		}
		cert, err := x509.ParseCertificate(block.Bytes)
		if err != nil || !now.Before(cert.NotAfter) {
			continue
		}
		p := pem.EncodeToMemory(block)
		if string(p) == string(current) {
			continue
		}
		others = append(others, ca{pem: p, notBefore: cert.NotBefore})
	}
	for i := 1; i < len(others); i++ { // newest first
		for j := i; j > 0 && others[j].notBefore.After(others[j-1].notBefore); j-- {
			others[j], others[j-1] = others[j-1], others[j]
		}
	}
	out := append([]byte(nil), current...)
	for i := 0; i < len(others) && i < maxBundleCAs-1; i++ {
		out = append(out, others[i].pem...)
	}
	return out
}
