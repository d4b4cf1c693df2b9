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
	"cmp"
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	bootstrapv1 "capstan.dev/bootstrap-kubeadm/api/bootstrap/v1beta2"
	"capstan.dev/bootstrap-kubeadm/internal/certs"
	"capstan.dev/bootstrap-kubeadm/internal/cloudinit"
	"capstan.dev/bootstrap-kubeadm/internal/ignition"
	"capstan.dev/bootstrap-kubeadm/internal/kubeadm"
	"capstan.dev/bootstrap-kubeadm/internal/locking"
	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/events"
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

	cc := s.config.Spec.ClusterConfiguration
	set, err := certs.LookupOrGenerate(ctx, r.APIReader, r.Client, clusterKey(c), owner.ClusterReference(c), time.Now(), certs.PlanFor(cc))
	if result, done, err := s.certificatesMissing(err, r.WaitRequeue, cc); done {
		return result, err
	}
	kubeadmFile, err := kubeadm.Init(s.config.Spec, kubeadmCluster(c, m.Spec.Version))
	if err != nil {
		return r.incomplete(s, err)
	}
	return r.renderAndStore(ctx, s, cloudinit.Init, kubeadmFile, set.Files(cc))
}

// certificatesMissing records the outcome of reading the cluster certificates: a missing Secret
// is waited for (the first control plane Machine generates the CAs; the user creates those of an
// external etcd); done says the caller must return result and err.
func (s *scope) certificatesMissing(err error, requeue time.Duration, cc bootstrapv1.ClusterConfiguration) (result ctrl.Result, done bool, _ error) {
	var missing *certs.MissingError
	switch {
	case errors.As(err, &missing):
		s.certs = &certsResult{missing: missing.Names}
		if cc.Etcd.External.IsDefined() {
			s.wait("Waiting for the cluster certificates %v: with clusterConfiguration.etcd.external, create Secret %s with the etcd CA certificate (tls.crt) and Secret %s with the API server's etcd client certificate and key (tls.crt, tls.key); the first control plane Machine generates the others",
				missing.Names, secret.Name(s.cluster.Name, secret.EtcdCA), secret.Name(s.cluster.Name, secret.APIServerEtcdClient))
		} else {
			s.wait("Waiting for the cluster certificates %v, which the first control plane Machine generates", missing.Names)
		}
		return ctrl.Result{RequeueAfter: requeue}, true, nil
	case err != nil:
		s.certs = &certsResult{err: err}
		return ctrl.Result{}, true, err
	}
	s.certs = &certsResult{}
	return ctrl.Result{}, false, nil
}

// reconcileJoin renders "kubeadm join" data: control plane Machines get the certificates,
// workers (Machines and MachinePools) only the CA's pin.
func (r *Reconciler) reconcileJoin(ctx context.Context, s *scope, role kubeadm.Role) (ctrl.Result, error) {
	cfg, c := s.config, s.cluster
	var set certs.Set
	var err error
	if role == kubeadm.ControlPlane {
		set, err = certs.LookupAll(ctx, r.APIReader, clusterKey(c), certs.PlanFor(cfg.Spec.ClusterConfiguration))
	} else {
		set, err = certs.Lookup(ctx, r.APIReader, clusterKey(c), secret.ClusterCA)
	}
	if result, done, err := s.certificatesMissing(err, r.WaitRequeue, cfg.Spec.ClusterConfiguration); done {
		return result, err
	}

	// Render from a copy: only the token is written back to the spec (see tokenDiscovery).
	spec := cfg.Spec.DeepCopy()
	var extraFiles []cloudinit.File
	if file := spec.JoinConfiguration.Discovery.File; file.KubeConfigPath != "" {
		f, wait, err := discoveryKubeconfig(file, c, set[secret.ClusterCA].Cert)
		if err != nil || wait != "" {
			s.wait("%s", cmp.Or(wait, fmt.Sprintf("The discovery kubeconfig cannot be generated: %v", err)))
			return ctrl.Result{}, nil // a change to the KubeadmConfig or the Cluster brings us back
		}
		extraFiles = append(extraFiles, f...)
	} else if result, done, err := r.tokenDiscovery(ctx, s, spec, set); done {
		return result, err
	}

	kubeadmFile, err := kubeadm.Join(*spec, kubeadmCluster(c, s.owner.spec().Version), role)
	if err != nil {
		return r.incomplete(s, err)
	}
	kind, files := cloudinit.JoinWorker, []cloudinit.Certificate(nil)
	if role == kubeadm.ControlPlane {
		kind, files = cloudinit.JoinControlPlane, set.Files(spec.ClusterConfiguration)
	}
	return r.renderAndStore(ctx, s, kind, kubeadmFile, files, extraFiles...)
}

// tokenDiscovery completes bootstrap token discovery in spec (a copy of the KubeadmConfig's):
// the CA pin from the cluster CA and, when the spec has no token, a new bootstrap token, which
// is written back to the KubeadmConfig before any data refers to it. done says the caller must
// return result and err.
func (r *Reconciler) tokenDiscovery(ctx context.Context, s *scope, spec *bootstrapv1.KubeadmConfigSpec, set certs.Set) (result ctrl.Result, done bool, _ error) {
	cfg, c := s.config, s.cluster
	discovery := &spec.JoinConfiguration.Discovery.BootstrapToken
	if discovery.APIServerEndpoint == "" && !c.Spec.ControlPlaneEndpoint.IsValid() {
		s.wait("Waiting for Cluster %s to have spec.controlPlaneEndpoint, the address joining nodes discover the cluster at", c.Name)
		return ctrl.Result{}, true, nil // the Cluster watch brings us back
	}
	if len(discovery.CACertHashes) == 0 && !ptr.Deref(discovery.UnsafeSkipCAVerification, false) {
		hash, err := certs.CACertHash(set[secret.ClusterCA].Cert)
		if err != nil {
			s.certs = &certsResult{err: fmt.Errorf("Secret %s: %w", secret.Name(c.Name, secret.ClusterCA), err)}
			s.wait("Waiting for a valid cluster CA in Secret %s: %v", secret.Name(c.Name, secret.ClusterCA), err)
			return ctrl.Result{}, true, nil // a broken CA does not heal by retrying
		}
		discovery.CACertHashes = []string{hash}
	}
	if discovery.Token == "" {
		token, err := r.createBootstrapToken(ctx, c)
		if errors.Is(err, remote.ErrClusterNotConnected) {
			s.wait("Waiting for the connection to the workload cluster of Cluster %s (through Secret %s) to create a bootstrap token",
				c.Name, secret.Name(c.Name, secret.Kubeconfig))
			return ctrl.Result{}, true, nil // the ClusterCache's source brings us back on connect
		}
		if err != nil {
			return ctrl.Result{}, true, err
		}
		// The token is kept in the spec, as upstream does, and written before any data refers
		// to it: the deferred patch stores it (guarded by resourceVersion, so a reconcile that
		// read a stale KubeadmConfig cannot store a second token), and the update brings us
		// back to render with it. Rendering in the same reconcile would compute the status
		// for a generation the spec write is about to replace.
		setManagedToken(cfg, token)
		s.wait("Created a bootstrap token in the workload cluster of Cluster %s: writing the bootstrap data next", c.Name)
		return ctrl.Result{}, true, nil
	}
	return ctrl.Result{}, false, nil
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

// renderAndStore renders the bootstrap data in the KubeadmConfig's format and stores it in the
// data Secret.
func (r *Reconciler) renderAndStore(ctx context.Context, s *scope, kind cloudinit.Kind, kubeadmFile []byte, certificates []cloudinit.Certificate, extraFiles ...cloudinit.File) (ctrl.Result, error) {
	tmpl, wait, err := r.templateData(ctx, s, kind)
	if err != nil {
		return ctrl.Result{}, err
	}
	if wait != "" {
		s.wait("%s", wait)
		return ctrl.Result{RequeueAfter: r.WaitRequeue}, nil
	}
	in, missing, err := r.cloudInitInput(ctx, s.config, kind, tmpl, kubeadmFile, certificates, extraFiles...)
	if err != nil {
		return ctrl.Result{}, err
	}
	if missing != "" {
		s.wait("%s", missing)
		return ctrl.Result{RequeueAfter: r.WaitRequeue}, nil
	}
	data, err := r.render(ctx, s.config, in)
	if err != nil {
		s.wait("The bootstrap data cannot be rendered: %v", err)
		return ctrl.Result{}, nil // only a change to the KubeadmConfig can fix it
	}
	if err := r.storeBootstrapData(ctx, s, data); err != nil {
		return ctrl.Result{}, err
	}
	return ctrl.Result{}, nil
}

// render renders in as spec.format says: a cloud-config document, or an Ignition config with
// spec.ignition's additionalConfig merged. What additionalConfig holds that Ignition data cannot
// carry is, without strict, logged and recorded as a Warning Event on the KubeadmConfig (the
// data is still written: upstream likewise only logs the transpiler's warnings).
func (r *Reconciler) render(ctx context.Context, cfg *bootstrapv1.KubeadmConfig, in cloudinit.Input) ([]byte, error) {
	if cfg.Spec.Format != bootstrapv1.Ignition {
		return cloudinit.Render(in)
	}
	clc := cfg.Spec.Ignition.ContainerLinuxConfig
	data, warnings, err := ignition.Render(in, ignition.AdditionalConfig{CLC: clc.AdditionalConfig, Strict: ptr.Deref(clc.Strict, false)})
	if err != nil {
		return nil, err
	}
	if len(warnings) > 0 {
		msg := strings.Join(warnings, "; ")
		ctrl.LoggerFrom(ctx).Info("Parts of spec.ignition.containerLinuxConfig.additionalConfig are not in the bootstrap data", "warnings", msg)
		r.Recorder.Eventf(cfg, nil, events.Warning, ReasonIgnitionConfigIgnored, "Render",
			"spec.ignition.containerLinuxConfig.additionalConfig: %s (set strict: true to refuse it instead)", msg)
	}
	return data, nil
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
