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
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/hex"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/util/cert"
	"k8s.io/client-go/util/keyutil"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	bootstrapv1 "capstan.dev/bootstrap-kubeadm/api/bootstrap/v1beta2"
	"capstan.dev/bootstrap-kubeadm/internal/cloudinit"
	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/secret"
)

var clusterKey = client.ObjectKey{Namespace: "ns", Name: "c1"}

var owner = metav1.OwnerReference{APIVersion: clusterv1.GroupVersion.String(), Kind: "Cluster", Name: "c1", UID: "uid-c1"}

func TestGenerate_CAsAreSelfSignedRSAValidFor3650Days(t *testing.T) {
	now := time.Date(2026, 12, 3, 8, 0, 0, 0, time.UTC)
	for p, cn := range map[secret.Purpose]string{secret.ClusterCA: "kubernetes", secret.EtcdCA: "etcd-ca", secret.FrontProxyCA: "front-proxy-ca"} {
		t.Run(string(p), func(t *testing.T) {
			kp, err := Generate(p, now)
			require.NoError(t, err)
			certs, err := cert.ParseCertsPEM(kp.Cert)
			require.NoError(t, err)
			require.Len(t, certs, 1)
			ca := certs[0]
			require.True(t, ca.IsCA)
			require.Equal(t, cn, ca.Subject.CommonName)
			require.Equal(t, 3650*24*time.Hour, ca.NotAfter.Sub(now))
			require.True(t, ca.NotBefore.Before(now), "NotBefore is backdated for clock skew")
			require.NoError(t, ca.CheckSignatureFrom(ca), "self-signed")

			key, err := keyutil.ParsePrivateKeyPEM(kp.Key)
			require.NoError(t, err)
			rsaKey, ok := key.(*rsa.PrivateKey)
			require.True(t, ok, "key is %T, want RSA", key)
			require.Equal(t, 2048, rsaKey.N.BitLen())
			require.True(t, rsaKey.PublicKey.Equal(ca.PublicKey), "the key belongs to the certificate")
		})
	}
}

func TestGenerate_ServiceAccountIsAPublicPrivateKeyPair(t *testing.T) {
	kp, err := Generate(secret.ServiceAccount, time.Now())
	require.NoError(t, err)
	pubs, err := keyutil.ParsePublicKeysPEM(kp.Cert)
	require.NoError(t, err)
	require.Len(t, pubs, 1)
	key, err := keyutil.ParsePrivateKeyPEM(kp.Key)
	require.NoError(t, err)
	require.True(t, key.(*rsa.PrivateKey).PublicKey.Equal(pubs[0]))
	require.Contains(t, string(kp.Cert), "-----BEGIN PUBLIC KEY-----")
}

func TestCACertHash_IsSHA256OfTheSubjectPublicKeyInfo(t *testing.T) {
	kp, err := Generate(secret.ClusterCA, time.Now())
	require.NoError(t, err)
	got, err := CACertHash(kp.Cert)
	require.NoError(t, err)

	certs, err := cert.ParseCertsPEM(kp.Cert)
	require.NoError(t, err)
	sum := sha256.Sum256(certs[0].RawSubjectPublicKeyInfo)
	require.Equal(t, "sha256:"+hex.EncodeToString(sum[:]), got)
	require.Regexp(t, `^sha256:[0-9a-f]{64}$`, got)

	_, err = CACertHash([]byte("not a certificate"))
	require.Error(t, err)
}

func TestSetFiles_AreWhereKubeadmLooksUnderCertificatesDir(t *testing.T) {
	set := Set{}
	for _, p := range secret.CertificatePurposes {
		set[p] = &KeyPair{Purpose: p, Cert: []byte(string(p) + "-crt"), Key: []byte(string(p) + "-key")}
	}
	want := []cloudinit.Certificate{
		{CertPath: "/etc/kubernetes/pki/ca.crt", KeyPath: "/etc/kubernetes/pki/ca.key", Cert: []byte("ca-crt"), Key: []byte("ca-key")},
		{CertPath: "/etc/kubernetes/pki/etcd/ca.crt", KeyPath: "/etc/kubernetes/pki/etcd/ca.key", Cert: []byte("etcd-crt"), Key: []byte("etcd-key")},
		{CertPath: "/etc/kubernetes/pki/front-proxy-ca.crt", KeyPath: "/etc/kubernetes/pki/front-proxy-ca.key", Cert: []byte("proxy-crt"), Key: []byte("proxy-key")},
		{CertPath: "/etc/kubernetes/pki/sa.pub", KeyPath: "/etc/kubernetes/pki/sa.key", Cert: []byte("sa-crt"), Key: []byte("sa-key")},
	}
	require.Equal(t, want, set.Files(bootstrapv1.ClusterConfiguration{}))
	require.Equal(t, "/srv/pki/etcd/ca.crt", set.Files(bootstrapv1.ClusterConfiguration{CertificatesDir: "/srv/pki"})[1].CertPath)
}

func newFakeClient(t *testing.T, objs ...client.Object) client.Client {
	t.Helper()
	return fake.NewClientBuilder().WithScheme(clientgoscheme.Scheme).WithObjects(objs...).Build()
}

func TestLookupOrGenerate_CreatesTheMissingSecretsAndKeepsTheExistingOnes(t *testing.T) {
	ctx := context.Background()
	existing, err := Generate(secret.ClusterCA, time.Now())
	require.NoError(t, err)
	c := newFakeClient(t, NewSecret(clusterKey, existing, owner))

	set, err := LookupOrGenerate(ctx, c, c, clusterKey, owner, time.Now(), Plan{})
	require.NoError(t, err)
	require.Len(t, set, 4)
	require.Equal(t, existing.Cert, set[secret.ClusterCA].Cert, "the existing CA is reused")

	for _, p := range secret.CertificatePurposes {
		s := &corev1.Secret{}
		require.NoError(t, c.Get(ctx, client.ObjectKey{Namespace: "ns", Name: "c1-" + string(p)}, s))
		require.Equal(t, clusterv1.ClusterSecretType, s.Type)
		require.Equal(t, "c1", s.Labels[clusterv1.ClusterNameLabel])
		require.Equal(t, []metav1.OwnerReference{owner}, s.OwnerReferences)
		require.Equal(t, set[p].Cert, s.Data["tls.crt"])
		require.Equal(t, set[p].Key, s.Data["tls.key"])
	}

	again, err := LookupOrGenerate(ctx, c, c, clusterKey, owner, time.Now(), Plan{})
	require.NoError(t, err)
	require.Equal(t, set, again, "a second call generates nothing")
}

// TestLookupOrGenerate_LosingTheCreateRaceUsesTheStoredSecret plays a second reconciler that
// read before the first one created the CA: its create fails with AlreadyExists, and it must
// return the stored CA rather than the one it generated, and overwrite nothing.
func TestLookupOrGenerate_LosingTheCreateRaceUsesTheStoredSecret(t *testing.T) {
	ctx := context.Background()
	winner, err := Generate(secret.ClusterCA, time.Now())
	require.NoError(t, err)
	store := newFakeClient(t, NewSecret(clusterKey, winner, owner))
	staleOnce := true
	reader := interceptor.NewClient(store.(client.WithWatch), interceptor.Funcs{
		Get: func(ctx context.Context, c client.WithWatch, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
			if key.Name == "c1-ca" && staleOnce {
				staleOnce = false
				return apierrors.NewNotFound(schema.GroupResource{Resource: "secrets"}, key.Name)
			}
			return c.Get(ctx, key, obj, opts...)
		},
	})
	var writes []string
	writer := interceptor.NewClient(store.(client.WithWatch), interceptor.Funcs{
		Create: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
			writes = append(writes, "create "+obj.GetName())
			return c.Create(ctx, obj, opts...)
		},
		Update: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.UpdateOption) error {
			writes = append(writes, "update "+obj.GetName())
			return c.Update(ctx, obj, opts...)
		},
	})

	set, err := LookupOrGenerate(ctx, reader, writer, clusterKey, owner, time.Now(), Plan{})
	require.NoError(t, err)
	require.Equal(t, winner.Cert, set[secret.ClusterCA].Cert)
	require.Equal(t, winner.Key, set[secret.ClusterCA].Key)
	require.ElementsMatch(t, []string{"create c1-ca", "create c1-etcd", "create c1-proxy", "create c1-sa"}, writes)

	stored := &corev1.Secret{}
	require.NoError(t, store.Get(ctx, client.ObjectKey{Namespace: "ns", Name: "c1-ca"}, stored))
	require.Equal(t, winner.Cert, stored.Data["tls.crt"], "the stored CA is not overwritten")
}

func TestLookup_NamesEveryMissingSecret(t *testing.T) {
	c := newFakeClient(t)
	_, err := Lookup(context.Background(), c, clusterKey, secret.ClusterCA, secret.EtcdCA)
	var missing *MissingError
	require.ErrorAs(t, err, &missing)
	require.Equal(t, []string{"c1-ca", "c1-etcd"}, missing.Names)
}

func TestLookup_RefusesASecretWithoutItsKey(t *testing.T) {
	kp, err := Generate(secret.ClusterCA, time.Now())
	require.NoError(t, err)
	kp.Key = nil
	c := newFakeClient(t, NewSecret(clusterKey, kp, owner))
	_, err = Lookup(context.Background(), c, clusterKey, secret.ClusterCA)
	require.ErrorContains(t, err, "must hold both tls.crt and tls.key")
}

// TestGenerateWith_KeysOfTheEncryptionAlgorithmAndCAsOfTheValidity: encryptionAlgorithm and
// caCertificateValidityPeriodDays decide the keys and the validity of what is generated.
func TestGenerateWith_KeysOfTheEncryptionAlgorithmAndCAsOfTheValidity(t *testing.T) {
	now := time.Date(2026, 12, 3, 8, 0, 0, 0, time.UTC)
	tests := []struct {
		algorithm bootstrapv1.EncryptionAlgorithmType
		check     func(t *testing.T, key any)
	}{
		{bootstrapv1.EncryptionAlgorithmRSA3072, func(t *testing.T, key any) { require.Equal(t, 3072, key.(*rsa.PrivateKey).N.BitLen()) }},
		{bootstrapv1.EncryptionAlgorithmECDSAP256, func(t *testing.T, key any) { require.Equal(t, elliptic.P256(), key.(*ecdsa.PrivateKey).Curve) }},
		{bootstrapv1.EncryptionAlgorithmECDSAP384, func(t *testing.T, key any) { require.Equal(t, elliptic.P384(), key.(*ecdsa.PrivateKey).Curve) }},
	}
	for _, tt := range tests {
		t.Run(string(tt.algorithm), func(t *testing.T) {
			plan := PlanFor(bootstrapv1.ClusterConfiguration{EncryptionAlgorithm: tt.algorithm, CACertificateValidityPeriodDays: 7300})
			kp, err := GenerateWith(secret.ClusterCA, now, plan.Options)
			require.NoError(t, err)
			ca, err := cert.ParseCertsPEM(kp.Cert)
			require.NoError(t, err)
			require.Equal(t, 7300*24*time.Hour, ca[0].NotAfter.Sub(now))
			require.NoError(t, ca[0].CheckSignatureFrom(ca[0]))
			key, err := keyutil.ParsePrivateKeyPEM(kp.Key)
			require.NoError(t, err)
			tt.check(t, key)

			sa, err := GenerateWith(secret.ServiceAccount, now, plan.Options)
			require.NoError(t, err)
			saKey, err := keyutil.ParsePrivateKeyPEM(sa.Key)
			require.NoError(t, err)
			tt.check(t, saKey)
		})
	}
}

// TestLookupOrGenerate_ExternalEtcdGeneratesNoEtcdCAAndNeedsTheUsersSecrets: with an external
// etcd the etcd CA and the API server's client pair come from the user (the CA without its key)
// and are never generated; the files go where etcd.external names them.
func TestLookupOrGenerate_ExternalEtcdGeneratesNoEtcdCAAndNeedsTheUsersSecrets(t *testing.T) {
	ctx := context.Background()
	cc := bootstrapv1.ClusterConfiguration{Etcd: bootstrapv1.Etcd{External: bootstrapv1.ExternalEtcd{
		Endpoints: []string{"https://10.0.0.5:2379"}, CAFile: "/etc/etcd/ca.pem", CertFile: "/etc/etcd/client.pem", KeyFile: "/etc/etcd/client-key.pem",
	}}}
	plan := PlanFor(cc)
	c := newFakeClient(t)

	_, err := LookupOrGenerate(ctx, c, c, clusterKey, owner, time.Now(), plan)
	var missing *MissingError
	require.ErrorAs(t, err, &missing)
	require.Equal(t, []string{"c1-etcd", "c1-apiserver-etcd-client"}, missing.Names)
	require.True(t, apierrors.IsNotFound(c.Get(ctx, client.ObjectKey{Namespace: "ns", Name: "c1-etcd"}, &corev1.Secret{})), "the etcd CA was generated")

	etcdCA := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "c1-etcd"}, Data: map[string][]byte{"tls.crt": []byte("external-ca")}}
	clientPair := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "c1-apiserver-etcd-client"}, Data: map[string][]byte{"tls.crt": []byte("client")}}
	require.NoError(t, c.Create(ctx, etcdCA))
	require.NoError(t, c.Create(ctx, clientPair))
	_, err = LookupAll(ctx, c, clusterKey, plan)
	require.ErrorContains(t, err, "the Secret ns/c1-apiserver-etcd-client must hold the external etcd client certificate and key of the API servers under tls.crt and tls.key")

	clientPair.Data["tls.key"] = []byte("client-key")
	require.NoError(t, c.Update(ctx, clientPair))
	set, err := LookupAll(ctx, c, clusterKey, plan)
	require.NoError(t, err)
	files := set.Files(cc)
	require.Contains(t, files, cloudinit.Certificate{CertPath: "/etc/etcd/ca.pem", Cert: []byte("external-ca")})
	require.Contains(t, files, cloudinit.Certificate{CertPath: "/etc/etcd/client.pem", KeyPath: "/etc/etcd/client-key.pem", Cert: []byte("client"), Key: []byte("client-key")})
	for _, f := range files {
		require.NotContains(t, f.CertPath, "/etc/kubernetes/pki/etcd/", "no stacked etcd CA file with an external etcd")
	}
}
