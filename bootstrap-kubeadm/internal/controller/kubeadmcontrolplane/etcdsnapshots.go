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
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"time"

	ctrl "sigs.k8s.io/controller-runtime"

	controlplanev1 "capstan.dev/bootstrap-kubeadm/api/controlplane/v1beta2"
	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/etcd"
	"capstan.dev/contracts/events"
)

const (
	// defaultSnapshotKeep is how many scheduled snapshots are kept without the keep annotation.
	defaultSnapshotKeep = 7
	// minSnapshotInterval bounds the schedule: each snapshot reads the whole database.
	minSnapshotInterval = time.Minute
	// snapshotRetry is how soon a failed snapshot is tried again.
	snapshotRetry = time.Minute
	// snapshotTimeout bounds one snapshot's stream.
	snapshotTimeout = 5 * time.Minute

	ReasonEtcdSnapshotTaken  = "EtcdSnapshotTaken"
	ReasonEtcdSnapshotFailed = "EtcdSnapshotFailed"
)

// snapshotSchedule is a KubeadmControlPlane's parsed schedule.
type snapshotSchedule struct {
	interval time.Duration
	keep     int
	// dir is the cluster's own directory: <directory>/<namespace>/<cluster>.
	dir string
}

// snapshotFile is a scheduled snapshot found on disk.
type snapshotFile struct {
	path string
	at   time.Time
}

// snapshotResult is what the snapshot step found or did; nil in the scope when it did not run.
type snapshotResult struct {
	invalid, waiting, failed string
	newest                   *snapshotFile
	next                     time.Time
	keep                     int
}

// parseSnapshotSchedule reads the schedule annotations; nil without the interval annotation. An
// error names the annotation and what is allowed.
func parseSnapshotSchedule(kcp *controlplanev1.KubeadmControlPlane, cluster *clusterv1.Cluster) (*snapshotSchedule, error) {
	a := kcp.Annotations
	raw, ok := a[controlplanev1.EtcdSnapshotIntervalAnnotation]
	if !ok {
		return nil, nil
	}
	interval, err := time.ParseDuration(raw)
	if err != nil || interval < minSnapshotInterval {
		return nil, fmt.Errorf("annotation %s is %q: a Go duration of at least %s is allowed (e.g. 6h)", controlplanev1.EtcdSnapshotIntervalAnnotation, raw, minSnapshotInterval)
	}
	keep := defaultSnapshotKeep
	if raw, ok := a[controlplanev1.EtcdSnapshotKeepAnnotation]; ok {
		if keep, err = strconv.Atoi(raw); err != nil || keep < 1 {
			return nil, fmt.Errorf("annotation %s is %q: a whole number of at least 1 is allowed", controlplanev1.EtcdSnapshotKeepAnnotation, raw)
		}
	}
	dir := a[controlplanev1.EtcdSnapshotDirectoryAnnotation]
	if !filepath.IsAbs(dir) {
		return nil, fmt.Errorf("annotation %s is %q: the absolute path of a directory of the controller's filesystem is required (a volume mounted into its Pod, or the management host's for a local manager)",
			controlplanev1.EtcdSnapshotDirectoryAnnotation, dir)
	}
	if !etcdManaged(kcp) {
		return nil, errors.New("the control plane's etcd is external (spec.kubeadmConfigSpec.clusterConfiguration.etcd.external): Capstan does not reach it; snapshot it with its own tools, or remove the etcd-snapshot annotations")
	}
	return &snapshotSchedule{interval: interval, keep: keep, dir: filepath.Join(filepath.Clean(dir), cluster.Namespace, cluster.Name)}, nil
}

// listSnapshots returns cluster's scheduled snapshots in dir, oldest first; a missing directory
// holds none. Temporary files a killed controller left are removed: one writer per cluster.
func listSnapshots(dir, cluster string) ([]snapshotFile, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading the snapshot directory %s: %w", dir, err)
	}
	var out []snapshotFile
	for _, e := range entries {
		if etcd.IsPartialSnapshot(cluster, e.Name()) {
			_ = os.Remove(filepath.Join(dir, e.Name()))
			continue
		}
		if at, ok := etcd.SnapshotTime(cluster, e.Name()); ok && e.Type().IsRegular() {
			out = append(out, snapshotFile{path: filepath.Join(dir, e.Name()), at: at})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].at.Before(out[j].at) })
	return out, nil
}

// pruneSnapshots removes all but the newest keep of files (oldest first).
func pruneSnapshots(files []snapshotFile, keep int) error {
	var errs []error
	for i := 0; i < len(files)-keep; i++ {
		if err := os.Remove(files[i].path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// reconcileEtcdSnapshots takes the scheduled snapshot when one is due: the newest file on disk
// says when the last one was taken, so a restarted controller neither repeats nor skips one.
func (r *Reconciler) reconcileEtcdSnapshots(ctx context.Context, s *scope) (ctrl.Result, bool, error) {
	sched, err := parseSnapshotSchedule(s.kcp, s.cluster)
	if sched == nil && err == nil {
		return ctrl.Result{}, false, nil
	}
	if err != nil {
		s.snapshots = &snapshotResult{invalid: err.Error()}
		return ctrl.Result{}, false, nil
	}
	res := &snapshotResult{keep: sched.keep}
	s.snapshots = res
	files, err := listSnapshots(sched.dir, s.cluster.Name)
	if err != nil {
		res.failed = err.Error()
		return ctrl.Result{RequeueAfter: snapshotRetry}, false, nil
	}
	if len(files) > 0 {
		res.newest = &files[len(files)-1]
		if due := res.newest.at.Add(sched.interval); s.now.Before(due) {
			res.next = due
			return ctrl.Result{RequeueAfter: due.Sub(s.now)}, false, nil
		}
	}
	nodes, why := snapshotNodes(s)
	if why != "" {
		if res.newest == nil {
			res.waiting = why
		} else {
			res.failed = why
		}
		return ctrl.Result{RequeueAfter: snapshotRetry}, false, nil
	}
	path, info, err := r.saveSnapshot(ctx, s, sched.dir, nodes)
	if err != nil {
		res.failed = err.Error()
		r.Recorder.Eventf(s.kcp, nil, events.Warning, ReasonEtcdSnapshotFailed, "Snapshot", "Scheduled etcd snapshot failed: %v", err)
		return ctrl.Result{RequeueAfter: snapshotRetry}, false, nil
	}
	r.Recorder.Eventf(s.kcp, nil, events.Normal, ReasonEtcdSnapshotTaken, "Snapshot", "Saved etcd snapshot %s (%d bytes, revision %d)", path, info.Size, info.Revision)
	files = append(files, snapshotFile{path: path, at: s.now.UTC().Truncate(time.Second)})
	if err := pruneSnapshots(files, sched.keep); err != nil {
		ctrl.LoggerFrom(ctx).Error(err, "Removing old etcd snapshots failed; retrying after the next snapshot")
	}
	res.newest, res.next = &files[len(files)-1], files[len(files)-1].at.Add(sched.interval)
	return ctrl.Result{RequeueAfter: res.next.Sub(s.now)}, false, nil
}

// snapshotNodes are the nodes of the Machines whose etcd member is healthy, or why there are none.
func snapshotNodes(s *scope) ([]string, string) {
	switch {
	case !initialized(s):
		return nil, "Waiting for the control plane to be initialized"
	case s.etcd == nil:
		return nil, "Waiting for the workload cluster to be reachable: " + s.workloadWait
	case s.etcd.err != nil:
		return nil, fmt.Sprintf("etcd cannot be reached: %v", s.etcd.err)
	}
	var nodes []string
	for _, m := range s.machines {
		if hasNode(m) && !deleting(m) {
			if ok, _ := s.etcd.memberHealthy(m.Status.NodeRef.Name); ok {
				nodes = append(nodes, m.Status.NodeRef.Name)
			}
		}
	}
	if len(nodes) == 0 {
		return nil, "no control plane Machine has a healthy etcd member"
	}
	return nodes, ""
}

// saveSnapshot saves a snapshot of a healthy follower (the leader if none is) into dir.
func (r *Reconciler) saveSnapshot(ctx context.Context, s *scope, dir string, nodes []string) (string, etcd.SnapshotInfo, error) {
	ctx, cancel := context.WithTimeout(ctx, snapshotTimeout)
	defer cancel()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", etcd.SnapshotInfo{}, fmt.Errorf("creating the snapshot directory: %w", err)
	}
	member, err := etcd.ChooseFollower(ctx, nodes, func(ctx context.Context, node string) (etcd.Client, error) {
		return r.EtcdClientFor(ctx, s.cluster, node)
	})
	if err != nil {
		return "", etcd.SnapshotInfo{}, err
	}
	defer member.Client.Close()
	path := filepath.Join(dir, etcd.SnapshotFileName(s.cluster.Name, s.now))
	info, err := etcd.SaveSnapshot(ctx, member.Client, path)
	if err != nil {
		return "", info, fmt.Errorf("snapshot of etcd member %s: %w", member.Node, err)
	}
	return path, info, nil
}
