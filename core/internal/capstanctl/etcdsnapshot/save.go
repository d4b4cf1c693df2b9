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
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"capstan.dev/contracts/etcd"
)

// DefaultPath is the file a snapshot of cluster taken at now goes to when --to is not given:
// <cluster>-<UTC timestamp>.db in the current directory.
func DefaultPath(cluster string, now time.Time) string {
	return fmt.Sprintf("%s-%s.db", cluster, now.UTC().Format("20060102T150405Z"))
}

// CheckDestination refuses a path that exists, or whose directory does not: a snapshot
// never overwrites a file, and fails before anything is dialled.
func CheckDestination(path string) error {
	if _, err := os.Lstat(path); err == nil {
		return fmt.Errorf("%s already exists: choose another --to, or move the old file away", path)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("checking the destination %s: %w", path, err)
	}
	dir := filepath.Dir(path)
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return fmt.Errorf("the directory %s of --to does not exist: create it first", dir)
	}
	return nil
}

// Save streams a snapshot through c into a temporary file beside path, verifies it, and renames
// it to path; on any failure the temporary file is removed and path is not created.
func Save(ctx context.Context, c etcd.Client, path string) (etcd.SnapshotInfo, error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".part-*")
	if err != nil {
		return etcd.SnapshotInfo{}, fmt.Errorf("creating a temporary file beside %s: %w", path, err)
	}
	done := false
	defer func() {
		if !done {
			_ = tmp.Close()
			_ = os.Remove(tmp.Name())
		}
	}()
	if _, err := c.Snapshot(ctx, tmp); err != nil {
		return etcd.SnapshotInfo{}, err
	}
	if err := tmp.Sync(); err != nil {
		return etcd.SnapshotInfo{}, fmt.Errorf("writing %s: %w", tmp.Name(), err)
	}
	if err := tmp.Close(); err != nil {
		return etcd.SnapshotInfo{}, fmt.Errorf("writing %s: %w", tmp.Name(), err)
	}
	info, err := etcd.VerifySnapshot(tmp.Name())
	if err != nil {
		return info, fmt.Errorf("the snapshot received does not verify, nothing was written to %s: %w", path, err)
	}
	if err := CheckDestination(path); err != nil { // created meanwhile: keep it
		return info, err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return info, fmt.Errorf("renaming the verified snapshot to %s: %w", path, err)
	}
	done = true
	return info, nil
}
