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
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	controlplanev1 "capstan.dev/bootstrap-kubeadm/api/controlplane/v1beta2"
	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/conditions"
	"capstan.dev/contracts/etcd"
	"capstan.dev/contracts/testing/etcdtest"
)

func TestParseSnapshotSchedule(t *testing.T) {
	cluster := &clusterv1.Cluster{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "c1"}}
	kcp := func(a map[string]string) *controlplanev1.KubeadmControlPlane {
		return &controlplanev1.KubeadmControlPlane{ObjectMeta: metav1.ObjectMeta{Annotations: a}}
	}
	s, err := parseSnapshotSchedule(kcp(nil), cluster)
	require.NoError(t, err)
	require.Nil(t, s, "no schedule without the interval annotation")

	s, err = parseSnapshotSchedule(kcp(map[string]string{controlplanev1.EtcdSnapshotIntervalAnnotation: "6h",
		controlplanev1.EtcdSnapshotDirectoryAnnotation: "/backups/etcd/"}), cluster)
	require.NoError(t, err)
	require.Equal(t, snapshotSchedule{interval: 6 * time.Hour, keep: defaultSnapshotKeep, dir: "/backups/etcd/ns/c1"}, *s)

	for _, tt := range []struct{ name, interval, keep, dir, want string }{
		{"NotADuration", "daily", "", "/b", `annotation controlplane.cluster.x-k8s.io/etcd-snapshot-interval is "daily": a Go duration of at least 1m0s is allowed (e.g. 6h)`},
		{"TooShort", "30s", "", "/b", `annotation controlplane.cluster.x-k8s.io/etcd-snapshot-interval is "30s": a Go duration of at least 1m0s is allowed`},
		{"KeepZero", "1h", "0", "/b", `annotation controlplane.cluster.x-k8s.io/etcd-snapshot-keep is "0": a whole number of at least 1 is allowed`},
		{"NoDirectory", "1h", "", "", `annotation controlplane.cluster.x-k8s.io/etcd-snapshot-directory is "": the absolute path of a directory of the controller's filesystem is required`},
		{"RelativeDirectory", "1h", "", "backups", `annotation controlplane.cluster.x-k8s.io/etcd-snapshot-directory is "backups": the absolute path`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			a := map[string]string{controlplanev1.EtcdSnapshotIntervalAnnotation: tt.interval, controlplanev1.EtcdSnapshotDirectoryAnnotation: tt.dir}
			if tt.keep != "" {
				a[controlplanev1.EtcdSnapshotKeepAnnotation] = tt.keep
			}
			_, err := parseSnapshotSchedule(kcp(a), cluster)
			require.ErrorContains(t, err, tt.want)
		})
	}
	external := kcp(map[string]string{controlplanev1.EtcdSnapshotIntervalAnnotation: "1h", controlplanev1.EtcdSnapshotDirectoryAnnotation: "/b"})
	external.Spec.KubeadmConfigSpec.ClusterConfiguration.Etcd.External.Endpoints = []string{"https://etcd:2379"}
	_, err = parseSnapshotSchedule(external, cluster)
	require.ErrorContains(t, err, "the control plane's etcd is external")
}

// TestEtcdSnapshots_TakenWhenDueKeptAndNotRepeatedAfterARestart: with older snapshots on disk
// (all past the interval) and a temporary file a killed controller left, the first reconcile of
// the initialized control plane saves a verified snapshot, keeps the newest two, removes the
// temporary file, records an Event, and says so in EtcdSnapshotSucceeded; a restarted controller
// takes none before the next is due. An invalid interval is named in the condition; without the
// annotation the condition goes.
func TestEtcdSnapshots_TakenWhenDueKeptAndNotRepeatedAfterARestart(t *testing.T) {
	root := t.TempDir()
	stop := startController(t)
	f := newFixture(t, func(o *fixtureOptions) {
		o.kcp = func(k *controlplanev1.KubeadmControlPlane) {
			k.Annotations = map[string]string{controlplanev1.EtcdSnapshotIntervalAnnotation: "1h",
				controlplanev1.EtcdSnapshotKeepAnnotation: "2", controlplanev1.EtcdSnapshotDirectoryAnnotation: root}
		}
	})
	dir := filepath.Join(root, f.ns, f.cluster.Name)
	require.NoError(t, os.MkdirAll(dir, 0o700))
	now := time.Now()
	var old []string
	for _, age := range []time.Duration{5 * time.Hour, 3 * time.Hour, 2 * time.Hour} {
		p := filepath.Join(dir, etcd.SnapshotFileName(f.cluster.Name, now.Add(-age)))
		require.NoError(t, os.WriteFile(p, []byte("old"), 0o600))
		old = append(old, p)
	}
	leftover := filepath.Join(dir, "."+etcd.SnapshotFileName(f.cluster.Name, now.Add(-time.Hour))+".part-123")
	require.NoError(t, os.WriteFile(leftover, []byte("cut"), 0o600))
	f.etcd().mu.Lock()
	f.etcd().snapshot = etcdtest.Snapshot(t, map[string][]byte{"/registry/configmaps/default/a": []byte("v")})
	f.etcd().mu.Unlock()

	f.growTo(1)
	k := f.waitCondition(controlplanev1.KubeadmControlPlaneEtcdSnapshotSucceededCondition, metav1.ConditionTrue, "the newest 2 kept")
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	var files []string
	for _, e := range entries {
		files = append(files, filepath.Join(dir, e.Name()))
	}
	sort.Strings(files)
	require.Len(t, files, 2, "the new snapshot and the newest old one: %v", files)
	require.Equal(t, old[2], files[0])
	info, err := etcd.VerifySnapshot(files[1])
	require.NoError(t, err)
	require.Equal(t, int64(2), info.Revision)
	c := conditions.Get(k, controlplanev1.KubeadmControlPlaneEtcdSnapshotSucceededCondition)
	require.Contains(t, c.Message, "Snapshot "+files[1]+" taken ")
	taken, err := env.Events(t.Context(), f.kcp, ReasonEtcdSnapshotTaken)
	require.NoError(t, err)
	require.Len(t, taken, 1)

	stop()
	startController(t)
	f.etcd().waitPasses(t, 3)
	f.etcd().mu.Lock()
	require.Len(t, f.etcd().snapshotNodes, 1, "a restarted controller takes no snapshot before the next is due")
	f.etcd().mu.Unlock()

	f.updateKCP(func(k *controlplanev1.KubeadmControlPlane) {
		k.Annotations[controlplanev1.EtcdSnapshotIntervalAnnotation] = "30s"
	})
	f.waitCondition(controlplanev1.KubeadmControlPlaneEtcdSnapshotSucceededCondition, metav1.ConditionFalse,
		`annotation controlplane.cluster.x-k8s.io/etcd-snapshot-interval is "30s"`)
	f.updateKCP(func(k *controlplanev1.KubeadmControlPlane) {
		delete(k.Annotations, controlplanev1.EtcdSnapshotIntervalAnnotation)
	})
	f.waitKCP("EtcdSnapshotSucceeded removed", func(k *controlplanev1.KubeadmControlPlane) error {
		if c := conditions.Get(k, controlplanev1.KubeadmControlPlaneEtcdSnapshotSucceededCondition); c != nil {
			return fmt.Errorf("still %+v", c)
		}
		return nil
	})
}

// TestEtcdSnapshots_AFailureLeavesNoFile: a snapshot that cannot be streamed is a Warning Event
// and EtcdSnapshotSucceeded False naming the error; no file is left.
func TestEtcdSnapshots_AFailureLeavesNoFile(t *testing.T) {
	root := t.TempDir()
	startController(t)
	f := newFixture(t, func(o *fixtureOptions) {
		o.kcp = func(k *controlplanev1.KubeadmControlPlane) {
			k.Annotations = map[string]string{controlplanev1.EtcdSnapshotIntervalAnnotation: "1h", controlplanev1.EtcdSnapshotDirectoryAnnotation: root}
		}
	})
	m := f.growTo(1)[0]
	f.waitCondition(controlplanev1.KubeadmControlPlaneEtcdSnapshotSucceededCondition, metav1.ConditionFalse,
		"The scheduled snapshot failed (retried every minute): snapshot of etcd member "+m.Status.NodeRef.Name+": the fake etcd has no snapshot to stream")
	failed, err := env.Events(t.Context(), f.kcp, ReasonEtcdSnapshotFailed)
	require.NoError(t, err)
	require.NotEmpty(t, failed)
	entries, err := os.ReadDir(filepath.Join(root, f.ns, f.cluster.Name))
	require.NoError(t, err)
	require.Empty(t, entries, "no partial snapshot left")
}
