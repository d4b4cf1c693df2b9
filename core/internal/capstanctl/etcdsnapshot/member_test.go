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

package etcdsnapshot

import (
	"context"
	"crypto/sha256"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"
	"go.etcd.io/etcd/api/v3/mvccpb"
	"google.golang.org/protobuf/proto"

	"capstan.dev/contracts/etcd"
)

// fakeMember is one member's answers; snapshot is what its Snapshot streams.
type fakeMember struct {
	status   etcd.MemberStatus
	statErr  error
	alarms   []etcd.Alarm
	snapshot []byte
	closed   bool
}

func (f *fakeMember) Members(context.Context) ([]etcd.Member, error) { return nil, nil }
func (f *fakeMember) Status(context.Context) (etcd.MemberStatus, error) {
	return f.status, f.statErr
}
func (f *fakeMember) Alarms(context.Context) ([]etcd.Alarm, error) { return f.alarms, nil }
func (f *fakeMember) MoveLeader(context.Context, uint64) error     { return nil }
func (f *fakeMember) RemoveMember(context.Context, uint64) error   { return nil }
func (f *fakeMember) Snapshot(_ context.Context, w io.Writer) (int64, error) {
	n, err := w.Write(f.snapshot)
	return int64(n), err
}
func (f *fakeMember) Close() { f.closed = true }

func connectTo(members map[string]*fakeMember) ConnectFunc {
	return func(_ context.Context, node string) (etcd.Client, error) {
		m, ok := members[node]
		if !ok {
			return nil, errors.New("port-forward refused")
		}
		return m, nil
	}
}

func TestChoose_AHealthyFollowerFirstTheLeaderOnlyWhenNoFollowerIs(t *testing.T) {
	ctx := context.Background()
	leader := func() *fakeMember { return &fakeMember{status: etcd.MemberStatus{ID: 1, Leader: 1}} }
	follower := func(id uint64) *fakeMember { return &fakeMember{status: etcd.MemberStatus{ID: id, Leader: 1}} }

	l, f2, f3 := leader(), follower(2), follower(3)
	m, err := Choose(ctx, []string{"a", "b", "c"}, connectTo(map[string]*fakeMember{"a": l, "b": f2, "c": f3}))
	require.NoError(t, err)
	require.Equal(t, "b", m.Node, "the first follower, not the leader tried before it")
	require.False(t, m.Leader)
	require.True(t, l.closed, "the leader's client is closed once a follower is chosen")
	require.False(t, f3.closed, "c was never dialled")

	sick := follower(2)
	sick.status.Errors = []string{"NOSPACE"}
	alarmed := follower(3)
	alarmed.alarms = []etcd.Alarm{{MemberID: 3, Type: "CORRUPT"}}
	noLeader := &fakeMember{status: etcd.MemberStatus{ID: 4}}
	l = leader()
	l.alarms = alarmed.alarms // an alarm on another member does not make the leader sick
	m, err = Choose(ctx, []string{"a", "b", "c", "d", "e"}, connectTo(map[string]*fakeMember{"a": l, "b": sick, "c": alarmed, "d": noLeader}))
	require.NoError(t, err)
	require.Equal(t, "a", m.Node, "no follower is healthy: the leader")
	require.True(t, m.Leader)
	require.True(t, sick.closed && alarmed.closed && noLeader.closed)

	_, err = Choose(ctx, []string{"b", "c", "e"}, connectTo(map[string]*fakeMember{"b": sick, "c": alarmed}))
	require.EqualError(t, err, "no healthy etcd member to snapshot (tried through Pods in kube-system): "+
		"etcd-b: member 2 reports NOSPACE; etcd-c: member 3: alarm CORRUPT raised; etcd-e: port-forward refused")
}

// testSnapshot is an etcd snapshot as a member streams it: a bbolt database whose key bucket
// holds key at revision rev, then the sha256 of the database.
func testSnapshot(t *testing.T, key string, rev uint64) []byte {
	t.Helper()
	path := filepath.Join(t.TempDir(), "db")
	db, err := bolt.Open(path, 0o600, nil)
	require.NoError(t, err)
	require.NoError(t, db.Update(func(tx *bolt.Tx) error {
		b, err := tx.CreateBucket([]byte("key"))
		if err != nil {
			return err
		}
		v, err := proto.Marshal(&mvccpb.KeyValue{Key: []byte(key), Value: []byte("v"), ModRevision: int64(rev)})
		if err != nil {
			return err
		}
		k := make([]byte, 17)
		k[7], k[8] = byte(rev), '_'
		return b.Put(k, v)
	}))
	require.NoError(t, db.Close())
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	sum := sha256.Sum256(data)
	return append(data, sum[:]...)
}

func TestSave_RenamesOnlyAVerifiedSnapshot(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	good := testSnapshot(t, "/registry/configmaps/default/a", 7)

	path := filepath.Join(dir, "snap.db")
	info, err := Save(ctx, &fakeMember{snapshot: good}, path)
	require.NoError(t, err)
	require.Equal(t, int64(7), info.Revision)
	require.Equal(t, 1, info.Keys)
	require.Equal(t, int64(len(good)), info.Size)
	st, err := os.Stat(path)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o600), st.Mode().Perm(), "it holds the cluster's Secrets")

	bad := append([]byte(nil), good...)
	bad[100] ^= 1
	other := filepath.Join(dir, "bad.db")
	_, err = Save(ctx, &fakeMember{snapshot: bad}, other)
	require.ErrorIs(t, err, etcd.ErrSnapshotCorrupt)
	require.ErrorContains(t, err, "nothing was written to "+other)
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, entries, 1, "only the good snapshot: no file under the final name, no temporary file left")
}
