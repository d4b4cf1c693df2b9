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
	"io"
	"os"
	"time"

	"github.com/spf13/cobra"

	"capstan.dev/contracts/etcd"
	"capstan.dev/core/internal/capstanctl/etcdrestore"
	"capstan.dev/core/internal/capstanctl/etcdsnapshot"
)

// newEtcdCommand is `capstanctl etcd`: the workload cluster's etcd, reached from the management
// cluster.
func newEtcdCommand(g *globalOptions) *cobra.Command {
	parent := groupCommand("etcd", "Back up and restore a workload cluster's etcd")
	parent.AddCommand(newEtcdSnapshotCommand(g), newEtcdRestoreCommand(g))
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
	member, err := etcd.ChooseFollower(ctx, target.Nodes, etcdsnapshot.PortForward(cfg, caCert, caKey))
	if err != nil {
		return err
	}
	defer member.Client.Close()
	info, err := etcd.SaveSnapshot(ctx, member.Client, to)
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

func newEtcdRestoreCommand(g *globalOptions) *cobra.Command {
	var o etcdrestore.Options
	var dryRun bool
	var timeout time.Duration
	c := &cobra.Command{
		Use:   "restore CLUSTER --from FILE",
		Short: "Restore a KubeadmControlPlane's etcd from a snapshot of it",
		Long: `Restore the stacked etcd of the workload cluster CLUSTER from a snapshot taken by 'capstanctl
etcd snapshot' (or etcdctl snapshot save) of the same cluster. Everything written to the workload
cluster after the snapshot is lost.

Every member is restored in place from the one snapshot (etcd's procedure for a cluster of several
members): capstanctl restores each member's data directory itself (as etcdutl snapshot restore
does, the revision raised by 1,000,000,000 and the older ones marked compacted, so every watcher
lists afresh), pauses the Cluster, runs a Pod on each control plane node (image --image, default
the cluster's kube-proxy image: it needs sh, tar and gzip) that receives its member's data, then
all nodes stop etcd and the kube-apiserver at one moment, swap the data and start them again. The
workload API is down for about a minute. When the members are healthy and the control plane Nodes
Ready, the Cluster is resumed. Each node keeps its previous data in
<dataDir>/.capstan-restore/<token>/member.before; delete it once you are satisfied.

Refused, changing nothing: an unknown cluster, a control plane that is not a KubeadmControlPlane
with stacked etcd or not initialized, a snapshot that does not verify or is of another cluster
(its kube-system Namespace's UID), a control plane rolling out, scaling or remediating, a Cluster
paused by you, an etcd member that is not healthy or not a control plane Node. --dry-run checks
all of this and restores the data directories locally, then stops.`,
		Example: `  capstanctl etcd restore quickstart --from quickstart-20261207T120000Z.db --dry-run
  capstanctl etcd restore quickstart -n dev --from /backups/quickstart.db`,
		Args: exactlyOneName("Cluster"),
		RunE: func(c *cobra.Command, args []string) error {
			ctx, cancel := context.WithTimeout(c.Context(), timeout)
			defer cancel()
			o.Name = args[0]
			return etcdRestore(ctx, c, g, o, dryRun)
		},
	}
	c.Flags().StringVarP(&o.Namespace, "namespace", "n", defaultNamespace, "namespace of the Cluster")
	c.Flags().StringVar(&o.Snapshot, "from", "", "the snapshot file to restore (required)")
	c.Flags().StringVar(&o.Image, "image", "", "image of the restore Pods (default: the image of DaemonSet kube-system/kube-proxy)")
	c.Flags().BoolVar(&dryRun, "dry-run", false, "check everything and restore the data directories locally, change nothing")
	c.Flags().DurationVar(&timeout, "timeout", 20*time.Minute, "how long the whole restore may take")
	_ = c.MarkFlagRequired("from")
	return c
}

// etcdRestore checks the restore, prints the plan, and unless dryRun carries it out.
func etcdRestore(ctx context.Context, c *cobra.Command, g *globalOptions, o etcdrestore.Options, dryRun bool) error {
	cl, err := g.cluster.New()
	if err != nil {
		return err
	}
	plan, err := etcdrestore.Prepare(ctx, cl, o)
	if err != nil {
		return err
	}
	out := c.OutOrStdout()
	fmt.Fprintf(out, "Restore of cluster %s/%s's etcd\n  snapshot: %s (%d bytes, revision %d, %d keys, sha256 %s)\n  data dir: %s\n  image:    %s\n",
		o.Namespace, o.Name, o.Snapshot, plan.Info.Size, plan.Info.Revision, plan.Info.Keys, plan.Info.SHA256, plan.DataDir, plan.Image)
	for _, m := range plan.Members {
		fmt.Fprintf(out, "  member:   %s (%x) %v\n", m.Name, m.ID, m.PeerURLs)
	}
	if dryRun {
		return etcdRestoreDryRun(out, plan)
	}
	res, err := plan.Run(ctx, cl, out)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(out, "Restored cluster %s/%s's etcd to revision %d (the snapshot's %d + 1,000,000,000) and resumed the Cluster; each node's previous data: %s/member.before\n",
		o.Namespace, o.Name, res.Revision, plan.Info.Revision, res.WorkDir)
	return err
}

// etcdRestoreDryRun restores the data directories into a temporary directory and says so.
func etcdRestoreDryRun(out io.Writer, plan *etcdrestore.Plan) error {
	tmp, err := os.MkdirTemp("", "capstan-etcd-restore-")
	if err != nil {
		return err
	}
	defer func() { _ = os.RemoveAll(tmp) }()
	packed, err := plan.DataDirs(etcdrestore.NewToken(), tmp)
	if err != nil {
		return err
	}
	for _, m := range plan.Members {
		fmt.Fprintf(out, "  %s: data directory restored (%d bytes compressed)\n", m.Name, len(packed[m.Name]))
	}
	_, err = fmt.Fprintln(out, "Dry run: every check passed, nothing was changed.")
	return err
}
