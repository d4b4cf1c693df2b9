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
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"time"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
	"google.golang.org/grpc"
)

// ErrMemberNotFound is returned by RemoveMember when no member has the ID.
var ErrMemberNotFound = errors.New("etcd member not found")

// Member is one etcd cluster member. Name is the member's --name, which kubeadm sets to the Node
// name; it is empty for a member that was added but has not started yet.
type Member struct {
	ID         uint64
	Name       string
	PeerURLs   []string
	ClientURLs []string
}

// MemberStatus is what the member a Client is connected to says of itself.
type MemberStatus struct {
	// ID is the member's ID; Leader the ID of the member it follows (its own when it leads, 0
	// when it knows no leader).
	ID, Leader uint64
	// Errors are the problems the member reports about itself (etcd's StatusResponse.Errors,
	// e.g. "NOSPACE" while a space alarm is raised).
	Errors []string
}

// Alarm is an alarm raised on a member (etcd's AlarmMember): Type is "NOSPACE", "CORRUPT", ...
type Alarm struct {
	MemberID uint64
	Type     string
}

// Client is what the KubeadmControlPlane controller needs of an etcd cluster. A Client talks to
// one member (its endpoint): Status is that member's own answer, which is how a member is judged
// healthy; the other calls are answered by the cluster through it.
type Client interface {
	// Members lists the cluster's members.
	Members(ctx context.Context) ([]Member, error)
	// Status asks the member the client is connected to for its status.
	Status(ctx context.Context) (MemberStatus, error)
	// Alarms lists the alarms raised on any member.
	Alarms(ctx context.Context) ([]Alarm, error)
	// MoveLeader hands the leadership to the member with ID transferee; only the leader can, so
	// the client must be connected to it.
	MoveLeader(ctx context.Context, transferee uint64) error
	// RemoveMember removes the member with the ID; an ID no member has gives an error wrapping
	// ErrMemberNotFound.
	RemoveMember(ctx context.Context, id uint64) error
	// Snapshot streams a snapshot of the member the client is connected to into w and returns
	// its size; see VerifySnapshot for its revision.
	Snapshot(ctx context.Context, w io.Writer) (int64, error)
	// Close releases the connection.
	Close()
}

// DialFunc opens a connection to addr, as net.Dialer.DialContext does.
type DialFunc func(ctx context.Context, addr string) (net.Conn, error)

// dialTimeout bounds how long New waits for the first connection.
const dialTimeout = 10 * time.Second

// callTimeout bounds every call: the etcd client retries an unreachable member until its
// context ends, and a reconcile must never wait forever on a workload cluster.
const callTimeout = 15 * time.Second

// New connects to the etcd cluster at endpoint ("host:port") with tlsConfig. With dial set,
// every connection goes through it (the port-forward); otherwise through the network.
func New(ctx context.Context, endpoint string, tlsConfig *tls.Config, dial DialFunc) (Client, error) {
	cfg := clientv3.Config{
		Endpoints:   []string{endpoint},
		TLS:         tlsConfig,
		DialTimeout: dialTimeout,
		Context:     ctx,
		Logger:      zap.NewNop(),
		// AutoSyncInterval stays 0: a port-forwarded endpoint is one member, and the others'
		// client URLs are reachable only on the workload cluster's network.
	}
	if dial != nil {
		cfg.DialOptions = []grpc.DialOption{grpc.WithContextDialer(dial)}
	}
	c, err := clientv3.New(cfg)
	if err != nil {
		return nil, fmt.Errorf("connecting to etcd at %s: %w", endpoint, err)
	}
	return &realClient{c: c, endpoint: endpoint}, nil
}

type realClient struct {
	c        *clientv3.Client
	endpoint string
}

func (r *realClient) Members(ctx context.Context) ([]Member, error) {
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	resp, err := r.c.MemberList(ctx)
	if err != nil {
		return nil, fmt.Errorf("listing the etcd members through %s: %w", r.endpoint, err)
	}
	out := make([]Member, 0, len(resp.Members))
	for _, m := range resp.Members {
		out = append(out, Member{ID: m.ID, Name: m.Name, PeerURLs: m.PeerURLs, ClientURLs: m.ClientURLs})
	}
	return out, nil
}

func (r *realClient) Status(ctx context.Context) (MemberStatus, error) {
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	resp, err := r.c.Status(ctx, r.endpoint)
	if err != nil {
		return MemberStatus{}, fmt.Errorf("reading the status of the etcd member at %s: %w", r.endpoint, err)
	}
	return MemberStatus{ID: resp.Header.GetMemberId(), Leader: resp.Leader, Errors: resp.Errors}, nil
}

func (r *realClient) Alarms(ctx context.Context) ([]Alarm, error) {
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	resp, err := r.c.AlarmList(ctx)
	if err != nil {
		return nil, fmt.Errorf("listing the etcd alarms through %s: %w", r.endpoint, err)
	}
	out := make([]Alarm, 0, len(resp.Alarms))
	for _, a := range resp.Alarms {
		out = append(out, Alarm{MemberID: a.MemberID, Type: a.Alarm.String()})
	}
	return out, nil
}

func (r *realClient) MoveLeader(ctx context.Context, transferee uint64) error {
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	if _, err := r.c.MoveLeader(ctx, transferee); err != nil {
		return fmt.Errorf("moving the etcd leadership to member %x through %s: %w", transferee, r.endpoint, err)
	}
	return nil
}

func (r *realClient) RemoveMember(ctx context.Context, id uint64) error {
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	if _, err := r.c.MemberRemove(ctx, id); err != nil {
		if errors.Is(rpctypes.Error(err), rpctypes.ErrMemberNotFound) {
			return fmt.Errorf("removing etcd member %x through %s: %w", id, r.endpoint, ErrMemberNotFound)
		}
		return fmt.Errorf("removing etcd member %x through %s: %w", id, r.endpoint, err)
	}
	return nil
}

func (r *realClient) Close() { _ = r.c.Close() }
