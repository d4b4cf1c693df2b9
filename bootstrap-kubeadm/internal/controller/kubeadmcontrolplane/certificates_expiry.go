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

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/etcd"
	"capstan.dev/contracts/kcprollout"
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
		if _, _, known := kcprollout.CertificatesExpiry(m, cfg.Annotations); known {
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
