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
	"crypto/tls"
	"errors"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	bootstrapv1 "capstan.dev/bootstrap-kubeadm/api/bootstrap/v1beta2"
	controlplanev1 "capstan.dev/bootstrap-kubeadm/api/controlplane/v1beta2"
	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/etcd"
)

// APIServerCertificateExpiryFunc reads when the serving certificate of the API server on node
// nodeName of cluster's workload cluster expires.
type APIServerCertificateExpiryFunc func(ctx context.Context, cluster *clusterv1.Cluster, nodeName string) (time.Time, error)

// apiServerPort is the port kubeadm's API server Pods listen on.
const apiServerPort = 6443

// reconcileCertificatesExpiry records, for each Machine with a Node whose certificate expiry is
// not known yet, the expiry of its API server's serving certificate as the certificates-expiry
// annotation of its KubeadmConfig, as upstream does; outdatedReason then reads it. Only while
// spec.rollout.before.certificatesExpiryDays asks for it, once the workload cluster is reachable,
// and once per Machine: a recorded date is not read again. A Machine whose API server cannot be
// read is retried later without holding up the steps after this one: that Machine may be the very
// one remediation or a rollout is about to replace.
func (r *Reconciler) reconcileCertificatesExpiry(ctx context.Context, s *scope) (ctrl.Result, bool, error) {
	if s.kcp.Spec.Rollout.Before.CertificatesExpiryDays <= 0 || !initialized(s) || s.workloadWait != "" {
		return ctrl.Result{}, false, nil
	}
	var errs []error
	for _, m := range s.machines {
		cfg := s.parts[m.Name].config
		if deleting(m) || !hasNode(m) || cfg == nil {
			continue
		}
		if _, _, known := certificatesExpiry(m, cfg); known {
			continue
		}
		expiry, err := r.APIServerCertificateExpiry(ctx, s.cluster, m.Status.NodeRef.Name)
		if err != nil {
			errs = append(errs, fmt.Errorf("reading the API server certificate expiry of Machine %s: %w", m.Name, err))
			continue
		}
		base := cfg.DeepCopy()
		if cfg.Annotations == nil {
			cfg.Annotations = map[string]string{}
		}
		cfg.Annotations[clusterv1.MachineCertificatesExpiryDateAnnotation] = expiry.UTC().Format(time.RFC3339)
		ctrl.LoggerFrom(ctx).Info("Recording the certificates expiry of a Machine", "Machine", klog.KObj(m), "expiry", expiry)
		if err := r.Client.Patch(ctx, cfg, client.MergeFrom(base)); client.IgnoreNotFound(err) != nil {
			errs = append(errs, fmt.Errorf("recording the certificates expiry on KubeadmConfig %s: %w", cfg.Name, err))
		}
	}
	if err := errors.Join(errs...); err != nil {
		ctrl.LoggerFrom(ctx).Error(err, "Reading certificate expiries failed; retrying")
		return ctrl.Result{RequeueAfter: r.WaitRequeue}, false, nil
	}
	return ctrl.Result{}, false, nil
}

// realAPIServerCertificateExpiry reaches the API server Pod kube-system/kube-apiserver-<node>
// through a port-forward of the workload API server and reads its serving certificate.
func (r *Reconciler) realAPIServerCertificateExpiry(ctx context.Context, cluster *clusterv1.Cluster, nodeName string) (time.Time, error) {
	cfg, err := r.Workload.GetRESTConfig(ctx, client.ObjectKeyFromObject(cluster))
	if err != nil {
		return time.Time{}, err
	}
	dial, err := etcd.PortForwardDialer(cfg, metav1.NamespaceSystem, "kube-apiserver-"+nodeName, apiServerPort)
	if err != nil {
		return time.Time{}, err
	}
	return servingCertificateExpiry(ctx, dial)
}

// servingCertificateExpiry makes a TLS handshake through dial and returns when the leaf
// certificate the server presents expires. The certificate is only read, never trusted: nothing
// is sent over the connection.
func servingCertificateExpiry(ctx context.Context, dial etcd.DialFunc) (time.Time, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	raw, err := dial(ctx, fmt.Sprintf("localhost:%d", apiServerPort))
	if err != nil {
		return time.Time{}, err
	}
	conn := tls.Client(raw, &tls.Config{InsecureSkipVerify: true}) //nolint:gosec // reads the expiry only
	defer conn.Close()
	if err := conn.HandshakeContext(ctx); err != nil {
		return time.Time{}, fmt.Errorf("TLS handshake with the API server: %w", err)
	}
	certs := conn.ConnectionState().PeerCertificates
	if len(certs) == 0 {
		return time.Time{}, errors.New("the API server presented no certificate")
	}
	return certs[0].NotAfter, nil
}

// certificatesExpiry is when m's certificates expire, as upstream reads it: the Machine's
// certificates-expiry annotation (a user's override), else its KubeadmConfig's, else
// status.certificatesExpiryDate. ok is false when none is known or the annotation is not RFC3339
// (then nothing is rolled out for it: an unreadable date must not replace the control plane).
func certificatesExpiry(m *clusterv1.Machine, cfg *bootstrapv1.KubeadmConfig) (expiry time.Time, source string, ok bool) {
	if v, found := m.Annotations[clusterv1.MachineCertificatesExpiryDateAnnotation]; found {
		t, err := time.Parse(time.RFC3339, v)
		return t, "Machine annotation " + clusterv1.MachineCertificatesExpiryDateAnnotation, err == nil
	}
	if cfg != nil {
		if v, found := cfg.Annotations[clusterv1.MachineCertificatesExpiryDateAnnotation]; found {
			t, err := time.Parse(time.RFC3339, v)
			return t, "KubeadmConfig annotation " + clusterv1.MachineCertificatesExpiryDateAnnotation, err == nil
		}
	}
	if d := m.Status.CertificatesExpiryDate; !d.IsZero() {
		return d.Time, "status.certificatesExpiryDate", true
	}
	return time.Time{}, "", false
}

// certificatesExpiring says why m must be replaced under spec.rollout.before.certificatesExpiryDays:
// its certificates expire within that many days of now. Empty otherwise.
func certificatesExpiring(kcp *controlplanev1.KubeadmControlPlane, m *clusterv1.Machine, cfg *bootstrapv1.KubeadmConfig, now time.Time) string {
	days := kcp.Spec.Rollout.Before.CertificatesExpiryDays
	if days <= 0 {
		return ""
	}
	expiry, source, ok := certificatesExpiry(m, cfg)
	if !ok {
		return ""
	}
	threshold := now.Add(time.Duration(days) * 24 * time.Hour)
	if expiry.After(threshold) {
		return ""
	}
	return fmt.Sprintf("certificates expire at %s (%s), within spec.rollout.before.certificatesExpiryDays %d",
		expiry.UTC().Format(time.RFC3339), source, days)
}
