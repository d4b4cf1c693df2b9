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

package etcdrestore

import (
	"bytes"
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"

	"capstan.dev/contracts/etcd"
)

// kubeSystemKey is where the API server stores Namespace kube-system, whose UID a cluster keeps
// for its whole life: the identity a snapshot is checked against.
const kubeSystemKey = "/registry/namespaces/" + metav1.NamespaceSystem

// protobufMagic prefixes every object the API server stores in its protobuf encoding.
var protobufMagic = []byte{0x6b, 0x38, 0x73, 0x00}

// snapshotClusterUID reads the UID of Namespace kube-system from the snapshot at path.
func snapshotClusterUID(path string) (types.UID, error) {
	value, found, err := etcd.SnapshotValue(path, kubeSystemKey)
	if err != nil {
		return "", err
	}
	if !found {
		return "", fmt.Errorf("%s holds no %s: it is not a snapshot of a Kubernetes cluster's etcd", path, kubeSystemKey)
	}
	ns := &corev1.Namespace{}
	codecs := scheme.Codecs.UniversalDeserializer()
	if !bytes.HasPrefix(value, protobufMagic) && !bytes.HasPrefix(value, []byte("{")) {
		return "", fmt.Errorf("%s: the value of %s is neither protobuf nor JSON (encrypted at rest?): the snapshot's cluster cannot be told", path, kubeSystemKey)
	}
	if _, _, err := codecs.Decode(value, nil, ns); err != nil {
		return "", fmt.Errorf("%s: decoding %s: %w", path, kubeSystemKey, err)
	}
	return ns.UID, nil
}

// checkSameCluster refuses a snapshot of another cluster: its kube-system Namespace must have
// the UID of the workload cluster's.
func checkSameCluster(ctx context.Context, cs kubernetes.Interface, path, cluster string) error {
	want, err := snapshotClusterUID(path)
	if err != nil {
		return err
	}
	ns, err := cs.CoreV1().Namespaces().Get(ctx, metav1.NamespaceSystem, metav1.GetOptions{})
	if err != nil {
		return fmt.Errorf("reading Namespace kube-system of cluster %s to check the snapshot is of it: %w", cluster, err)
	}
	if ns.UID != want {
		return fmt.Errorf("%s is a snapshot of another cluster: its kube-system Namespace has UID %s, cluster %s's has %s; restore a snapshot taken of %s",
			path, want, cluster, ns.UID, cluster)
	}
	return nil
}
