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

package kubeadmcontrolplane

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"testing"

	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/envtest"
	"capstan.dev/contracts/etcd"
)

// fakeEtcd is a test double of one workload cluster's etcd: a member list, and hooks.
type fakeEtcd struct {
	mu      sync.Mutex
	members []etcd.Member
	nextID  uint64
	removed []string // names, in removal order
	dialed  []string // nodes connected through
	// afterRemove, when set, runs after a removal took effect; its error is RemoveMember's.
	afterRemove func(ctx context.Context, m etcd.Member) error
	// dialErr, when set, fails every connection.
	dialErr error
	// down holds, by node, why the member there does not answer (its Status fails): a
	// crash-looping etcd that stays listed. unreachable holds, by node, why its Pod cannot be
	// dialled.
	down, unreachable map[string]error
	// alarms are the raised alarms.
	alarms []etcd.Alarm
	// leader is the leading member's ID (0: the first member); removedLeaders the members removed
	// while they led.
	leader         uint64
	removedLeaders []string
	// snapshot is what Snapshot streams; snapshotNodes the nodes snapshotted through, in order.
	snapshot      []byte
	snapshotNodes []string
}

// leaderID is the leading member's ID; the caller holds mu.
func (f *fakeEtcd) leaderID() uint64 {
	if f.leader == 0 && len(f.members) > 0 {
		return f.members[0].ID
	}
	return f.leader
}

// setLeader makes the member on node lead.
func (f *fakeEtcd) setLeader(node string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, m := range f.members {
		if m.Name == node {
			f.leader = m.ID
		}
	}
}

func (c *fakeEtcdClient) MoveLeader(_ context.Context, transferee uint64) error {
	c.f.mu.Lock()
	defer c.f.mu.Unlock()
	for _, m := range c.f.members {
		if m.Name == c.node && m.ID == c.f.leaderID() {
			c.f.leader = transferee
			return nil
		}
	}
	return fmt.Errorf("moving the leadership through %s: etcdserver: not leader", c.node)
}

// fakeEtcds holds one double per Cluster (namespaces are unique per test).
var fakeEtcds sync.Map

func etcdOf(cluster client.ObjectKey) *fakeEtcd {
	v, _ := fakeEtcds.LoadOrStore(cluster, &fakeEtcd{nextID: 0x100})
	return v.(*fakeEtcd)
}

// fakeEtcdClientFor is the Reconciler's EtcdClientFor in tests.
func fakeEtcdClientFor(_ context.Context, c *clusterv1.Cluster, node string) (etcd.Client, error) {
	f := etcdOf(client.ObjectKeyFromObject(c))
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.dialErr != nil {
		return nil, f.dialErr
	}
	if err := f.unreachable[node]; err != nil {
		return nil, err
	}
	f.dialed = append(f.dialed, node)
	return &fakeEtcdClient{f: f, node: node}, nil
}

// setDown makes the member on node stop answering (err) or answer again (nil), staying listed.
func (f *fakeEtcd) setDown(node string, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.down == nil {
		f.down = map[string]error{}
	}
	f.down[node] = err
}

// setUnreachable makes the etcd Pod on node impossible to dial (err) or dialable again (nil).
func (f *fakeEtcd) setUnreachable(node string, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.unreachable == nil {
		f.unreachable = map[string]error{}
	}
	f.unreachable[node] = err
}

// raiseAlarm raises alarm typ on the member on node.
func (f *fakeEtcd) raiseAlarm(node, typ string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, m := range f.members {
		if m.Name == node {
			f.alarms = append(f.alarms, etcd.Alarm{MemberID: m.ID, Type: typ})
		}
	}
}

// add adds a started member and returns its ID.
func (f *fakeEtcd) add(name string) uint64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.nextID++
	f.members = append(f.members, etcd.Member{ID: f.nextID, Name: name,
		PeerURLs: []string{fmt.Sprintf("https://%s:2380", name)}, ClientURLs: []string{fmt.Sprintf("https://%s:2379", name)}})
	return f.nextID
}

func (f *fakeEtcd) names() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]string, 0, len(f.members))
	for _, m := range f.members {
		out = append(out, m.Name)
	}
	return out
}

func (f *fakeEtcd) removedNames() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.removed...)
}

func (f *fakeEtcd) setAfterRemove(h func(ctx context.Context, m etcd.Member) error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.afterRemove = h
}

// fakeEtcdClient is a connection through the etcd Pod of node.
type fakeEtcdClient struct {
	f    *fakeEtcd
	node string
}

func (c *fakeEtcdClient) Status(context.Context) (etcd.MemberStatus, error) {
	c.f.mu.Lock()
	defer c.f.mu.Unlock()
	if err := c.f.down[c.node]; err != nil {
		return etcd.MemberStatus{}, err
	}
	st := etcd.MemberStatus{ID: 0xdead, Leader: c.f.leaderID()} // an etcd that is not (or no longer) a listed member answers as another
	for _, m := range c.f.members {
		if m.Name == c.node {
			st.ID = m.ID
		}
	}
	return st, nil
}

func (c *fakeEtcdClient) Alarms(context.Context) ([]etcd.Alarm, error) {
	c.f.mu.Lock()
	defer c.f.mu.Unlock()
	return append([]etcd.Alarm(nil), c.f.alarms...), nil
}

func (c *fakeEtcdClient) Members(context.Context) ([]etcd.Member, error) {
	c.f.mu.Lock()
	defer c.f.mu.Unlock()
	if err := c.f.down[c.node]; err != nil {
		return nil, err
	}
	return append([]etcd.Member(nil), c.f.members...), nil
}

func (c *fakeEtcdClient) RemoveMember(ctx context.Context, id uint64) error {
	c.f.mu.Lock()
	var removed *etcd.Member
	for i, m := range c.f.members {
		if m.ID == id {
			removed = &m
			c.f.members = append(c.f.members[:i:i], c.f.members[i+1:]...)
			c.f.removed = append(c.f.removed, m.Name)
			if c.f.leaderID() == m.ID {
				c.f.removedLeaders = append(c.f.removedLeaders, m.Name)
				c.f.leader = 0 // a new election
			}
			break
		}
	}
	hook := c.f.afterRemove
	c.f.mu.Unlock()
	if removed == nil {
		return fmt.Errorf("removing member %x: %w", id, etcd.ErrMemberNotFound)
	}
	if hook != nil {
		return hook(ctx, *removed)
	}
	return nil
}

// Snapshot streams the fake's snapshot (an error when the test set none).
func (c *fakeEtcdClient) Snapshot(_ context.Context, w io.Writer) (int64, error) {
	c.f.mu.Lock()
	data := c.f.snapshot
	c.f.snapshotNodes = append(c.f.snapshotNodes, c.node)
	c.f.mu.Unlock()
	if data == nil {
		return 0, errors.New("the fake etcd has no snapshot to stream")
	}
	n, err := w.Write(data)
	return int64(n), err
}

func (c *fakeEtcdClient) Close() {}

// waitPasses waits for n more passes over the members: a pass connects once to list them and once
// to each other member to ask for its health.
func (f *fakeEtcd) waitPasses(t *testing.T, n int) {
	t.Helper()
	f.mu.Lock()
	start := len(f.dialed)
	n *= max(1, len(f.members))
	f.mu.Unlock()
	envtest.WaitFor(t, timeout, fmt.Sprintf("%d more passes over the etcd members", n), func() (bool, error) {
		f.mu.Lock()
		defer f.mu.Unlock()
		return len(f.dialed) >= start+n, nil
	})
}

func keyOfMachine(m *clusterv1.Machine) client.ObjectKey { return client.ObjectKeyFromObject(m) }

func keyOfPod(name string) client.ObjectKey {
	return client.ObjectKey{Namespace: "kube-system", Name: name}
}
