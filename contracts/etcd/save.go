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
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// SnapshotFileName is the file a snapshot of cluster taken at now is saved under by default:
// <cluster>-<UTC timestamp>.db, which sorts by time.
func SnapshotFileName(cluster string, now time.Time) string {
	return fmt.Sprintf("%s-%s.db", cluster, now.UTC().Format(snapshotTimeLayout))
}

const snapshotTimeLayout = "20060102T150405Z"

// SnapshotTime reads the time back from a SnapshotFileName of cluster; false for other names.
func SnapshotTime(cluster, name string) (time.Time, bool) {
	prefix, suffix := cluster+"-", ".db"
	if len(name) != len(prefix)+len(snapshotTimeLayout)+len(suffix) || name[:len(prefix)] != prefix || name[len(name)-len(suffix):] != suffix {
		return time.Time{}, false
	}
	t, err := time.Parse(snapshotTimeLayout, name[len(prefix):len(name)-len(suffix)])
	return t, err == nil
}

// partialSuffix marks the temporary file SaveSnapshot writes beside the destination before it is
// verified and renamed: "." + the final name + partialSuffix + a random part.
const partialSuffix = ".part-"

// IsPartialSnapshot reports whether name is a temporary file SaveSnapshot left for a snapshot
// of cluster (a writer killed before the rename): it can be removed.
func IsPartialSnapshot(cluster, name string) bool {
	i := strings.LastIndex(name, partialSuffix)
	if !strings.HasPrefix(name, ".") || i < 0 {
		return false
	}
	_, ok := SnapshotTime(cluster, name[1:i])
	return ok
}

// CheckSnapshotDestination refuses a path that exists, or whose directory does not: a snapshot
// never overwrites a file.
func CheckSnapshotDestination(path string) error {
	if _, err := os.Lstat(path); err == nil {
		return fmt.Errorf("%s already exists: choose another destination, or move the old file away", path)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("checking the destination %s: %w", path, err)
	}
	dir := filepath.Dir(path)
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return fmt.Errorf("the directory %s does not exist: create it first", dir)
	}
	return nil
}

// SaveSnapshot streams a snapshot through c into a temporary file beside path (mode 0600: it
// holds every Secret of the cluster), verifies it, and renames it to path; on any failure the
// temporary file is removed and path is not created. So a file under the final name is always
// a whole, verified snapshot.
func SaveSnapshot(ctx context.Context, c Client, path string) (SnapshotInfo, error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+partialSuffix+"*")
	if err != nil {
		return SnapshotInfo{}, fmt.Errorf("creating a temporary file beside %s: %w", path, err)
	}
	done := false
	defer func() {
		if !done {
			_ = tmp.Close()
			_ = os.Remove(tmp.Name())
		}
	}()
	if _, err := c.Snapshot(ctx, tmp); err != nil {
		return SnapshotInfo{}, err
	}
	if err := tmp.Sync(); err != nil {
		return SnapshotInfo{}, fmt.Errorf("writing %s: %w", tmp.Name(), err)
	}
	if err := tmp.Close(); err != nil {
		return SnapshotInfo{}, fmt.Errorf("writing %s: %w", tmp.Name(), err)
	}
	info, err := VerifySnapshot(tmp.Name())
	if err != nil {
		return info, fmt.Errorf("the snapshot received does not verify, nothing was written to %s: %w", path, err)
	}
	if err := CheckSnapshotDestination(path); err != nil { // created meanwhile: keep it
		return info, err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return info, fmt.Errorf("renaming the verified snapshot to %s: %w", path, err)
	}
	done = true
	return info, nil
}
