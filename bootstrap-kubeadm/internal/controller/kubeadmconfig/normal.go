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

package kubeadmconfig

import (
	"context"
	"errors"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"capstan.dev/bootstrap-kubeadm/internal/certs"
	"capstan.dev/bootstrap-kubeadm/internal/cloudinit"
	"capstan.dev/bootstrap-kubeadm/internal/kubeadm"
	"capstan.dev/bootstrap-kubeadm/internal/locking"
	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/owner"
	"capstan.dev/contracts/remote"
	"capstan.dev/contracts/secret"
)

// reconcileNormal produces the bootstrap data once, then only checks it still exists and keeps
// the bootstrap token it carries usable (token.go).
func (r *Reconciler) reconcileNormal(ctx context.Context, s *scope) (ctrl.Result, error) {
	cfg, o, c := s.config, s.owner, s.cluster
	log := ctrl.LoggerFrom(ctx)

	// An owner that already names its data Secret (restored or moved from another management
	// cluster) keeps it: report it rather than render new data.
	if name := o.spec().Bootstrap.DataSecretName; cfg.Status.DataSecretName == "" && name != nil {
		cfg.Status.DataSecretName = *name
		cfg.Status.Initialization.DataSecretCreated = ptr.To(true)
		return ctrl.Result{}, nil
	}
	if controlPlaneInitialized(c) && o.isControlPlane() {
		if err := r.lock().Release(ctx, c); err != nil {
			return ctrl.Result{}, err
		}
	}
	if cfg.Status.DataSecretName != "" {
		err := r.APIReader.Get(ctx, client.ObjectKey{Namespace: cfg.Namespace, Name: cfg.Status.DataSecretName}, &corev1.Secret{})
		if err == nil {
			// Steady state: nothing to write, unless the token the data carries needs care.
			return r.reconcileBootstrapToken(ctx, s)
		}
		if !apierrors.IsNotFound(err) {
			return ctrl.Result{}, fmt.Errorf("reading the bootstrap data Secret %s: %w", cfg.Status.DataSecretName, err)
		}
		log.Info("The bootstrap data Secret is gone: rendering it again", "Secret", cfg.Status.DataSecretName)
	}

	if !ptr.Deref(c.Status.Initialization.InfrastructureProvisioned, false) {
		s.wait("Waiting for Cluster %s to report status.initialization.infrastructureProvisioned (its infrastructure provider is still provisioning)", c.Name)
		return ctrl.Result{}, nil // the Cluster watch brings us back
	}
	if !controlPlaneInitialized(c) {
		if !o.isControlPlane() {
			s.wait("Waiting for the control plane of Cluster %s to be initialized before this worker can join", c.Name)
			return ctrl.Result{}, nil
		}
		return r.reconcileInit(ctx, s)
	}
	if err := r.lock().Release(ctx, c); err != nil {
		return ctrl.Result{}, err
	}
	return r.reconcileJoin(ctx, s, o.role())
}

// reconcileInit renders "kubeadm init" data for the Machine holding the init lock. Only control
// plane Machines get here.
func (r *Reconciler) reconcileInit(ctx context.Context, s *scope) (ctrl.Result, error) {
	c, m := s.cluster, s.owner.machine
	acquired, holder, err := r.lock().Acquire(ctx, c, m)
	if err != nil {
		return ctrl.Result{}, err
	}
	if !acquired {
		s.wait("Waiting for Machine %s, which holds the init lock (ConfigMap %s), to initialize the control plane of Cluster %s; this Machine joins afterwards",
			holder, locking.Name(c.Name), c.Name)
		return ctrl.Result{RequeueAfter: r.WaitRequeue}, nil
	}
	ctrl.LoggerFrom(ctx).Info("Holding the init lock: rendering kubeadm init data", "Machine", m.Name)

	set, err := certs.LookupOrGenerate(ctx, r.APIReader, r.Client, clusterKey(c), owner.ClusterReference(c), time.Now())
	if err != nil {
		s.certs = &certsResult{err: err}
		return ctrl.Result{}, err
	}
	s.certs = &certsResult{}
	kubeadmFile, err := kubeadm.Init(s.config.Spec, kubeadmCluster(c, m.Spec.Version))
	if err != nil {
		return r.incomplete(s, err)
	}
	return r.renderAndStore(ctx, s, cloudinit.Init, kubeadmFile, set.Files(s.config.Spec.ClusterConfiguration.CertificatesDir))
}

// reconcileJoin renders "kubeadm join" data: control plane Machines get the certificates,
// workers (Machines and MachinePools) only the CA's pin.
func (r *Reconciler) reconcileJoin(ctx context.Context, s *scope, role kubeadm.Role) (ctrl.Result, error) {
	cfg, c := s.config, s.cluster
	purposes := []secret.Purpose{secret.ClusterCA}
	if role == kubeadm.ControlPlane {
		purposes = secret.CertificatePurposes
	}
	set, err := certs.Lookup(ctx, r.APIReader, clusterKey(c), purposes...)
	var missing *certs.MissingError
	switch {
	case errors.As(err, &missing):
		s.certs = &certsResult{missing: missing.Names}
		s.wait("Waiting for the cluster certificates %v, which the first control plane Machine generates", missing.Names)
		return ctrl.Result{RequeueAfter: r.WaitRequeue}, nil
	case err != nil:
		s.certs = &certsResult{err: err}
		return ctrl.Result{}, err
	}
	s.certs = &certsResult{}

	// Render from a copy: only the token is written back to the spec (see below).
	spec := cfg.Spec.DeepCopy()
	discovery := &spec.JoinConfiguration.Discovery.BootstrapToken
	if discovery.APIServerEndpoint == "" && !c.Spec.ControlPlaneEndpoint.IsValid() {
		s.wait("Waiting for Cluster %s to have spec.controlPlaneEndpoint, the address joining nodes discover the cluster at", c.Name)
		return ctrl.Result{}, nil // the Cluster watch brings us back
	}
	if len(discovery.CACertHashes) == 0 && !ptr.Deref(discovery.UnsafeSkipCAVerification, false) {
		hash, err := certs.CACertHash(set[secret.ClusterCA].Cert)
		if err != nil {
			s.certs = &certsResult{err: fmt.Errorf("Secret %s: %w", secret.Name(c.Name, secret.ClusterCA), err)}
			s.wait("Waiting for a valid cluster CA in Secret %s: %v", secret.Name(c.Name, secret.ClusterCA), err)
			return ctrl.Result{}, nil // a broken CA does not heal by retrying
		}
		discovery.CACertHashes = []string{hash}
	}
	if discovery.Token == "" {
		token, err := r.createBootstrapToken(ctx, c)
		if errors.Is(err, remote.ErrClusterNotConnected) {
			s.wait("Waiting for the connection to the workload cluster of Cluster %s (through Secret %s) to create a bootstrap token",
				c.Name, secret.Name(c.Name, secret.Kubeconfig))
			return ctrl.Result{}, nil // the ClusterCache's source brings us back on connect
		}
		if err != nil {
			return ctrl.Result{}, err
		}
		// The token is kept in the spec, as upstream does, and written before any data refers
		// to it: the deferred patch stores it (guarded by resourceVersion, so a reconcile that
		// read a stale KubeadmConfig cannot store a second token), and the update brings us
		// back to render with it. Rendering in the same reconcile would compute the status
		// for a generation the spec write is about to replace.
		setManagedToken(cfg, token)
		s.wait("Created a bootstrap token in the workload cluster of Cluster %s: writing the bootstrap data next", c.Name)
		return ctrl.Result{}, nil
	}

	kubeadmFile, err := kubeadm.Join(*spec, kubeadmCluster(c, s.owner.spec().Version), role)
	if err != nil {
		return r.incomplete(s, err)
	}
	kind, files := cloudinit.JoinWorker, []cloudinit.Certificate(nil)
	if role == kubeadm.ControlPlane {
		kind, files = cloudinit.JoinControlPlane, set.Files(spec.ClusterConfiguration.CertificatesDir)
	}
	return r.renderAndStore(ctx, s, kind, kubeadmFile, files)
}

// incomplete turns a kubeadm error into a wait when it names a missing value (the user or
// another controller has to set it), and into an error otherwise.
func (r *Reconciler) incomplete(s *scope, err error) (ctrl.Result, error) {
	if errors.Is(err, kubeadm.ErrIncomplete) {
		s.wait("Waiting for the kubeadm configuration to be complete: %v", err)
		return ctrl.Result{}, nil // a change to the KubeadmConfig or Machine brings us back
	}
	s.wait("The kubeadm configuration is invalid: %v", err)
	return ctrl.Result{}, nil // retrying cannot fix the spec; an update of it brings us back
}

// renderAndStore renders the cloud-config and stores it in the data Secret.
func (r *Reconciler) renderAndStore(ctx context.Context, s *scope, kind cloudinit.Kind, kubeadmFile []byte, certificates []cloudinit.Certificate) (ctrl.Result, error) {
	in, missing, err := r.cloudInitInput(ctx, s.config, kind, kubeadmFile, certificates)
	if err != nil {
		return ctrl.Result{}, err
	}
	if missing != "" {
		s.wait("%s", missing)
		return ctrl.Result{RequeueAfter: r.WaitRequeue}, nil
	}
	data, err := cloudinit.Render(in)
	if err != nil {
		s.wait("The bootstrap data cannot be rendered: %v", err)
		return ctrl.Result{}, nil // only a change to the KubeadmConfig can fix it
	}
	if err := r.storeBootstrapData(ctx, s, data); err != nil {
		return ctrl.Result{}, err
	}
	return ctrl.Result{}, nil
}

func controlPlaneInitialized(c *clusterv1.Cluster) bool {
	return ptr.Deref(c.Status.Initialization.ControlPlaneInitialized, false)
}

// kubeadmCluster holds the values every Machine of the Cluster agrees on, and the owner's
// Kubernetes version.
func kubeadmCluster(c *clusterv1.Cluster, version string) kubeadm.Cluster {
	kc := kubeadm.Cluster{
		Name:              c.Name,
		KubernetesVersion: version,
		PodSubnets:        c.Spec.ClusterNetwork.Pods.CIDRBlocks,
		ServiceSubnets:    c.Spec.ClusterNetwork.Services.CIDRBlocks,
		ServiceDomain:     c.Spec.ClusterNetwork.ServiceDomain,
	}
	if c.Spec.ControlPlaneEndpoint.IsValid() {
		kc.ControlPlaneEndpoint = c.Spec.ControlPlaneEndpoint.String()
	}
	return kc
}
