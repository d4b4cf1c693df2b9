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
	"errors"
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/secret"
)

// MissingError says which certificate Secrets do not exist (Lookup) so the caller can say
// what it waits for.
type MissingError struct {
	Names []string
}

func (e *MissingError) Error() string {
	return fmt.Sprintf("Secret(s) %s do not exist", strings.Join(e.Names, ", "))
}

// Lookup reads the certificate Secrets of cluster for purposes through r (uncached). All must
// exist and hold both keys: a missing Secret gives a *MissingError naming every missing one.
func Lookup(ctx context.Context, r client.Reader, cluster client.ObjectKey, purposes ...secret.Purpose) (Set, error) {
	set := Set{}
	var missing []string
	for _, p := range purposes {
		kp, err := read(ctx, r, cluster, p)
		switch {
		case apierrors.IsNotFound(err):
			missing = append(missing, secret.Name(cluster.Name, p))
		case err != nil:
			return nil, err
		default:
			set[p] = kp
		}
	}
	if len(missing) > 0 {
		return set, &MissingError{Names: missing}
	}
	return set, nil
}

// LookupOrGenerate returns all four certificate Secrets of cluster (secret.CertificatePurposes),
// creating the missing ones with w: type cluster.x-k8s.io/secret, the cluster-name label and
// owner as their only owner reference. An existing Secret is never modified; a create that
// finds the Secret already there (another reconciler, or a restart, got there first) reads it
// back through r and uses what is stored.
func LookupOrGenerate(ctx context.Context, r client.Reader, w client.Writer, cluster client.ObjectKey, owner metav1.OwnerReference, now time.Time) (Set, error) {
	set, err := Lookup(ctx, r, cluster, secret.CertificatePurposes...)
	var missing *MissingError
	if err == nil || !errors.As(err, &missing) {
		return set, err
	}
	for _, p := range secret.CertificatePurposes {
		if _, ok := set[p]; ok {
			continue
		}
		kp, err := Generate(p, now)
		if err != nil {
			return nil, err
		}
		s := NewSecret(cluster, kp, owner)
		err = w.Create(ctx, s)
		switch {
		case apierrors.IsAlreadyExists(err):
			if kp, err = read(ctx, r, cluster, p); err != nil {
				return nil, fmt.Errorf("re-reading Secret %s after losing the race to create it: %w", s.Name, err)
			}
		case err != nil:
			return nil, fmt.Errorf("creating Secret %s/%s: %w", s.Namespace, s.Name, err)
		}
		set[p] = kp
	}
	return set, nil
}

// NewSecret returns the Secret that stores kp for cluster.
func NewSecret(cluster client.ObjectKey, kp *KeyPair, owner metav1.OwnerReference) *corev1.Secret {
	return &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{
			Name:            secret.Name(cluster.Name, kp.Purpose),
			Namespace:       cluster.Namespace,
			Labels:          map[string]string{clusterv1.ClusterNameLabel: cluster.Name},
			OwnerReferences: []metav1.OwnerReference{owner},
		},
		Type: clusterv1.ClusterSecretType,
		Data: map[string][]byte{secret.TLSCrtDataName: kp.Cert, secret.TLSKeyDataName: kp.Key},
	}
}

// read returns the key pair stored for p; a NotFound error is returned as is.
func read(ctx context.Context, r client.Reader, cluster client.ObjectKey, p secret.Purpose) (*KeyPair, error) {
	key := client.ObjectKey{Namespace: cluster.Namespace, Name: secret.Name(cluster.Name, p)}
	s := &corev1.Secret{}
	if err := r.Get(ctx, key, s); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, err
		}
		return nil, fmt.Errorf("reading Secret %s: %w", key, err)
	}
	kp := &KeyPair{Purpose: p, Cert: s.Data[secret.TLSCrtDataName], Key: s.Data[secret.TLSKeyDataName]}
	if len(kp.Cert) == 0 || len(kp.Key) == 0 {
		return nil, fmt.Errorf("the Secret %s must hold both %s and %s: restore them, or delete the Secret before the control plane is initialized to have it generated",
			key, secret.TLSCrtDataName, secret.TLSKeyDataName)
	}
	return kp, nil
}
