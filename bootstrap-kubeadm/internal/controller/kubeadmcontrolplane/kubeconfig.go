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
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	controlplanev1 "capstan.dev/bootstrap-kubeadm/api/controlplane/v1beta2"
	"capstan.dev/contracts/kubeconfig"
	"capstan.dev/contracts/secret"
)

// rotationTime is when a kubeconfig whose client certificate expires at expiry must be
// regenerated: half-way through its one-year life (kubeconfig.RenewalThreshold before expiry), as
// upstream's certs.ClientCertificateRenewalDuration.
func rotationTime(expiry time.Time) time.Time {
	return expiry.Add(-kubeconfig.RenewalThreshold)
}

// needsRotation reports whether a kubeconfig whose client certificate expires at expiry is due
// for rotation at now.
func needsRotation(expiry, now time.Time) bool {
	return !now.Before(rotationTime(expiry))
}

// reconcileKubeconfig writes <cluster>-kubeconfig from the cluster CA when it does not exist, with
// the KubeadmControlPlane as its controller owner, and rewrites it once its client certificate is
// past half its life (a requeue at that time brings us back). A Secret the KubeadmControlPlane
// does not control (supplied by the user, say) is left alone: it is not ours to rotate.
func (r *Reconciler) reconcileKubeconfig(ctx context.Context, s *scope) (ctrl.Result, bool, error) {
	c, kcp := s.cluster, s.kcp
	log := ctrl.LoggerFrom(ctx)
	key := client.ObjectKey{Namespace: c.Namespace, Name: secret.Name(c.Name, secret.Kubeconfig)}
	existing := &corev1.Secret{}
	err := r.APIReader.Get(ctx, key, existing)
	switch {
	case apierrors.IsNotFound(err):
		existing = nil
	case err != nil:
		return ctrl.Result{}, false, fmt.Errorf("reading Secret %s: %w", key, err)
	case !metav1.IsControlledBy(existing, kcp):
		return ctrl.Result{}, false, nil
	default:
		expiry, err := kubeconfig.ClientCertificateExpiry(existing.Data[secret.KubeconfigDataName])
		if err == nil && !needsRotation(expiry, s.now) {
			return ctrl.Result{RequeueAfter: until(s.now, rotationTime(expiry))}, false, nil
		}
		if err != nil {
			log.Info("The kubeconfig Secret cannot be read: writing it again", "Secret", key.Name, "reason", err.Error())
		}
	}

	ca := &corev1.Secret{}
	caKey := client.ObjectKey{Namespace: c.Namespace, Name: secret.Name(c.Name, secret.ClusterCA)}
	if err := r.APIReader.Get(ctx, caKey, ca); err != nil {
		return ctrl.Result{}, false, fmt.Errorf("reading Secret %s: %w", caKey, err) // reconcileCertificates made sure it exists
	}
	data, err := kubeconfig.Generate(c.Name, kubeconfig.Server(c.Spec.ControlPlaneEndpoint),
		ca.Data[secret.TLSCrtDataName], ca.Data[secret.TLSKeyDataName], s.now)
	if err != nil {
		s.kubeconfigWait = fmt.Sprintf("Cannot write Secret %s: %v", key.Name, err)
		return ctrl.Result{}, false, nil // only a new CA fixes it: the certificates step reports it
	}
	s.kubeconfigWait = ""
	if existing == nil {
		log.Info("Creating the workload cluster kubeconfig", "Secret", key.Name)
		if err := r.Client.Create(ctx, kubeconfig.NewSecret(c, data, controllerRef(kcp))); err != nil && !apierrors.IsAlreadyExists(err) {
			return ctrl.Result{}, false, fmt.Errorf("creating Secret %s: %w", key, err)
		}
	} else {
		log.Info("Rotating the workload cluster kubeconfig: its client certificate is past half its life", "Secret", key.Name)
		existing.Data = map[string][]byte{secret.KubeconfigDataName: data}
		if err := r.Client.Update(ctx, existing); err != nil { // guarded by resourceVersion
			return ctrl.Result{}, false, fmt.Errorf("updating Secret %s: %w", key, err)
		}
	}
	return ctrl.Result{RequeueAfter: until(s.now, rotationTime(s.now.Add(kubeconfig.ClientCertificateValidity)))}, false, nil
}

// controllerRef is the owner reference that makes kcp the controller of an object.
func controllerRef(kcp *controlplanev1.KubeadmControlPlane) metav1.OwnerReference {
	return metav1.OwnerReference{
		APIVersion: controlplanev1.GroupVersion.String(), Kind: "KubeadmControlPlane", Name: kcp.Name, UID: kcp.UID,
		Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true),
	}
}
