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

package etcd

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// TestRealEtcd_SnapshotVerifiesAndACorruptByteFails snapshots a real etcd (client-cert-auth, the
// Client dialled at 127.0.0.1) after writing and deleting keys: the file holds etcd's sha256, its
// revision is the last write's, its live keys are those written and not deleted. One changed
// byte, or a cut-off file, fails verification with ErrSnapshotCorrupt and says why.
func TestRealEtcd_SnapshotVerifiesAndACorruptByteFails(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	e := startTLSEtcd(t)
	m, tlsCfg := e.first, e.clientTLS
	dir := e.dir
	c, err := New(ctx, m.clientAddr, tlsCfg, nil)
	require.NoError(t, err)
	defer c.Close()
	waitFor(t, ctx, "m1 to answer", func() error { _, err := c.Status(ctx); return err })

	raw, err := clientv3.New(clientv3.Config{Endpoints: []string{m.clientAddr}, TLS: tlsCfg, DialTimeout: 5 * time.Second})
	require.NoError(t, err)
	defer raw.Close()
	for i := range 50 {
		_, err := raw.Put(ctx, fmt.Sprintf("/registry/configmaps/default/cm-%02d", i), fmt.Sprintf("value %d", i))
		require.NoError(t, err)
	}
	_, err = raw.Delete(ctx, "/registry/configmaps/default/cm-00")
	require.NoError(t, err)
	_, err = raw.Put(ctx, "/registry/configmaps/default/cm-07", "value 7, updated")
	require.NoError(t, err)
	last, err := raw.Put(ctx, "/registry/other", "x")
	require.NoError(t, err)

	path := filepath.Join(dir, "snap.db")
	f, err := os.Create(path)
	require.NoError(t, err)
	size, err := c.Snapshot(ctx, f)
	require.NoError(t, err)
	require.NoError(t, f.Close())

	info, err := VerifySnapshot(path)
	require.NoError(t, err)
	require.Equal(t, size, info.Size)
	require.Equal(t, last.Header.Revision, info.Revision, "the revision of the last write before the snapshot")
	require.Equal(t, 50, info.Keys, "49 ConfigMaps left and /registry/other")
	require.Len(t, info.SHA256, 64)
	keys, err := SnapshotKeys(path, "/registry/configmaps/")
	require.NoError(t, err)
	require.Len(t, keys, 49)
	require.Equal(t, "/registry/configmaps/default/cm-01", keys[0], "the deleted cm-00 is not live")
	value, found, err := SnapshotValue(path, "/registry/configmaps/default/cm-07")
	require.NoError(t, err)
	require.True(t, found)
	require.Equal(t, "value 7, updated", string(value), "the latest of the key's revisions")
	_, found, err = SnapshotValue(path, "/registry/configmaps/default/cm-00")
	require.NoError(t, err)
	require.False(t, found, "a deleted key")
	_, found, err = SnapshotValue(path, "/registry/absent")
	require.NoError(t, err)
	require.False(t, found)

	// One byte changed in the data: the appended sha256 no longer matches.
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	corrupt := filepath.Join(dir, "corrupt.db")
	bad := append([]byte(nil), data...)
	bad[len(bad)/2] ^= 0xff
	require.NoError(t, os.WriteFile(corrupt, bad, 0o600))
	_, err = VerifySnapshot(corrupt)
	require.ErrorIs(t, err, ErrSnapshotCorrupt)
	require.ErrorContains(t, err, "the sha256 of its data is")

	// Cut off: not whole sectors plus the hash.
	cut := filepath.Join(dir, "cut.db")
	require.NoError(t, os.WriteFile(cut, data[:len(data)-1000], 0o600))
	_, err = VerifySnapshot(cut)
	require.ErrorIs(t, err, ErrSnapshotCorrupt)
	require.ErrorContains(t, err, "cut off")
}
