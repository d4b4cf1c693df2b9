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
	"bytes"
	"context"
	"fmt"
	"maps"
	"slices"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	bootstrapv1 "capstan.dev/bootstrap-kubeadm/api/bootstrap/v1beta2"
	"capstan.dev/bootstrap-kubeadm/internal/cloudinit"
	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
)

const (
	// dataKey and formatKey are the keys of the bootstrap data Secret: the contract's "value"
	// and CABPK's "format".
	dataKey   = "value"
	formatKey = "format"
)

// cloudInitInput resolves the KubeadmConfig into cloudinit's input. Files whose content comes
// from a Secret are read uncached; when one is missing, missing says which and nothing else is
// returned.
func (r *Reconciler) cloudInitInput(ctx context.Context, cfg *bootstrapv1.KubeadmConfig, kind cloudinit.Kind, kubeadmFile []byte, certificates []cloudinit.Certificate) (in cloudinit.Input, missing string, err error) {
	in = cloudinit.Input{
		Kind:                kind,
		KubeadmConfig:       kubeadmFile,
		Certificates:        certificates,
		PreKubeadmCommands:  slices.Clone(cfg.Spec.PreKubeadmCommands),
		PostKubeadmCommands: slices.Clone(cfg.Spec.PostKubeadmCommands),
		Verbosity:           cfg.Spec.Verbosity,
	}
	for _, f := range cfg.Spec.Files {
		content := []byte(f.Content)
		if f.ContentFrom.IsDefined() {
			ref := f.ContentFrom.Secret
			s := &corev1.Secret{}
			err := r.APIReader.Get(ctx, client.ObjectKey{Namespace: cfg.Namespace, Name: ref.Name}, s)
			if apierrors.IsNotFound(err) {
				return cloudinit.Input{}, fmt.Sprintf("Waiting for Secret %s, the content of file %s", ref.Name, f.Path), nil
			}
			if err != nil {
				return cloudinit.Input{}, "", fmt.Errorf("reading Secret %s for file %s: %w", ref.Name, f.Path, err)
			}
			value, ok := s.Data[ref.Key]
			if !ok {
				return cloudinit.Input{}, fmt.Sprintf("Waiting for key %q in Secret %s, the content of file %s", ref.Key, ref.Name, f.Path), nil
			}
			content = value
		}
		in.Files = append(in.Files, cloudinit.File{
			Path: f.Path, Owner: f.Owner, Permissions: f.Permissions,
			Encoding: cloudinit.Encoding(f.Encoding), Append: ptr.Deref(f.Append, false), Content: content,
		})
	}
	for _, u := range cfg.Spec.Users {
		in.Users = append(in.Users, cloudinit.User{
			Name: u.Name, Groups: u.Groups, HomeDir: u.HomeDir, Shell: u.Shell, Sudo: u.Sudo,
			LockPassword: u.LockPassword, SSHAuthorizedKeys: slices.Clone(u.SSHAuthorizedKeys),
		})
	}
	if len(cfg.Spec.NTP.Servers) > 0 || cfg.Spec.NTP.Enabled != nil {
		in.NTP = &cloudinit.NTP{Servers: slices.Clone(cfg.Spec.NTP.Servers), Enabled: cfg.Spec.NTP.Enabled}
	}
	return in, "", nil
}

// storeBootstrapData writes the data Secret and records it in the status. The Secret is created;
// if it already exists and this KubeadmConfig controls it (a reconcile that stopped before its
// status was written, or data rendered again with a new bootstrap token), it is updated in place
// with the new data, keeping its name; a Secret of the same name that belongs to something else
// is never touched.
func (r *Reconciler) storeBootstrapData(ctx context.Context, s *scope, data []byte) error {
	cfg := s.config
	desired := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{
			Name:      cfg.Name,
			Namespace: cfg.Namespace,
			Labels:    map[string]string{clusterv1.ClusterNameLabel: s.cluster.Name},
			OwnerReferences: []metav1.OwnerReference{{
				APIVersion: bootstrapv1.GroupVersion.String(), Kind: "KubeadmConfig", Name: cfg.Name, UID: cfg.UID,
				Controller: ptr.To(true),
			}},
		},
		Type: clusterv1.ClusterSecretType,
		Data: map[string][]byte{dataKey: data, formatKey: []byte(bootstrapv1.CloudConfig)},
	}
	var err error
	rerender := cfg.Status.DataSecretName == desired.Name
	if rerender {
		// Rendered again for a Secret the status names (a new bootstrap token): update it in
		// place, which also works where a create is refused (a namespace being deleted).
		err = r.updateOwnDataSecret(ctx, cfg, desired)
	}
	if !rerender || apierrors.IsNotFound(err) {
		ctrl.LoggerFrom(ctx).Info("Creating the bootstrap data Secret", "Secret", desired.Name)
		err = r.Client.Create(ctx, desired)
		if apierrors.IsAlreadyExists(err) {
			err = r.updateOwnDataSecret(ctx, cfg, desired)
		}
	}
	if err != nil {
		return err
	}
	cfg.Status.DataSecretName = desired.Name
	cfg.Status.Initialization.DataSecretCreated = ptr.To(true)
	return nil
}

func (r *Reconciler) updateOwnDataSecret(ctx context.Context, cfg *bootstrapv1.KubeadmConfig, desired *corev1.Secret) error {
	existing := &corev1.Secret{}
	if err := r.APIReader.Get(ctx, client.ObjectKeyFromObject(desired), existing); err != nil {
		return fmt.Errorf("reading the existing bootstrap data Secret %s: %w", desired.Name, err)
	}
	if !metav1.IsControlledBy(existing, cfg) {
		return fmt.Errorf("Secret %s/%s exists and is not controlled by this KubeadmConfig: delete or rename it so the bootstrap data can be written",
			existing.Namespace, existing.Name)
	}
	if existing.Type == desired.Type && maps.EqualFunc(existing.Data, desired.Data, bytes.Equal) &&
		existing.Labels[clusterv1.ClusterNameLabel] == desired.Labels[clusterv1.ClusterNameLabel] {
		return nil // rendering is deterministic: an earlier attempt already wrote this data
	}
	existing.Labels = desired.Labels
	existing.Type = desired.Type
	existing.Data = desired.Data
	ctrl.LoggerFrom(ctx).Info("Updating the bootstrap data Secret", "Secret", desired.Name)
	if err := r.Client.Update(ctx, existing); err != nil {
		return fmt.Errorf("updating the bootstrap data Secret %s: %w", desired.Name, err)
	}
	return nil
}
