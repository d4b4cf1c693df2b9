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
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
)

// armDelay is how far ahead the nodes are told to switch: long enough to arm every node
// before the first stops its etcd, after which the API server cannot be reached to arm more.
const armDelay = 10 * time.Second

// Result is what a restore did.
type Result struct {
	Token string
	// Revision is the restored store's revision (the snapshot's plus revisionBump).
	Revision int64
	// WorkDir is where each node keeps the previous data (member.before) and the script's log.
	WorkDir string
}

// DataDirs restores every member's data directory from the snapshot into dir and returns them
// packed for their nodes, by member name: the work that can fail on the snapshot, done before
// anything in the cluster changes (and all of a dry run's).
func (p *Plan) DataDirs(token, dir string) (map[string][]byte, error) {
	packed := map[string][]byte{}
	for _, m := range p.Members {
		out := filepath.Join(dir, m.Name)
		if err := restoreDataDir(p.Snapshot, m, p.Members, token, out); err != nil {
			return nil, err
		}
		var buf bytes.Buffer
		if err := writeTarGz(&buf, out); err != nil {
			return nil, err
		}
		if err := os.RemoveAll(out); err != nil {
			return nil, err
		}
		packed[m.Name] = buf.Bytes()
	}
	return packed, nil
}

// NewToken names one restore: the etcd cluster token and the nodes' work directory.
func NewToken() string {
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return "restore-" + hex.EncodeToString(b)
}

// Run restores the planned cluster's etcd from the snapshot: every member's data directory
// restored here, the Cluster paused, a restore Pod per control plane node given its member's
// data, all nodes switched at one moment (etcd's procedure for a cluster of several members:
// all restored from one snapshot with one token), then it waits for the new members to be
// healthy and the control plane Nodes Ready, and resumes the Cluster. Until the nodes are armed
// a failure changes nothing lasting: the Pods are deleted and the Cluster resumed.
func (p *Plan) Run(ctx context.Context, mgmt client.Client, progress io.Writer) (*Result, error) {
	token := NewToken()
	tmp, err := os.MkdirTemp("", "capstan-etcd-restore-")
	if err != nil {
		return nil, err
	}
	defer func() { _ = os.RemoveAll(tmp) }()
	fmt.Fprintf(progress, "restoring %d member data directories from %s\n", len(p.Members), p.Snapshot)
	packed, err := p.DataDirs(token, tmp)
	if err != nil {
		return nil, err
	}
	if err := p.setPaused(ctx, mgmt, token); err != nil {
		return nil, err
	}
	fmt.Fprintf(progress, "cluster %s/%s paused; starting a restore Pod on each control plane node\n", p.Target.Cluster.Namespace, p.Target.Cluster.Name)
	armed, err := p.prepareNodes(ctx, token, packed, progress)
	if err != nil {
		cleanup, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Minute)
		defer cancel()
		for _, node := range armed {
			err = errors.Join(err, p.disarm(cleanup, node, token))
		}
		err = errors.Join(err, p.deletePods(cleanup), p.setPaused(cleanup, mgmt, ""))
		return nil, fmt.Errorf("the restore did not start, etcd is unchanged: %w", err)
	}
	fmt.Fprintf(progress, "every node switches to the restored data at %s; the workload API is down until then and for a minute after\n", time.Now().Add(armDelay).UTC().Format(time.RFC3339))
	if err := p.waitRestored(ctx, progress); err != nil {
		return nil, fmt.Errorf("%w; each node's log is in %s/log, its previous data in %s/member.before; the Cluster stays paused", err, p.workDir(token), p.workDir(token))
	}
	if err := p.setPaused(ctx, mgmt, ""); err != nil {
		return nil, err
	}
	return &Result{Token: token, Revision: p.Info.Revision + revisionBump, WorkDir: p.workDir(token)}, nil
}

// prepareNodes starts the Pods, uploads each member's data, then arms every node; it returns
// the nodes armed so far.
func (p *Plan) prepareNodes(ctx context.Context, token string, packed map[string][]byte, progress io.Writer) ([]string, error) {
	if err := p.startPods(ctx, token); err != nil {
		return nil, err
	}
	for _, m := range p.Members {
		if err := p.upload(ctx, m.Name, token, packed[m.Name]); err != nil {
			return nil, err
		}
		fmt.Fprintf(progress, "  %s: restored data uploaded (%d bytes compressed)\n", m.Name, len(packed[m.Name]))
	}
	at := time.Now().Add(armDelay)
	var armed []string
	for _, m := range p.Members {
		if err := p.arm(ctx, m.Name, token, at); err != nil {
			return armed, err
		}
		armed = append(armed, m.Name)
	}
	return armed, nil
}

// waitRestored waits until every planned member answers as a member of the restored cluster
// (the old members' IDs are gone: a new token makes new IDs) with a leader, and every control
// plane Node is Ready again.
func (p *Plan) waitRestored(ctx context.Context, progress io.Writer) error {
	old := map[uint64]bool{}
	for _, m := range p.Members {
		old[m.ID] = true
	}
	var why string
	err := wait.PollUntilContextCancel(ctx, 5*time.Second, false, func(ctx context.Context) (bool, error) {
		why = p.restoredMembers(ctx, old)
		if why == "" {
			why = p.notReadyNodes(ctx)
		}
		fmt.Fprintf(progress, "  waiting: %s\n", orDone(why))
		return why == "", nil
	})
	if err != nil {
		return fmt.Errorf("the restored etcd is not healthy yet (%s): %w", why, err)
	}
	return nil
}

// restoredMembers says what is not yet restored, "" when every member is.
func (p *Plan) restoredMembers(ctx context.Context, old map[uint64]bool) string {
	for _, m := range p.Members {
		c, err := p.connect(ctx, m.Name)
		if err != nil {
			return fmt.Sprintf("etcd on %s: %v", m.Name, err)
		}
		st, err := c.Status(ctx)
		var members int
		if err == nil {
			l, lerr := c.Members(ctx)
			members, err = len(l), lerr
		}
		c.Close()
		switch {
		case err != nil:
			return fmt.Sprintf("etcd on %s: %v", m.Name, err)
		case old[st.ID]:
			return fmt.Sprintf("etcd on %s still runs the old data (member %x)", m.Name, st.ID)
		case st.Leader == 0:
			return fmt.Sprintf("etcd on %s has no leader", m.Name)
		case members != len(p.Members):
			return fmt.Sprintf("etcd on %s has %d members, want %d", m.Name, members, len(p.Members))
		}
	}
	return ""
}

// notReadyNodes names the control plane Nodes not Ready, "" when all are.
func (p *Plan) notReadyNodes(ctx context.Context) string {
	for _, m := range p.Members {
		n, err := p.clientset.CoreV1().Nodes().Get(ctx, m.Name, metav1.GetOptions{})
		if err != nil {
			return fmt.Sprintf("Node %s: %v", m.Name, err)
		}
		ready := false
		for _, c := range n.Status.Conditions {
			ready = ready || (c.Type == corev1.NodeReady && c.Status == corev1.ConditionTrue)
		}
		if !ready {
			return "Node " + m.Name + " is not Ready"
		}
	}
	return ""
}

func orDone(why string) string {
	if why == "" {
		return "every member restored and every control plane Node Ready"
	}
	return why
}

// setPaused pauses the Cluster for token, or with token "" resumes a Cluster the restore paused.
func (p *Plan) setPaused(ctx context.Context, mgmt client.Client, token string) error {
	c := &clusterv1.Cluster{}
	if err := mgmt.Get(ctx, client.ObjectKeyFromObject(p.Target.Cluster), c); err != nil {
		return err
	}
	before := c.DeepCopy()
	if token != "" {
		c.Spec.Paused = ptr.To(true)
		metav1.SetMetaDataAnnotation(&c.ObjectMeta, PausedByAnnotation, token)
	} else if c.Annotations[PausedByAnnotation] != "" {
		c.Spec.Paused = nil
		delete(c.Annotations, PausedByAnnotation)
	}
	if err := mgmt.Patch(ctx, c, client.MergeFrom(before)); err != nil {
		return fmt.Errorf("pausing or resuming cluster %s/%s: %w", c.Namespace, c.Name, err)
	}
	return nil
}
