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

package dockermachinepool

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/remote"
	infrav1 "capstan.dev/infrastructure-docker/api/v1beta2"
	"capstan.dev/infrastructure-docker/internal/node"
)

// SpecHashLabel, on a pool's node container, is a hash of what the instance was made from (its
// image, spec.template.extraMounts and spec.template.preLoadImages): an instance whose hash is
// not the pool's current one runs an older template or version, and is replaced.
const SpecHashLabel = "io.capstan.docker-machine-pool-spec"

// maxSurge is how many instances beyond spec.replicas a rollout may add: replacements are made
// one at a time, and an outdated instance whose Node is Ready goes only once as many Nodes as
// spec.replicas stay Ready without it (a MachineDeployment's default: maxSurge 1,
// maxUnavailable 0).
const maxSurge = 1

// instanceSpec is what a new instance is made from.
type instanceSpec struct {
	image string
	// hash is the SpecHashLabel value of an instance made from it.
	hash string
}

// desiredSpec is what a new instance of pool is made from now; the zero value when no image can
// be named (neither a version nor a customImage: scaleUp reports it).
func desiredSpec(pool *infrav1.DockerMachinePool, mp *clusterv1.MachinePool) instanceSpec {
	tmpl := pool.Spec.Template
	image := node.Image(tmpl.CustomImage, mp.Spec.Template.Spec.Version)
	if image == "" {
		return instanceSpec{}
	}
	raw, _ := json.Marshal(struct { // strings and lists of strings always marshal
		Image         string          `json:"image"`
		ExtraMounts   []infrav1.Mount `json:"extraMounts,omitempty"`
		PreLoadImages []string        `json:"preLoadImages,omitempty"`
	}{image, tmpl.ExtraMounts, tmpl.PreLoadImages})
	sum := sha256.Sum256(raw)
	return instanceSpec{image: image, hash: hex.EncodeToString(sum[:8])}
}

// markOutdated records what a new instance is made from now and marks every instance made from
// something else: its SpecHashLabel differs, or, for a container made before the label existed,
// its image does (upstream's Docker provider compares the image only).
func (r *Reconciler) markOutdated(_ context.Context, s *scope) (ctrl.Result, error) {
	s.spec = desiredSpec(s.pool, s.machinePool)
	for _, in := range s.instances {
		switch hash, ok := in.container.Labels[SpecHashLabel]; {
		case s.spec.image == "":
			in.outdated = false
		case ok:
			in.outdated = hash != s.spec.hash
		default:
			in.outdated = in.container.Image != s.spec.image
		}
	}
	return ctrl.Result{}, nil
}

func countOutdated(instances []*instance) int {
	n := 0
	for _, in := range instances {
		if in.outdated {
			n++
		}
	}
	return n
}

// toCreate is how many instances scale up adds: up to spec.replicas, and while a rollout runs,
// up-to-date ones until spec.replicas of them exist, never more than maxSurge beyond
// spec.replicas in all.
func toCreate(instances []*instance, desired int) int {
	outdated := countOutdated(instances)
	if outdated == 0 {
		return max(0, desired-len(instances))
	}
	return max(0, min(desired-(len(instances)-outdated), desired+maxSurge-len(instances)))
}

// readyNodes says, for each instance whose Node carries its providerID (as last recorded),
// whether that Node is Ready, read from the workload cluster's cache. A rollout removes a Ready
// outdated instance only while enough Ready Nodes stay; what cannot be read counts as not Ready.
func (r *Reconciler) readyNodes(ctx context.Context, s *scope) (map[*instance]bool, error) {
	out := map[*instance]bool{}
	wc, err := r.Workload.GetClient(ctx, client.ObjectKeyFromObject(s.cluster))
	if errors.Is(err, remote.ErrClusterNotConnected) {
		return out, nil
	}
	if err != nil {
		return nil, err
	}
	for _, in := range s.instances {
		if !in.recorded.Ready {
			continue
		}
		n := &corev1.Node{}
		if err := wc.Get(ctx, client.ObjectKey{Name: in.container.Name}, n); err != nil {
			if client.IgnoreNotFound(err) != nil {
				return nil, fmt.Errorf("reading Node %s: %w", in.container.Name, err)
			}
			continue
		}
		for _, c := range n.Status.Conditions {
			if c.Type == corev1.NodeReady && c.Status == corev1.ConditionTrue {
				out[in] = true
			}
		}
	}
	return out, nil
}
