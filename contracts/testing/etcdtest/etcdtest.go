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

// Package etcdtest builds etcd snapshots for tests: the file a member's snapshot stream writes
// (a bbolt database with a key bucket, etcd's sha256 appended), holding the keys a test names.
package etcdtest

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"os"
	"path/filepath"
	"sort"
	"testing"

	bolt "go.etcd.io/bbolt"
	"go.etcd.io/etcd/api/v3/mvccpb"
	"google.golang.org/protobuf/proto"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/scheme"
)

// Snapshot returns a snapshot stream holding keys, one revision each in key order from
// revision 2 (so the snapshot's revision is len(keys)+1).
func Snapshot(t testing.TB, keys map[string][]byte) []byte {
	t.Helper()
	path := filepath.Join(t.TempDir(), "db")
	db, err := bolt.Open(path, 0o600, nil)
	must(t, err)
	names := make([]string, 0, len(keys))
	for k := range keys {
		names = append(names, k)
	}
	sort.Strings(names)
	must(t, db.Update(func(tx *bolt.Tx) error {
		b, err := tx.CreateBucket([]byte("key"))
		if err != nil {
			return err
		}
		if _, err := tx.CreateBucket([]byte("meta")); err != nil {
			return err
		}
		for i, k := range names {
			rev := int64(i + 2)
			revKey := make([]byte, 17)
			binary.BigEndian.PutUint64(revKey, uint64(rev))
			revKey[8] = '_'
			v, err := proto.Marshal(&mvccpb.KeyValue{Key: []byte(k), Value: keys[k], CreateRevision: rev, ModRevision: rev, Version: 1})
			if err != nil {
				return err
			}
			if err := b.Put(revKey, v); err != nil {
				return err
			}
		}
		return nil
	}))
	must(t, db.Close())
	data, err := os.ReadFile(path)
	must(t, err)
	sum := sha256.Sum256(data)
	return append(data, sum[:]...)
}

// WriteSnapshot writes Snapshot(keys) to a file in a temporary directory and returns its path.
func WriteSnapshot(t testing.TB, keys map[string][]byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "snapshot.db")
	must(t, os.WriteFile(path, Snapshot(t, keys), 0o600))
	return path
}

// KubeSystemNamespace is Namespace kube-system with uid as the API server stores it (protobuf),
// and its etcd key: a snapshot's cluster identity.
func KubeSystemNamespace(t testing.TB, uid types.UID) (string, []byte) {
	t.Helper()
	ns := &corev1.Namespace{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Namespace"},
		ObjectMeta: metav1.ObjectMeta{Name: metav1.NamespaceSystem, UID: uid}}
	var buf bytes.Buffer
	must(t, protobuf.NewSerializer(scheme.Scheme, scheme.Scheme).Encode(ns, &buf))
	return "/registry/namespaces/" + metav1.NamespaceSystem, buf.Bytes()
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
