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
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"time"

	bolt "go.etcd.io/bbolt"
	"go.etcd.io/etcd/api/v3/mvccpb"
	"google.golang.org/protobuf/proto"
)

// snapshotSector: a snapshot's data is whole bbolt pages, so a stream that ends with its sha256
// is 32 bytes past a multiple of 512, the test etcd's own snapshot tools apply to tell a stream
// with its hash from one without.
const snapshotSector = 512

// ErrSnapshotCorrupt marks a snapshot whose data does not match the sha256 etcd appended to it,
// or whose database cannot be read.
var ErrSnapshotCorrupt = errors.New("etcd snapshot is corrupt")

// SnapshotInfo is what VerifySnapshot read back from a snapshot file.
type SnapshotInfo struct {
	// Size is the file's size in bytes, the appended sha256 included.
	Size int64
	// SHA256 is the hex sha256 of the whole file, as sha256sum prints it, to check copies by.
	SHA256 string
	// Revision is the store revision the snapshot holds: the newest revision in its key bucket,
	// or the finished compaction's when that is newer.
	Revision int64
	// Keys is the number of live keys (latest revision not a deletion).
	Keys int
}

// Snapshot streams a consistent snapshot of the member the client is connected to into w and
// returns the bytes written: the member's bbolt database followed by the sha256 of it that etcd
// appends (the form etcdctl snapshot save writes and etcdutl snapshot restore checks). It is
// bounded by ctx alone, not the per-call timeout: a large database takes longer than one call.
// The revision is not taken here (etcd sends no header with the stream, and a Status before or
// after it may see other writes): VerifySnapshot reads it back from the file.
func (r *realClient) Snapshot(ctx context.Context, w io.Writer) (int64, error) {
	rc, err := r.c.Snapshot(ctx)
	if err != nil {
		return 0, fmt.Errorf("starting a snapshot of the etcd member at %s: %w", r.endpoint, err)
	}
	defer func() { _ = rc.Close() }()
	n, err := io.Copy(w, rc)
	if err != nil {
		return n, fmt.Errorf("streaming the snapshot of the etcd member at %s (%d bytes received): %w", r.endpoint, n, err)
	}
	if n%snapshotSector != sha256.Size {
		return n, fmt.Errorf("the snapshot stream of the etcd member at %s ended after %d bytes, without the sha256 etcd appends: it was cut off, take it again", r.endpoint, n)
	}
	return n, nil
}

// VerifySnapshot checks the snapshot file at path the way etcdutl snapshot restore does (the
// last 32 bytes are the sha256 of the rest) and reads its database: a bbolt file whose every
// page must check, and whose key bucket gives the revision and the live keys. A mismatch or an
// unreadable database is an error wrapping ErrSnapshotCorrupt.
func VerifySnapshot(path string) (SnapshotInfo, error) {
	info, err := checkSnapshotHash(path)
	if err != nil {
		return info, err
	}
	err = readSnapshotKeys(path, func(string) {}, func(rev int64, keys int) {
		info.Revision, info.Keys = rev, keys
	})
	return info, err
}

// SnapshotKeys returns the live keys of the snapshot file at path that start with prefix,
// sorted; it checks nothing but the database, so call VerifySnapshot first.
func SnapshotKeys(path, prefix string) ([]string, error) {
	var out []string
	err := readSnapshotKeys(path, func(k string) {
		if strings.HasPrefix(k, prefix) {
			out = append(out, k)
		}
	}, func(int64, int) {})
	sort.Strings(out)
	return out, err
}

// SnapshotValue returns the latest value of key in the snapshot file at path, and false when the
// key is absent or deleted at the snapshot's revision; it checks nothing but the database, so
// call VerifySnapshot first.
func SnapshotValue(path, key string) ([]byte, bool, error) {
	var value []byte
	found := false
	err := viewSnapshot(path, func(tx *bolt.Tx) error {
		// Revisions come in order, so the last entry of key is its state at the snapshot.
		return forEachRevision(tx, path, func(_ int64, kv *mvccpb.KeyValue, tombstone bool) {
			if string(kv.Key) == key {
				found, value = !tombstone, bytes.Clone(kv.Value)
			}
		})
	})
	if err != nil || !found {
		return nil, false, err
	}
	return value, true, nil
}

// checkSnapshotHash compares the sha256 of the data with the one etcd appended.
func checkSnapshotHash(path string) (SnapshotInfo, error) {
	f, err := os.Open(path)
	if err != nil {
		return SnapshotInfo{}, fmt.Errorf("opening the etcd snapshot: %w", err)
	}
	defer func() { _ = f.Close() }()
	st, err := f.Stat()
	if err != nil {
		return SnapshotInfo{}, fmt.Errorf("reading the etcd snapshot %s: %w", path, err)
	}
	info := SnapshotInfo{Size: st.Size()}
	if info.Size%snapshotSector != sha256.Size {
		return info, fmt.Errorf("%w: %s has %d bytes, not whole 512-byte sectors plus the 32-byte sha256 etcd appends: it was cut off or saved without the hash",
			ErrSnapshotCorrupt, path, info.Size)
	}
	data, whole := sha256.New(), sha256.New()
	if _, err := io.CopyN(io.MultiWriter(data, whole), f, info.Size-sha256.Size); err != nil {
		return info, fmt.Errorf("reading the etcd snapshot %s: %w", path, err)
	}
	appended := make([]byte, sha256.Size)
	if _, err := io.ReadFull(io.TeeReader(f, whole), appended); err != nil {
		return info, fmt.Errorf("reading the sha256 at the end of the etcd snapshot %s: %w", path, err)
	}
	info.SHA256 = hex.EncodeToString(whole.Sum(nil))
	if got := data.Sum(nil); !bytes.Equal(got, appended) {
		return info, fmt.Errorf("%w: %s: the sha256 of its data is %x but etcd appended %x: the file changed after etcd sent it; take a new snapshot",
			ErrSnapshotCorrupt, path, got, appended)
	}
	return info, nil
}

// readSnapshotKeys opens the database read-only, checks its pages, and walks the key bucket.
// Each live key goes to visit; the newest revision and the live key count to done.
func readSnapshotKeys(path string, visit func(string), done func(rev int64, keys int)) error {
	return viewSnapshot(path, func(tx *bolt.Tx) error {
		var problems []error
		for err := range tx.Check() {
			problems = append(problems, err)
		}
		if len(problems) > 0 {
			return fmt.Errorf("%w: %s: its database does not check: %w", ErrSnapshotCorrupt, path, errors.Join(problems...))
		}
		var rev int64
		live := map[string]bool{}
		err := forEachRevision(tx, path, func(r int64, kv *mvccpb.KeyValue, tombstone bool) {
			rev = max(rev, r)
			live[string(kv.Key)] = !tombstone
		})
		if err != nil {
			return err
		}
		if m := tx.Bucket([]byte("meta")); m != nil {
			if c := m.Get([]byte("finishedCompactRev")); len(c) >= 8 {
				rev = max(rev, int64(binary.BigEndian.Uint64(c[:8])))
			}
		}
		n := 0
		for k, ok := range live {
			if ok {
				n++
				visit(k)
			}
		}
		done(rev, n)
		return nil
	})
}

// viewSnapshot opens the snapshot's database read-only and runs f in a read transaction.
func viewSnapshot(path string, f func(tx *bolt.Tx) error) error {
	db, err := bolt.Open(path, 0o400, &bolt.Options{ReadOnly: true, Timeout: 5 * time.Second})
	if err != nil {
		return fmt.Errorf("%w: opening %s as a bbolt database: %v", ErrSnapshotCorrupt, path, err)
	}
	defer func() { _ = db.Close() }()
	return db.View(f)
}

// forEachRevision walks the key bucket in revision order (keys are revisions, 8-byte main
// revision first, a trailing 't' marking a deletion; values are mvccpb.KeyValue) and gives visit
// each entry's main revision, its decoded key-value, and whether it is a deletion.
func forEachRevision(tx *bolt.Tx, path string, visit func(rev int64, kv *mvccpb.KeyValue, tombstone bool)) error {
	b := tx.Bucket([]byte("key"))
	if b == nil {
		return fmt.Errorf("%w: %s has no key bucket: it is not an etcd v3 database", ErrSnapshotCorrupt, path)
	}
	return b.ForEach(func(k, v []byte) error {
		if len(k) < 8 {
			return fmt.Errorf("%w: %s: key bucket entry %x is not a revision", ErrSnapshotCorrupt, path, k)
		}
		kv := &mvccpb.KeyValue{}
		if err := proto.Unmarshal(v, kv); err != nil {
			return fmt.Errorf("%w: %s: the value at revision %x does not decode: %v", ErrSnapshotCorrupt, path, k, err)
		}
		visit(int64(binary.BigEndian.Uint64(k[:8])), kv, len(k) == 18 && k[17] == 't')
		return nil
	})
}
