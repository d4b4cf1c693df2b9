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

package cmd

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"capstan.dev/core/internal/capstanctl/etcdsnapshot"
)

// newEtcdCommand is `capstanctl etcd`: the workload cluster's etcd, reached from the management
// cluster.
func newEtcdCommand(g *globalOptions) *cobra.Command {
	parent := groupCommand("etcd", "Back up a workload cluster's etcd")
	parent.AddCommand(newEtcdSnapshotCommand(g))
	return parent
}

func newEtcdSnapshotCommand(g *globalOptions) *cobra.Command {
	var namespace, to string
	var timeout time.Duration
	c := &cobra.Command{
		Use:   "snapshot CLUSTER",
		Short: "Save a verified snapshot of a KubeadmControlPlane's etcd to a file",
		Long: `Take a consistent snapshot of one etcd member of the workload cluster CLUSTER, whose control
plane is a KubeadmControlPlane with stacked etcd, and save it to a file: the same form etcdctl
snapshot save writes, which etcdutl snapshot restore takes.

etcd is reached the way the KubeadmControlPlane controller reaches it: through the workload API
server (Secret <cluster>-kubeconfig) by a port-forward to Pod kube-system/etcd-<node>, with a
short-lived client certificate signed by the etcd CA (Secret <cluster>-etcd). No SSH, no node
access. A healthy follower is snapshotted, the leader only when no follower is healthy.

The snapshot is written to a temporary file beside the destination and renamed only after its
sha256 (appended by etcd) and its database check; the file holds every Secret of the workload
cluster and is created readable by you alone.

Refused, changing nothing: an unknown cluster, a control plane that is not a KubeadmControlPlane,
an external etcd, a control plane not initialized, an existing destination.`,
		Example: `  capstanctl etcd snapshot quickstart
  capstanctl etcd snapshot quickstart -n dev --to /backups/quickstart.db`,
		Args: exactlyOneName("Cluster"),
		RunE: func(c *cobra.Command, args []string) error {
			ctx, cancel := context.WithTimeout(c.Context(), timeout)
			defer cancel()
			return etcdSnapshot(ctx, c, g, namespace, args[0], to)
		},
	}
	c.Flags().StringVarP(&namespace, "namespace", "n", defaultNamespace, "namespace of the Cluster")
	c.Flags().StringVar(&to, "to", "", "file to write the snapshot to (default: <cluster>-<UTC timestamp>.db in the current directory)")
	c.Flags().DurationVar(&timeout, "timeout", 10*time.Minute, "how long the whole snapshot may take")
	return c
}

// etcdSnapshot checks the destination and the cluster, then chooses a member and saves its snapshot.
func etcdSnapshot(ctx context.Context, c *cobra.Command, g *globalOptions, namespace, name, to string) error {
	cl, err := g.cluster.New()
	if err != nil {
		return err
	}
	if to == "" {
		to = etcdsnapshot.DefaultPath(name, time.Now())
	}
	if err := etcdsnapshot.CheckDestination(to); err != nil {
		return err
	}
	target, err := etcdsnapshot.Resolve(ctx, cl, namespace, name)
	if err != nil {
		return err
	}
	cfg, caCert, caKey, err := etcdsnapshot.Credentials(ctx, cl, target.Cluster)
	if err != nil {
		return err
	}
	member, err := etcdsnapshot.Choose(ctx, target.Nodes, etcdsnapshot.PortForward(cfg, caCert, caKey))
	if err != nil {
		return err
	}
	defer member.Client.Close()
	info, err := etcdsnapshot.Save(ctx, member.Client, to)
	if err != nil {
		return fmt.Errorf("snapshot of etcd member %s: %w", member.Node, err)
	}
	role := "follower"
	if member.Leader {
		role = "leader"
	}
	_, err = fmt.Fprintf(c.OutOrStdout(), "Saved a verified snapshot of cluster %s/%s's etcd\n  member:   %s (%x, %s)\n  size:     %d bytes\n  revision: %d\n  keys:     %d\n  sha256:   %s\n  path:     %s\n",
		namespace, name, member.Node, member.ID, role, info.Size, info.Revision, info.Keys, info.SHA256, to)
	return err
}
