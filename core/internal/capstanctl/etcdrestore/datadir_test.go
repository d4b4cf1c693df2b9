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
	"archive/tar"
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"capstan.dev/contracts/etcd"
	"capstan.dev/contracts/testing/etcdtest"
)

// TestSnapshotClusterUID reads the UID of kube-system from a snapshot as the API server stores
// it (protobuf), and refuses a snapshot without it, or with a value it cannot decode.
func TestSnapshotClusterUID(t *testing.T) {
	key, ns := etcdtest.KubeSystemNamespace(t, "0d4d0c1e-5b1a-4c7f-9e7e-1f2a3b4c5d6e")
	uid, err := snapshotClusterUID(etcdtest.WriteSnapshot(t, map[string][]byte{key: ns, "/registry/other": []byte("x")}))
	require.NoError(t, err)
	require.EqualValues(t, "0d4d0c1e-5b1a-4c7f-9e7e-1f2a3b4c5d6e", uid)

	_, err = snapshotClusterUID(etcdtest.WriteSnapshot(t, map[string][]byte{"/registry/other": []byte("x")}))
	require.ErrorContains(t, err, "holds no /registry/namespaces/kube-system: it is not a snapshot of a Kubernetes cluster's etcd")

	_, err = snapshotClusterUID(etcdtest.WriteSnapshot(t, map[string][]byte{key: []byte("k8s:enc:aescbc:v1:key1:...")}))
	require.ErrorContains(t, err, "is neither protobuf nor JSON (encrypted at rest?)")
}

// TestRestoreDataDir restores a snapshot as one member of a cluster of three, as etcdutl
// snapshot restore would: a member/ directory whose database holds the snapshot's keys at a
// revision raised by revisionBump, and a WAL; packed for the node with every path under member/.
// A second restore into the same directory is refused (etcdutl never overwrites data).
func TestRestoreDataDir(t *testing.T) {
	key, ns := etcdtest.KubeSystemNamespace(t, "uid-1")
	snap := etcdtest.WriteSnapshot(t, map[string][]byte{key: ns, "/registry/configmaps/default/kept": []byte("v")})
	members := []etcd.Member{
		{Name: "cp-b", PeerURLs: []string{"https://10.0.0.3:2380"}},
		{Name: "cp-a", PeerURLs: []string{"https://10.0.0.2:2380"}},
		{Name: "cp-c", PeerURLs: []string{"https://10.0.0.4:2380"}},
	}
	require.Equal(t, "cp-a=https://10.0.0.2:2380,cp-b=https://10.0.0.3:2380,cp-c=https://10.0.0.4:2380", initialCluster(members))
	dir := filepath.Join(t.TempDir(), "cp-b")
	require.NoError(t, restoreDataDir(snap, members[0], members, "restore-test", dir))

	value, found, err := etcd.SnapshotValue(filepath.Join(dir, "member", "snap", "db"), "/registry/configmaps/default/kept")
	require.NoError(t, err)
	require.True(t, found)
	require.Equal(t, "v", string(value))
	keys, err := etcd.SnapshotKeys(filepath.Join(dir, "member", "snap", "db"), "/registry/")
	require.NoError(t, err)
	require.Len(t, keys, 2)

	var packed bytes.Buffer
	require.NoError(t, writeTarGz(&packed, dir))
	names := tarNames(t, packed.Bytes())
	require.Contains(t, names, "member/snap/db")
	require.Contains(t, names, "member/wal")
	for _, n := range names {
		require.Regexp(t, `^member(/|$)`, n)
	}
	require.Less(t, packed.Len(), 8<<20, "the preallocated WAL compresses")

	err = restoreDataDir(snap, members[0], members, "restore-test", dir)
	require.ErrorContains(t, err, "restoring "+snap+" as etcd member cp-b")
	require.ErrorContains(t, err, "not empty")
}

func tarNames(t *testing.T, data []byte) []string {
	t.Helper()
	gz, err := gzip.NewReader(bytes.NewReader(data))
	require.NoError(t, err)
	tr := tar.NewReader(gz)
	var names []string
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return names
		}
		require.NoError(t, err)
		names = append(names, h.Name)
	}
}
