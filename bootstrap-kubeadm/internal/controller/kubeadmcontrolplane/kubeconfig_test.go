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

package kubeadmcontrolplane

import (
	"context"
	"crypto/x509"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/client-go/util/cert"
	"sigs.k8s.io/controller-runtime/pkg/client"

	controlplanev1 "capstan.dev/bootstrap-kubeadm/api/controlplane/v1beta2"
	"capstan.dev/contracts/envtest"
	"capstan.dev/contracts/kubeconfig"
	"capstan.dev/contracts/secret"
)

func TestNeedsRotation_PastHalfTheOneYearLife(t *testing.T) {
	issued := time.Date(2026, 12, 3, 8, 0, 0, 0, time.UTC)
	expiry := issued.Add(kubeconfig.ClientCertificateValidity)
	for _, tc := range []struct {
		name string
		now  time.Time
		want bool
	}{
		{"just issued", issued, false},
		{"a day before half-life", issued.Add(kubeconfig.ClientCertificateValidity/2 - 24*time.Hour), false},
		{"at half-life", issued.Add(kubeconfig.ClientCertificateValidity / 2), true},
		{"183 days in", issued.Add(183 * 24 * time.Hour), true},
		{"expired", expiry.Add(time.Hour), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, needsRotation(expiry, tc.now))
		})
	}
}

// kubeconfigSecret waits until <cluster>-kubeconfig exists and, when differentFrom is set, holds
// something else.
func (f *fixture) kubeconfigSecret(differentFrom []byte) *corev1.Secret {
	f.t.Helper()
	s := &corev1.Secret{}
	envtest.WaitFor(f.t, timeout, "the kubeconfig Secret", func() (bool, error) {
		if err := env.Client.Get(context.Background(), client.ObjectKey{Namespace: f.ns, Name: "c1-kubeconfig"}, s); err != nil {
			return false, err
		}
		if differentFrom != nil && string(s.Data["value"]) == string(differentFrom) {
			return false, fmt.Errorf("not rewritten yet")
		}
		return true, nil
	})
	return s
}

// TestKubeconfig_WrittenFromTheClusterCAAndRotatedAtHalfLife: the control plane writes the admin
// kubeconfig for the Cluster's endpoint, signed by the cluster CA and controlled by the
// KubeadmControlPlane; a controller whose clock is past the client certificate's half-life
// rewrites it.
func TestKubeconfig_WrittenFromTheClusterCAAndRotatedAtHalfLife(t *testing.T) {
	stop := startController(t)
	f := newFixture(t, func(o *fixtureOptions) { o.noKubeconfig = true })
	s := f.kubeconfigSecret(nil)
	kcp := f.waitKCP("uid", func(*controlplanev1.KubeadmControlPlane) error { return nil })
	require.True(t, metav1.IsControlledBy(s, kcp), "owner references: %+v", s.OwnerReferences)
	require.Equal(t, "c1", s.Labels["cluster.x-k8s.io/cluster-name"])
	require.Equal(t, "cluster.x-k8s.io/secret", string(s.Type))

	cfg, err := clientcmd.Load(s.Data["value"])
	require.NoError(t, err)
	require.Equal(t, "https://10.0.0.1:6443", cfg.Clusters["c1"].Server)
	clientCert, err := cert.ParseCertsPEM(cfg.AuthInfos["c1-admin"].ClientCertificateData)
	require.NoError(t, err)
	ca := &corev1.Secret{}
	require.NoError(t, env.Client.Get(context.Background(), client.ObjectKey{Namespace: f.ns, Name: secret.Name("c1", secret.ClusterCA)}, ca))
	caCerts, err := cert.ParseCertsPEM(ca.Data["tls.crt"])
	require.NoError(t, err)
	pool := x509.NewCertPool()
	pool.AddCert(caCerts[0])
	_, err = clientCert[0].Verify(x509.VerifyOptions{Roots: pool, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}})
	require.NoError(t, err, "signed by the cluster CA")
	expiry, err := kubeconfig.ClientCertificateExpiry(s.Data["value"])
	require.NoError(t, err)
	require.WithinDuration(t, time.Now().Add(kubeconfig.ClientCertificateValidity), expiry, time.Minute)

	// Restart the controller 183 days later: the certificate is past half its life.
	stop()
	later := time.Now().Add(183 * 24 * time.Hour)
	startController(t, func(o *controllerOptions) { o.now = func() time.Time { return later } })
	rotated := f.kubeconfigSecret(s.Data["value"])
	newExpiry, err := kubeconfig.ClientCertificateExpiry(rotated.Data["value"])
	require.NoError(t, err)
	require.WithinDuration(t, later.Add(kubeconfig.ClientCertificateValidity), newExpiry, time.Minute)
	require.True(t, metav1.IsControlledBy(rotated, kcp))
}
