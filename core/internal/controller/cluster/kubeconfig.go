package cluster

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"capstan.dev/contracts/kubeconfig"
	"capstan.dev/contracts/owner"
	"capstan.dev/contracts/secret"
)

// reconcileKubeconfig writes <cluster>-kubeconfig from <cluster>-ca when no
// control-plane provider owns it. It never overwrites a kubeconfig it did not make.
func (r *Reconciler) reconcileKubeconfig(ctx context.Context, s *scope) (ctrl.Result, error) {
	c := s.cluster
	if c.Spec.ControlPlaneRef.IsDefined() || !c.Spec.ControlPlaneEndpoint.IsValid() {
		return ctrl.Result{}, nil
	}
	key := client.ObjectKey{Namespace: c.Namespace, Name: secret.Name(c.Name, secret.Kubeconfig)}
	err := r.APIReader.Get(ctx, key, &corev1.Secret{})
	if err == nil {
		return ctrl.Result{}, nil
	}
	if !apierrors.IsNotFound(err) {
		return ctrl.Result{}, fmt.Errorf("reading Secret %s: %w", key, err)
	}
	ca := &corev1.Secret{}
	caKey := client.ObjectKey{Namespace: c.Namespace, Name: secret.Name(c.Name, secret.ClusterCA)}
	if err := r.APIReader.Get(ctx, caKey, ca); err != nil {
		if apierrors.IsNotFound(err) {
			s.kubeconfigErr = fmt.Errorf("waiting for Secret %s (the cluster CA, written by the bootstrap provider) to create the kubeconfig", caKey.Name)
			return ctrl.Result{RequeueAfter: externalRequeue}, nil
		}
		return ctrl.Result{}, fmt.Errorf("reading Secret %s: %w", caKey, err)
	}
	data, err := kubeconfig.Generate(c.Name, kubeconfig.Server(c.Spec.ControlPlaneEndpoint),
		ca.Data[secret.TLSCrtDataName], ca.Data[secret.TLSKeyDataName], time.Now())
	if err != nil {
		s.kubeconfigErr = err
		return ctrl.Result{}, nil
	}
	ctrl.LoggerFrom(ctx).Info("Creating the workload cluster kubeconfig", "Secret", key.Name)
	if err := r.Client.Create(ctx, kubeconfig.NewSecret(c, data, owner.ClusterReference(c))); err != nil && !apierrors.IsAlreadyExists(err) {
		return ctrl.Result{}, fmt.Errorf("creating Secret %s: %w", key, err)
	}
	return ctrl.Result{}, nil
}
