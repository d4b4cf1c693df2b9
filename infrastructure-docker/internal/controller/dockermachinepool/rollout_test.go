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
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/conditions"
	"capstan.dev/contracts/envtest"
	infrav1 "capstan.dev/infrastructure-docker/api/v1beta2"
	"capstan.dev/infrastructure-docker/internal/docker"
	"capstan.dev/infrastructure-docker/internal/node/nodetest"
)

// TestDockerMachinePool_RollsOutANewTemplateOneInstanceAtATime: an extraMounts change replaces
// both instances of a pool of 2 one at a time: a new instance is made first, and an old one goes
// only once a new instance's Node is Ready, so that 2 Nodes stay Ready (the test holds each new
// Node NotReady until the controller said it waits for it, with 3 instances and the old ones
// still there). The new instances run with the mount.
func TestDockerMachinePool_RollsOutANewTemplateOneInstanceAtATime(t *testing.T) {
	rt := nodetest.Docker(t)
	f := nodetest.NewFixture(t, env, rt, "roll")
	f.SetInfrastructureProvisioned(t)
	_, pool := newPool(t, f, "pool", fakeBootstrapData("data"), poolOptions{replicas: ptr.To(int32(2))})
	counter := &envtest.CallCounter{Key: client.ObjectKeyFromObject(pool), Type: &infrav1.DockerMachinePool{}}
	startManager(t, rt, nil, func(r *Reconciler) { r.NodeReadyPoll = 200 * time.Millisecond }, counted(counter))
	waitPool(t, pool, 90*time.Second, "2 instances provisioned", provisionedWith(2))
	old := map[string]bool{}
	for _, c := range poolContainers(t, rt, pool) {
		old[c.Name] = true
		createNode(t, c.Name, true)
	}
	nodetest.WaitCondition(t, env.Client, pool, 30*time.Second, infrav1.DockerMachinePoolReadyCondition, metav1.ConditionTrue, infrav1.DockerMachinePoolReadyReason, "")

	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "marker"), []byte("mounted\n"), 0o644))
	envtest.Update(t, env.Client, pool, func() {
		pool.Spec.Template.ExtraMounts = []infrav1.Mount{{ContainerPath: "/mnt/rollout", HostPath: dir}}
	})
	for oldLeft := 2; oldLeft > 0; oldLeft-- {
		fresh := waitForHeldReplacement(t, rt, pool, old, oldLeft)
		createNode(t, fresh, true) // its Node turns Ready: one old instance may go now
	}
	waitPool(t, pool, 60*time.Second, "2 new instances, ReplicasReady", func(p *infrav1.DockerMachinePool) error {
		if err := provisionedWith(2)(p); err != nil {
			return err
		}
		if !conditions.IsTrue(p, infrav1.DockerMachinePoolReplicasReadyCondition) {
			return fmt.Errorf("ReplicasReady is %+v", conditions.Get(p, infrav1.DockerMachinePoolReplicasReadyCondition))
		}
		return nil
	})
	cs := poolContainers(t, rt, pool)
	require.Len(t, cs, 2)
	for _, c := range cs {
		require.False(t, old[c.Name], "old instance %s is still there", c.Name)
		require.Equal(t, "mounted\n", nodetest.ExecOut(t, rt, &c, "cat", "/mnt/rollout/marker"), "the new template's mount in %s", c.Name)
	}

	// Each step is recorded once: the 2 instances (one Event), then one replacement and one
	// outdated instance removed per step.
	require.Equal(t, 3, counter.EventsRecorded(ReasonSuccessfulCreate, pool.Name), "2 instances at once, then 2 replacements")
	require.Equal(t, 2, counter.EventsRecorded(ReasonSuccessfulDelete, pool.Name), "the 2 outdated instances")
	removed := env.WaitForEvents(t, 30*time.Second, pool, ReasonSuccessfulDelete, 1)
	require.Equal(t, "Rollout", removed[0].Action)
	require.True(t, old[strings.Fields(removed[0].Note)[2]], "an outdated instance removed: %s", removed[0].Note)
	require.Contains(t, removed[0].Note, "(outdated: replaced by the rollout)")
	created := env.WaitForEvents(t, 30*time.Second, pool, ReasonSuccessfulCreate, 2)
	var rollout []string
	for _, ev := range created {
		if ev.Action == "Rollout" {
			rollout = append(rollout, ev.Note)
		}
	}
	require.Len(t, rollout, 1, "the 2 steps are one Event's series: %+v", created)
	require.Regexp(t, "^Created instance "+pool.Name+"-[a-z0-9]{5} \\(image .*\\) to replace outdated instances$", rollout[0])
}

// waitForHeldReplacement waits until the pool has 3 instances, oldLeft of them old (in old) and
// one new whose Node does not exist yet, and the controller says it holds the old instance
// until a new Node is Ready; it returns that new instance's name.
func waitForHeldReplacement(t *testing.T, rt *docker.Runtime, pool *infrav1.DockerMachinePool, old map[string]bool, oldLeft int) string {
	t.Helper()
	var fresh string
	envtest.WaitFor(t, 60*time.Second, fmt.Sprintf("a new instance made and %d old held", oldLeft), func() (bool, error) {
		got := &infrav1.DockerMachinePool{}
		if err := env.Client.Get(context.Background(), client.ObjectKeyFromObject(pool), got); err != nil {
			return false, err
		}
		c := conditions.Get(got, infrav1.DockerMachinePoolReplicasReadyCondition)
		var olds, nodeless []string
		for _, in := range poolContainers(t, rt, pool) {
			if old[in.Name] {
				olds = append(olds, in.Name)
			} else if err := env.Client.Get(context.Background(), client.ObjectKey{Name: in.Name}, &corev1.Node{}); err != nil {
				nodeless = append(nodeless, in.Name)
			}
		}
		seen := fmt.Errorf("old %v, new without Node %v, ReplicasReady %+v", olds, nodeless, c)
		if c == nil || c.Reason != infrav1.DockerMachinePoolRollingOutReason || !strings.Contains(c.Message, "goes once another instance's Node is Ready") ||
			len(olds) != oldLeft || len(nodeless) != 1 {
			return false, seen
		}
		fresh = nodeless[0]
		return true, nil
	})
	return fresh
}

// createNode registers the workload Node of an instance (the envtest API server plays the
// workload cluster), Ready or not.
func createNode(t *testing.T, name string, ready bool) {
	t.Helper()
	nodetest.CreateNode(t, env.Client, name)
	status := corev1.ConditionFalse
	if ready {
		status = corev1.ConditionTrue
	}
	n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}}
	envtest.UpdateStatus(t, env.Client, n, func() {
		n.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: status, LastTransitionTime: metav1.Now()}}
	})
}

// TestMarkOutdated_ComparesTheSpecHashOrTheImage: an instance is outdated when its spec label is
// not the pool's current hash (version, customImage, extraMounts or preLoadImages changed), or,
// made before the label existed, when its image differs.
func TestMarkOutdated_ComparesTheSpecHashOrTheImage(t *testing.T) {
	mp := &clusterv1.MachinePool{Spec: clusterv1.MachinePoolSpec{Template: clusterv1.MachineTemplateSpec{Spec: clusterv1.MachineSpec{Version: "v1.37.2"}}}}
	pool := &infrav1.DockerMachinePool{}
	base := desiredSpec(pool, mp)
	require.Equal(t, "capstan/node:v1.37.2", base.image)

	changes := map[string]func(*infrav1.DockerMachinePool, *clusterv1.MachinePool){
		"version": func(_ *infrav1.DockerMachinePool, m *clusterv1.MachinePool) { m.Spec.Template.Spec.Version = "v1.38.0" },
		"customImage": func(p *infrav1.DockerMachinePool, _ *clusterv1.MachinePool) {
			p.Spec.Template.CustomImage = "capstan/node:custom"
		},
		"extraMounts": func(p *infrav1.DockerMachinePool, _ *clusterv1.MachinePool) {
			p.Spec.Template.ExtraMounts = []infrav1.Mount{{ContainerPath: "/a", HostPath: "/b"}}
		},
		"preLoadImages": func(p *infrav1.DockerMachinePool, _ *clusterv1.MachinePool) {
			p.Spec.Template.PreLoadImages = []string{"busybox:1"}
		},
	}
	for name, change := range changes {
		p, m := pool.DeepCopy(), mp.DeepCopy()
		change(p, m)
		require.NotEqual(t, base.hash, desiredSpec(p, m).hash, name)
	}

	labelled := &instance{container: docker.Container{Name: "a", Image: "capstan/node:v1.37.2", Labels: map[string]string{SpecHashLabel: "stale"}}}
	unlabelledSame := &instance{container: docker.Container{Name: "b", Image: "capstan/node:v1.37.2"}}
	unlabelledOld := &instance{container: docker.Container{Name: "c", Image: "capstan/node:v1.36.3"}}
	current := &instance{container: docker.Container{Name: "d", Image: "capstan/node:v1.37.2", Labels: map[string]string{SpecHashLabel: base.hash}}}
	s := &scope{pool: pool, machinePool: mp, instances: []*instance{labelled, unlabelledSame, unlabelledOld, current}}
	_, err := (&Reconciler{}).markOutdated(context.Background(), s)
	require.NoError(t, err)
	require.Equal(t, []bool{true, false, true, false}, []bool{labelled.outdated, unlabelledSame.outdated, unlabelledOld.outdated, current.outdated})
}

// TestToCreate_ReplacesWithinOneSurge: outside a rollout scale up fills spec.replicas; during
// one it adds up-to-date instances one beyond spec.replicas at most.
func TestToCreate_ReplacesWithinOneSurge(t *testing.T) {
	pool := func(outdated, upToDate int) []*instance {
		var out []*instance
		for i := range outdated + upToDate {
			out = append(out, &instance{outdated: i < outdated})
		}
		return out
	}
	for _, tc := range []struct{ outdated, upToDate, desired, want int }{
		{0, 1, 3, 2},
		{0, 3, 3, 0},
		{2, 0, 2, 1}, // the surge instance
		{2, 1, 2, 0}, // surge used: wait for an old one to go
		{1, 1, 2, 1},
		{1, 2, 2, 0}, // enough up-to-date: the old one goes at scale down
		{3, 0, 1, 0}, // scaling down too: nothing new while old ones exceed the surge
	} {
		require.Equal(t, tc.want, toCreate(pool(tc.outdated, tc.upToDate), tc.desired), "%+v", tc)
	}
}

// TestScaleDownOrder_OutdatedFirst: a rollout's excess instance is an old one, even a Ready
// one, never the replacement still bootstrapping.
func TestScaleDownOrder_OutdatedFirst(t *testing.T) {
	oldReady := &instance{container: docker.Container{Name: "old"}, outdated: true,
		recorded: infrav1.DockerMachinePoolInstanceStatus{Bootstrapped: true, Ready: true}}
	newBootstrapping := &instance{container: docker.Container{Name: "new"}}
	require.Equal(t, []*instance{oldReady, newBootstrapping}, scaleDownOrder([]*instance{newBootstrapping, oldReady}))
}
