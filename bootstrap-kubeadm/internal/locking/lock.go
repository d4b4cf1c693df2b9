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

package locking

import (
	"context"
	"encoding/json"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/owner"
)

// InformationKey is the ConfigMap key holding the lock's JSON, as upstream names it.
const InformationKey = "lock-information"

// maxAttempts bounds Acquire's loop: create, find a stale lock, release it, create again.
const maxAttempts = 3

// Information is the content of the lock.
type Information struct {
	MachineName string `json:"machineName"`
}

// InitLock takes and releases the init lock of a Cluster.
type InitLock struct {
	// Reader reads the lock and the holder Machine; it must be uncached.
	Reader client.Reader
	// Writer creates and deletes the lock.
	Writer client.Writer
}

// Name is the name of the lock ConfigMap of a Cluster.
func Name(cluster string) string { return cluster + "-lock" }

// Acquire takes the init lock of cluster for machine. It returns true when machine holds the
// lock (now or already); otherwise holder names the Machine that does.
func (l *InitLock) Acquire(ctx context.Context, cluster *clusterv1.Cluster, machine *clusterv1.Machine) (acquired bool, holder string, err error) {
	for range maxAttempts {
		cm, info, err := l.read(ctx, cluster)
		if err != nil {
			return false, "", err
		}
		if cm == nil {
			err := l.Writer.Create(ctx, newLock(cluster, machine.Name))
			if apierrors.IsAlreadyExists(err) {
				continue // another Machine was quicker: see who
			}
			if err != nil {
				return false, "", fmt.Errorf("creating the init lock ConfigMap %s/%s: %w", cluster.Namespace, Name(cluster.Name), err)
			}
			return true, machine.Name, nil
		}
		if info.MachineName == machine.Name {
			return true, machine.Name, nil
		}
		err = l.Reader.Get(ctx, client.ObjectKey{Namespace: cluster.Namespace, Name: info.MachineName}, &clusterv1.Machine{})
		if err == nil {
			return false, info.MachineName, nil
		}
		if !apierrors.IsNotFound(err) {
			return false, "", fmt.Errorf("reading Machine %s, which holds the init lock: %w", info.MachineName, err)
		}
		if err := l.delete(ctx, cm); err != nil {
			return false, "", fmt.Errorf("releasing the init lock of Machine %s, which no longer exists: %w", info.MachineName, err)
		}
	}
	return false, "", fmt.Errorf("the init lock ConfigMap %s/%s kept changing while it was being taken: retrying", cluster.Namespace, Name(cluster.Name))
}

// Release deletes the init lock of cluster, if there is one.
func (l *InitLock) Release(ctx context.Context, cluster *clusterv1.Cluster) error {
	cm := &corev1.ConfigMap{}
	err := l.Reader.Get(ctx, client.ObjectKey{Namespace: cluster.Namespace, Name: Name(cluster.Name)}, cm)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("reading the init lock ConfigMap %s/%s: %w", cluster.Namespace, Name(cluster.Name), err)
	}
	return l.delete(ctx, cm)
}

// read returns the lock and its content, or a nil ConfigMap when there is none.
func (l *InitLock) read(ctx context.Context, cluster *clusterv1.Cluster) (*corev1.ConfigMap, Information, error) {
	cm := &corev1.ConfigMap{}
	key := client.ObjectKey{Namespace: cluster.Namespace, Name: Name(cluster.Name)}
	if err := l.Reader.Get(ctx, key, cm); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, Information{}, nil
		}
		return nil, Information{}, fmt.Errorf("reading the init lock ConfigMap %s: %w", key, err)
	}
	var info Information
	if err := json.Unmarshal([]byte(cm.Data[InformationKey]), &info); err != nil || info.MachineName == "" {
		return nil, Information{}, fmt.Errorf("the init lock ConfigMap %s has no valid %q (want {\"machineName\": \"...\"}): "+
			"delete the ConfigMap if no control plane Machine is running kubeadm init", key, InformationKey)
	}
	return cm, info, nil
}

// delete removes exactly the lock that was read: a lock re-created since then stays.
func (l *InitLock) delete(ctx context.Context, cm *corev1.ConfigMap) error {
	uid, rv := cm.UID, cm.ResourceVersion
	err := l.Writer.Delete(ctx, cm, &client.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid, ResourceVersion: &rv}})
	if apierrors.IsNotFound(err) || apierrors.IsConflict(err) {
		return nil // already gone, or replaced by a newer lock: the next Acquire reads it
	}
	return err
}

func newLock(cluster *clusterv1.Cluster, machine string) *corev1.ConfigMap {
	data, _ := json.Marshal(Information{MachineName: machine}) // a struct of one string cannot fail
	return &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{
			Name:            Name(cluster.Name),
			Namespace:       cluster.Namespace,
			Labels:          map[string]string{clusterv1.ClusterNameLabel: cluster.Name},
			OwnerReferences: []metav1.OwnerReference{owner.ClusterReference(cluster)},
		},
		Data: map[string]string{InformationKey: string(data)},
	}
}
