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
	"maps"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	bootstrapv1 "capstan.dev/bootstrap-kubeadm/api/bootstrap/v1beta2"
	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/secret"
)

// Plan says which key pairs a cluster has and how the missing ones are obtained.
type Plan struct {
	// Options say how missing key pairs are generated.
	Options Options
	// ExternalEtcd means etcd is an existing cluster: its CA certificate (Secret <cluster>-etcd,
	// tls.crt only) and the API server's client key pair (<cluster>-apiserver-etcd-client) are
	// provided by the user and never generated.
	ExternalEtcd bool
}

// PlanFor is the plan of a cluster configured by cc: its encryptionAlgorithm,
// caCertificateValidityPeriodDays and etcd.external.
func PlanFor(cc bootstrapv1.ClusterConfiguration) Plan {
	return Plan{
		Options:      Options{Algorithm: cc.EncryptionAlgorithm, CAValidity: time.Duration(cc.CACertificateValidityPeriodDays) * 24 * time.Hour},
		ExternalEtcd: cc.Etcd.External.IsDefined(),
	}
}

// Generated are the purposes the provider generates when they are missing.
func (p Plan) Generated() []secret.Purpose {
	if p.ExternalEtcd {
		return []secret.Purpose{secret.ClusterCA, secret.FrontProxyCA, secret.ServiceAccount}
	}
	return secret.CertificatePurposes
}

// Provided are the purposes the user must create.
func (p Plan) Provided() []secret.Purpose {
	if p.ExternalEtcd {
		return []secret.Purpose{secret.EtcdCA, secret.APIServerEtcdClient}
	}
	return nil
}

// LookupAll reads every key pair of the plan, generated and provided, through r (uncached); a
// missing Secret gives a *MissingError naming every missing one.
func LookupAll(ctx context.Context, r client.Reader, cluster client.ObjectKey, plan Plan) (Set, error) {
	set, missing, err := lookup(ctx, r, cluster, false, plan.Generated()...)
	if err != nil {
		return nil, err
	}
	provided, missingProvided, err := lookup(ctx, r, cluster, true, plan.Provided()...)
	if err != nil {
		return nil, err
	}
	maps.Copy(set, provided)
	return set, missingError(append(missing, missingProvided...))
}

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
	set, missing, err := lookup(ctx, r, cluster, false, purposes...)
	if err != nil {
		return nil, err
	}
	return set, missingError(missing)
}

// lookup reads the Secrets of purposes, returning the names of the missing ones; provided says
// they are the user's (see readPair).
func lookup(ctx context.Context, r client.Reader, cluster client.ObjectKey, provided bool, purposes ...secret.Purpose) (Set, []string, error) {
	set := Set{}
	var missing []string
	for _, p := range purposes {
		kp, err := readPair(ctx, r, cluster, p, provided)
		switch {
		case apierrors.IsNotFound(err):
			missing = append(missing, secret.Name(cluster.Name, p))
		case err != nil:
			return nil, nil, err
		default:
			set[p] = kp
		}
	}
	return set, missing, nil
}

// missingError is a *MissingError naming missing, or nil when none is.
func missingError(missing []string) error {
	if len(missing) == 0 {
		return nil
	}
	return &MissingError{Names: missing}
}

// LookupOrGenerate returns the key pairs of the plan: the generated ones (all four of
// secret.CertificatePurposes with stacked etcd), creating the missing ones with w (type
// cluster.x-k8s.io/secret, the cluster-name label and owner as their only owner reference), then
// the provided ones, which are only read (a *MissingError names those missing). An existing
// Secret is never modified; a create that finds the Secret already there (another reconciler, or
// a restart, got there first) reads it back through r and uses what is stored.
func LookupOrGenerate(ctx context.Context, r client.Reader, w client.Writer, cluster client.ObjectKey, owner metav1.OwnerReference, now time.Time, plan Plan) (Set, error) {
	set, err := Lookup(ctx, r, cluster, plan.Generated()...)
	var missing *MissingError
	if err != nil && !errors.As(err, &missing) {
		return set, err
	}
	for _, p := range plan.Generated() {
		if _, ok := set[p]; ok {
			continue
		}
		kp, err := GenerateWith(p, now, plan.Options)
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
	provided, missingProvided, err := lookup(ctx, r, cluster, true, plan.Provided()...)
	if err != nil {
		return nil, err
	}
	maps.Copy(set, provided)
	return set, missingError(missingProvided)
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
	return readPair(ctx, r, cluster, p, false)
}

// readPair reads the key pair stored for p. A provided one (external etcd) comes from the user:
// the etcd CA needs its certificate only.
func readPair(ctx context.Context, r client.Reader, cluster client.ObjectKey, p secret.Purpose, provided bool) (*KeyPair, error) {
	key := client.ObjectKey{Namespace: cluster.Namespace, Name: secret.Name(cluster.Name, p)}
	s := &corev1.Secret{}
	if err := r.Get(ctx, key, s); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, err
		}
		return nil, fmt.Errorf("reading Secret %s: %w", key, err)
	}
	kp := &KeyPair{Purpose: p, Cert: s.Data[secret.TLSCrtDataName], Key: s.Data[secret.TLSKeyDataName]}
	switch {
	case provided && p == secret.EtcdCA && len(kp.Cert) == 0:
		return nil, fmt.Errorf("the Secret %s must hold the external etcd cluster's CA certificate under %s", key, secret.TLSCrtDataName)
	case provided && p == secret.EtcdCA:
		return kp, nil
	case provided && (len(kp.Cert) == 0 || len(kp.Key) == 0):
		return nil, fmt.Errorf("the Secret %s must hold the external etcd client certificate and key of the API servers under %s and %s",
			key, secret.TLSCrtDataName, secret.TLSKeyDataName)
	case len(kp.Cert) == 0 || len(kp.Key) == 0:
		return nil, fmt.Errorf("the Secret %s must hold both %s and %s: restore them, or delete the Secret before the control plane is initialized to have it generated",
			key, secret.TLSCrtDataName, secret.TLSKeyDataName)
	}
	return kp, nil
}
