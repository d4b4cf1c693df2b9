package ctltest

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"
	"go.etcd.io/etcd/api/v3/mvccpb"
	"google.golang.org/protobuf/proto"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/scheme"
)

// EtcdSnapshot writes an etcd snapshot file holding keys (one revision each, in key order, from
// revision 2) as etcd's snapshot stream does: a bbolt database of a key bucket, and the sha256
// of it appended. It returns the file's path.
func EtcdSnapshot(t *testing.T, keys map[string][]byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "snapshot.db")
	db, err := bolt.Open(path, 0o600, nil)
	require.NoError(t, err)
	names := make([]string, 0, len(keys))
	for k := range keys {
		names = append(names, k)
	}
	sort.Strings(names)
	require.NoError(t, db.Update(func(tx *bolt.Tx) error {
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
	require.NoError(t, db.Close())
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	sum := sha256.Sum256(data)
	require.NoError(t, os.WriteFile(path, append(data, sum[:]...), 0o600))
	return path
}

// KubeSystemNamespace is Namespace kube-system with uid as the API server stores it (protobuf),
// under its etcd key: a snapshot's cluster identity.
func KubeSystemNamespace(t *testing.T, uid types.UID) (string, []byte) {
	t.Helper()
	ns := &corev1.Namespace{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Namespace"},
		ObjectMeta: metav1.ObjectMeta{Name: metav1.NamespaceSystem, UID: uid}}
	var buf bytes.Buffer
	require.NoError(t, protobuf.NewSerializer(scheme.Scheme, scheme.Scheme).Encode(ns, &buf))
	return "/registry/namespaces/kube-system", buf.Bytes()
}
