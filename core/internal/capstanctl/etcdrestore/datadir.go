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
	"compress/gzip"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"go.etcd.io/etcd/etcdutl/v3/snapshot"
	"go.uber.org/zap"

	"capstan.dev/contracts/etcd"
)

// revisionBump is what the restored store's revision is raised by, and the old revisions marked
// compacted: the Kubernetes documentation's value for etcdutl snapshot restore --bump-revision.
// Without it the store's revision would go back to the snapshot's, and every watcher holding a
// newer resourceVersion (API server caches, informers, the kubelet) would wait for revisions it
// has already seen; compacted, their watches fail and they list afresh.
const revisionBump = 1_000_000_000

// initialCluster is the --initial-cluster of members, "name=peerURL,..." sorted by name.
func initialCluster(members []etcd.Member) string {
	var parts []string
	for _, m := range members {
		for _, u := range m.PeerURLs {
			parts = append(parts, m.Name+"="+u)
		}
	}
	sort.Strings(parts)
	return strings.Join(parts, ",")
}

// restoreDataDir writes into dir (which must not exist or be empty) the data directory of member
// m of a new cluster of members, restored from the snapshot at path: what etcdutl snapshot
// restore writes with --name, --initial-cluster, --initial-advertise-peer-urls,
// --initial-cluster-token, --bump-revision and --mark-compacted. Every member restored with the
// same snapshot, members and token forms one cluster (etcd's documented way to restore a
// cluster of several members).
func restoreDataDir(path string, m etcd.Member, members []etcd.Member, token, dir string) error {
	err := snapshot.NewV3(zap.NewNop()).Restore(snapshot.RestoreConfig{
		SnapshotPath:        path,
		Name:                m.Name,
		OutputDataDir:       dir,
		PeerURLs:            m.PeerURLs,
		InitialCluster:      initialCluster(members),
		InitialClusterToken: token,
		RevisionBump:        revisionBump,
		MarkCompacted:       true,
	})
	if err != nil {
		return fmt.Errorf("restoring %s as etcd member %s: %w", path, m.Name, err)
	}
	return nil
}

// writeTarGz writes dir's tree (its member/ directory) to w as a gzip-compressed tar, paths
// relative to dir. The restored WAL is a preallocated 64 MiB file of mostly zeros, which gzip
// shrinks to almost nothing on its way to the node.
func writeTarGz(w io.Writer, dir string) error {
	gz := gzip.NewWriter(w)
	tw := tar.NewWriter(gz)
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == dir {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		h, err := tar.FileInfoHeader(info, "")
		if err != nil {
			return err
		}
		h.Name = filepath.ToSlash(rel)
		if err := tw.WriteHeader(h); err != nil {
			return err
		}
		if !info.Mode().IsRegular() {
			return nil
		}
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		defer func() { _ = f.Close() }()
		_, err = io.Copy(tw, f)
		return err
	})
	if err != nil {
		return fmt.Errorf("packing the restored data directory %s: %w", dir, err)
	}
	if err := tw.Close(); err != nil {
		return err
	}
	return gz.Close()
}
