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
	"errors"
	"fmt"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"

	"capstan.dev/contracts/etcd"
)

// ConnectFunc opens a client to the etcd member on node.
type ConnectFunc func(ctx context.Context, node string) (etcd.Client, error)

// PortForward is the ConnectFunc of the KubeadmControlPlane controller's path: a port-forward
// through the workload API server of cfg to kube-system/etcd-<node>, with a client certificate
// signed by the etcd CA (caCert, caKey).
func PortForward(cfg *rest.Config, caCert, caKey []byte) ConnectFunc {
	return func(ctx context.Context, node string) (etcd.Client, error) {
		// kubeadm's etcd serving certificate always holds localhost; the node name not always.
		tlsCfg, err := etcd.ClientTLSConfig(caCert, caKey, "localhost", time.Now())
		if err != nil {
			return nil, fmt.Errorf("the etcd CA: %w", err)
		}
		dial, err := etcd.PortForwardDialer(cfg, metav1.NamespaceSystem, etcd.PodName(node), etcd.Port)
		if err != nil {
			return nil, err
		}
		return etcd.New(ctx, fmt.Sprintf("localhost:%d", etcd.Port), tlsCfg, dial)
	}
}

// Member is the etcd member chosen to snapshot, with an open client to it.
type Member struct {
	Node   string
	ID     uint64
	Leader bool
	Client etcd.Client
}

// Choose connects to the members on nodes in order and returns the first healthy follower, or
// the healthy leader when no follower is healthy (see the package doc). Clients not returned
// are closed. The error names every member passed over and why.
func Choose(ctx context.Context, nodes []string, connect ConnectFunc) (*Member, error) {
	var leader *Member
	var why []string
	for _, node := range nodes {
		m, err := healthyMember(ctx, node, connect)
		if err != nil {
			why = append(why, fmt.Sprintf("%s: %v", etcd.PodName(node), err))
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
	return nil, fmt.Errorf("no healthy etcd member to snapshot (tried through Pods in %s): %s",
		metav1.NamespaceSystem, strings.Join(why, "; "))
}

// healthyMember connects to the member on node and returns it when it answers for itself with
// no errors, knows a leader, and has no alarm raised; otherwise it closes the client.
func healthyMember(ctx context.Context, node string, connect ConnectFunc) (*Member, error) {
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
	return &Member{Node: node, ID: st.ID, Leader: st.Leader == st.ID, Client: c}, nil
}

// judge says why a member whose status is st is not healthy, nil when it is.
func judge(ctx context.Context, c etcd.Client, st etcd.MemberStatus) error {
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
