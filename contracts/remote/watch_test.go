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
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"
)

type nopWatcher struct{}

func (nopWatcher) Watch(source.Source) error { return nil }

func watchOf(obj client.Object) WatchInput {
	return WatchInput{Name: "w", Watcher: nopWatcher{}, Kind: obj, EventHandler: &handler.EnqueueRequestForObject{}}
}

func TestCheckWatchable_RefusesSecretsConfigMapsAndPodsInEveryForm(t *testing.T) {
	unstructuredOf := func(kind string) client.Object {
		u := &unstructured.Unstructured{}
		u.SetAPIVersion("v1")
		u.SetKind(kind)
		return u
	}
	for _, obj := range []client.Object{
		&corev1.Secret{}, &corev1.ConfigMap{}, &corev1.Pod{},
		unstructuredOf("Secret"), unstructuredOf("Pod"),
		&metav1.PartialObjectMetadata{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"}},
	} {
		err := checkWatchable(clientgoscheme.Scheme, testCluster, watchOf(obj))
		require.ErrorContains(t, err, "refusing watch w on ", "%T", obj)
		require.ErrorContains(t, err, "in the workload cluster of Cluster ns1/c1: Secrets, ConfigMaps and Pods are never cached")
	}
}

func TestCheckWatchable_AcceptsNodesAndNamesWhatIsMissing(t *testing.T) {
	require.NoError(t, checkWatchable(clientgoscheme.Scheme, testCluster, watchOf(&corev1.Node{})))

	in := watchOf(&corev1.Node{})
	in.Name = ""
	require.ErrorContains(t, checkWatchable(clientgoscheme.Scheme, testCluster, in), "needs a Name")
	in = watchOf(&corev1.Node{})
	in.Watcher = nil
	require.ErrorContains(t, checkWatchable(clientgoscheme.Scheme, testCluster, in), "needs a Watcher")
	in = watchOf(nil)
	require.ErrorContains(t, checkWatchable(clientgoscheme.Scheme, testCluster, in), "needs a Kind")
	in = watchOf(&corev1.Node{})
	in.EventHandler = nil
	require.ErrorContains(t, checkWatchable(clientgoscheme.Scheme, testCluster, in), "needs an EventHandler")
}

// startRecorder is a source that records the context it was started with.
type startRecorder struct{ ctx context.Context }

func (s *startRecorder) Start(ctx context.Context, _ workqueue.TypedRateLimitingInterface[reconcile.Request]) error {
	s.ctx = ctx
	return nil
}

func TestConnectionSource_EndsTheWatchWhenTheConnectionEnds(t *testing.T) {
	connCtx, disconnect := context.WithCancel(context.Background())
	inner := &startRecorder{}
	src := &connectionSource{kind: inner, connCtx: connCtx, name: "nodes"}
	require.NoError(t, src.Start(context.Background(), nil))
	require.NoError(t, inner.ctx.Err())
	disconnect()
	<-inner.ctx.Done()
	require.True(t, errors.Is(inner.ctx.Err(), context.Canceled))
	_, syncing := any(src).(source.SyncingSource)
	require.False(t, syncing, "a controller must never wait for a workload cluster's cache")
}

func TestAccessorWatch_FailsWhileDisconnected(t *testing.T) {
	a := newAccessor(testCluster)
	started, err := a.watch(watchOf(&corev1.Node{}))
	require.False(t, started)
	require.True(t, errors.Is(err, ErrClusterNotConnected))
	require.ErrorContains(t, err, "starting watch w: workload cluster of Cluster ns1/c1: connection to the workload cluster is down")
	require.Empty(t, a.rememberedWatches(), "a watch that did not start is not re-established later")
}
