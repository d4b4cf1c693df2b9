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
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"capstan.dev/contracts/testing/etcdtest"
)

// fakeMember is one member's answers; snapshot is what its Snapshot streams.
type fakeMember struct {
	status   MemberStatus
	statErr  error
	alarms   []Alarm
	snapshot []byte
	closed   bool
}

func (f *fakeMember) Members(context.Context) ([]Member, error) { return nil, nil }
func (f *fakeMember) Status(context.Context) (MemberStatus, error) {
	return f.status, f.statErr
}
func (f *fakeMember) Alarms(context.Context) ([]Alarm, error)    { return f.alarms, nil }
func (f *fakeMember) MoveLeader(context.Context, uint64) error   { return nil }
func (f *fakeMember) RemoveMember(context.Context, uint64) error { return nil }
func (f *fakeMember) Snapshot(_ context.Context, w io.Writer) (int64, error) {
	n, err := w.Write(f.snapshot)
	return int64(n), err
}
func (f *fakeMember) Close() { f.closed = true }

func connectTo(members map[string]*fakeMember) ConnectFunc {
	return func(_ context.Context, node string) (Client, error) {
		m, ok := members[node]
		if !ok {
			return nil, errors.New("port-forward refused")
		}
		return m, nil
	}
}

func TestChoose_AHealthyFollowerFirstTheLeaderOnlyWhenNoFollowerIs(t *testing.T) {
	ctx := context.Background()
	leader := func() *fakeMember { return &fakeMember{status: MemberStatus{ID: 1, Leader: 1}} }
	follower := func(id uint64) *fakeMember { return &fakeMember{status: MemberStatus{ID: id, Leader: 1}} }

	l, f2, f3 := leader(), follower(2), follower(3)
	m, err := ChooseFollower(ctx, []string{"a", "b", "c"}, connectTo(map[string]*fakeMember{"a": l, "b": f2, "c": f3}))
	require.NoError(t, err)
	require.Equal(t, "b", m.Node, "the first follower, not the leader tried before it")
	require.False(t, m.Leader)
	require.True(t, l.closed, "the leader's client is closed once a follower is chosen")
	require.False(t, f3.closed, "c was never dialled")

	sick := follower(2)
	sick.status.Errors = []string{"NOSPACE"}
	alarmed := follower(3)
	alarmed.alarms = []Alarm{{MemberID: 3, Type: "CORRUPT"}}
	noLeader := &fakeMember{status: MemberStatus{ID: 4}}
	l = leader()
	l.alarms = alarmed.alarms // an alarm on another member does not make the leader sick
	m, err = ChooseFollower(ctx, []string{"a", "b", "c", "d", "e"}, connectTo(map[string]*fakeMember{"a": l, "b": sick, "c": alarmed, "d": noLeader}))
	require.NoError(t, err)
	require.Equal(t, "a", m.Node, "no follower is healthy: the leader")
	require.True(t, m.Leader)
	require.True(t, sick.closed && alarmed.closed && noLeader.closed)

	_, err = ChooseFollower(ctx, []string{"b", "c", "e"}, connectTo(map[string]*fakeMember{"b": sick, "c": alarmed}))
	require.EqualError(t, err, "no healthy etcd member (tried through Pods in kube-system): "+
		"etcd-b: member 2 reports NOSPACE; etcd-c: member 3: alarm CORRUPT raised; etcd-e: port-forward refused")
}

func TestSave_RenamesOnlyAVerifiedSnapshot(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	good := etcdtest.Snapshot(t, map[string][]byte{"/registry/configmaps/default/a": []byte("v")})

	path := filepath.Join(dir, "snap.db")
	info, err := SaveSnapshot(ctx, &fakeMember{snapshot: good}, path)
	require.NoError(t, err)
	require.Equal(t, int64(2), info.Revision)
	require.Equal(t, 1, info.Keys)
	require.Equal(t, int64(len(good)), info.Size)
	st, err := os.Stat(path)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o600), st.Mode().Perm(), "it holds the cluster's Secrets")

	bad := append([]byte(nil), good...)
	bad[100] ^= 1
	other := filepath.Join(dir, "bad.db")
	_, err = SaveSnapshot(ctx, &fakeMember{snapshot: bad}, other)
	require.ErrorIs(t, err, ErrSnapshotCorrupt)
	require.ErrorContains(t, err, "nothing was written to "+other)
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, entries, 1, "only the good snapshot: no file under the final name, no temporary file left")
}

func TestIsPartialSnapshot_TheTemporaryFileOfSaveSnapshotOnly(t *testing.T) {
	name := SnapshotFileName("c1", time.Date(2026, 12, 7, 12, 0, 0, 0, time.UTC))
	require.True(t, IsPartialSnapshot("c1", "."+name+".part-123456"))
	require.False(t, IsPartialSnapshot("c1", name), "the snapshot itself")
	require.False(t, IsPartialSnapshot("c2", "."+name+".part-123456"), "another cluster's")
	require.False(t, IsPartialSnapshot("c1", ".notes.part-1"))
}
