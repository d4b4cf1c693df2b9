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

package remote

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// machinesOf maps a Cluster to two requests, as a Machine controller's mapFunc would.
func machinesOf(_ context.Context, cluster client.ObjectKey) []reconcile.Request {
	return []reconcile.Request{
		{NamespacedName: types.NamespacedName{Namespace: cluster.Namespace, Name: cluster.Name + "-m1"}},
		{NamespacedName: types.NamespacedName{Namespace: cluster.Namespace, Name: cluster.Name + "-m2"}},
	}
}

func newTestSource(opts ...ClusterSourceOption) *clusterSource {
	cc := &ClusterCache{}
	return cc.GetClusterSource("machine", machinesOf, opts...).(*clusterSource)
}

func newQueue(t *testing.T) workqueue.TypedRateLimitingInterface[reconcile.Request] {
	q := workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[reconcile.Request]())
	t.Cleanup(q.ShutDown)
	return q
}

func drain(q workqueue.TypedRateLimitingInterface[reconcile.Request]) []string {
	var out []string
	for q.Len() > 0 {
		req, _ := q.Get()
		out = append(out, req.String())
		q.Done(req)
		q.Forget(req)
	}
	return out
}

func TestClusterSource_EnqueuesTheMappedRequestsOnConnectAndDisconnect(t *testing.T) {
	s := newTestSource()
	q := newQueue(t)
	require.NoError(t, s.Start(context.Background(), q))

	s.send(context.Background(), testCluster, t0, clusterEvent{connected: true, lastProbeSuccess: t0})
	require.ElementsMatch(t, []string{"ns1/c1-m1", "ns1/c1-m2"}, drain(q))

	s.send(context.Background(), testCluster, t0.Add(time.Second), clusterEvent{lastProbeSuccess: t0})
	require.Empty(t, drain(q), "nothing happened, nothing to tell")

	s.send(context.Background(), testCluster, t0.Add(time.Minute), clusterEvent{disconnected: true, lastProbeSuccess: t0})
	require.ElementsMatch(t, []string{"ns1/c1-m1", "ns1/c1-m2"}, drain(q))
}

func TestClusterSource_DropsEventsBeforeTheControllerStarts(t *testing.T) {
	s := newTestSource()
	s.send(context.Background(), testCluster, t0, clusterEvent{connected: true})
	q := newQueue(t)
	require.NoError(t, s.Start(context.Background(), q))
	require.Empty(t, drain(q))
	require.ErrorContains(t, s.Start(context.Background(), q), "started twice")
}

func TestClusterSource_FiresOnceWhenTheProbeFailsLongerThanWatchForProbeFailure(t *testing.T) {
	s := newTestSource(WatchForProbeFailure(time.Minute))
	q := newQueue(t)
	require.NoError(t, s.Start(context.Background(), q))
	failingSince := clusterEvent{lastProbeSuccess: t0}

	s.send(context.Background(), testCluster, t0.Add(30*time.Second), failingSince)
	require.Empty(t, drain(q))
	s.send(context.Background(), testCluster, t0.Add(61*time.Second), failingSince)
	require.Len(t, drain(q), 2)
	s.send(context.Background(), testCluster, t0.Add(90*time.Second), failingSince)
	require.Empty(t, drain(q), "one event per failure period")

	s.forget(testCluster)
	s.send(context.Background(), testCluster, t0.Add(91*time.Second), failingSince)
	require.Len(t, drain(q), 2, "a forgotten Cluster starts afresh")
}

func TestKickSource_EnqueuesTheClusterOnceStarted(t *testing.T) {
	k := &kickSource{}
	k.kick(testCluster) // before start: dropped, never blocks
	q := newQueue(t)
	require.NoError(t, k.Start(context.Background(), q))
	k.kick(testCluster)
	require.Equal(t, []string{"ns1/c1"}, drain(q))
}
