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
	"fmt"
	"strings"
)

// ConnectFunc opens a client to the etcd member on a control plane node.
type ConnectFunc func(ctx context.Context, node string) (Client, error)

// Chosen is a healthy member chosen to read from, with an open client to it.
type Chosen struct {
	Node   string
	ID     uint64
	Leader bool
	Client Client
}

// ChooseFollower connects to the members on nodes in order and returns the first healthy
// follower, or the healthy leader when no follower is healthy: a snapshot reads the whole
// database and streams it out, which on the leader competes with the heartbeats and the log
// replication the cluster depends on, while a healthy follower holds the same committed data.
// Healthy: it answers for itself with no errors, knows a leader, and has no alarm raised.
// Clients not returned are closed. The error names every member passed over and why.
func ChooseFollower(ctx context.Context, nodes []string, connect ConnectFunc) (*Chosen, error) {
	var leader *Chosen
	var why []string
	for _, node := range nodes {
		m, err := healthyMember(ctx, node, connect)
		if err != nil {
			why = append(why, fmt.Sprintf("%s: %v", PodName(node), err))
			continue
		}
		if !m.Leader {
			if leader != nil {
				leader.Client.Close()
			}
			return m, nil
		}
		leader = m
	}
	if leader != nil {
		return leader, nil
	}
	return nil, fmt.Errorf("no healthy etcd member (tried through Pods in kube-system): %s", strings.Join(why, "; "))
}

// healthyMember connects to the member on node and returns it when it is healthy; otherwise it
// closes the client.
func healthyMember(ctx context.Context, node string, connect ConnectFunc) (*Chosen, error) {
	c, err := connect(ctx, node)
	if err != nil {
		return nil, err
	}
	st, err := c.Status(ctx)
	if err == nil {
		err = judge(ctx, c, st)
	}
	if err != nil {
		c.Close()
		return nil, err
	}
	return &Chosen{Node: node, ID: st.ID, Leader: st.Leader == st.ID, Client: c}, nil
}

// judge says why a member whose status is st is not healthy, nil when it is.
func judge(ctx context.Context, c Client, st MemberStatus) error {
	if len(st.Errors) > 0 {
		return fmt.Errorf("member %x reports %s", st.ID, strings.Join(st.Errors, ", "))
	}
	if st.Leader == 0 {
		return fmt.Errorf("member %x knows no leader", st.ID)
	}
	alarms, err := c.Alarms(ctx)
	if err != nil {
		return err
	}
	var raised []error
	for _, a := range alarms {
		if a.MemberID == st.ID {
			raised = append(raised, fmt.Errorf("alarm %s raised", a.Type))
		}
	}
	if len(raised) > 0 {
		return fmt.Errorf("member %x: %w", st.ID, errors.Join(raised...))
	}
	return nil
}
