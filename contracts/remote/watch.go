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
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"
)

// SourceWatcher is the part of a controller Watch needs: controller.Controller (what
// builder.Build returns) satisfies it.
type SourceWatcher interface {
	Watch(src source.Source) error
}

// WatchInput describes a watch on a workload cluster for one controller.
type WatchInput struct {
	// Name identifies the watch within the Cluster: a second Watch with the same Name is a
	// no-op, so controllers may call Watch on every reconcile. Use e.g. "machine-nodes".
	Name string
	// Watcher is the controller whose queue receives the requests.
	Watcher SourceWatcher
	// Kind is the object to watch, e.g. &corev1.Node{}.
	Kind client.Object
	// EventHandler maps workload-cluster events to requests of the controller.
	EventHandler handler.TypedEventHandler[client.Object, reconcile.Request]
	// Predicates filter the events.
	Predicates []predicate.TypedPredicate[client.Object]
}

// neverCached are the kinds a workload cache must never hold: there are many of them,
// Secrets and ConfigMaps may be large and Pods churn, so caching them costs memory per
// cluster for reads that are rare (drain lists Pods once per Machine deletion).
var neverCached = []client.Object{&corev1.Secret{}, &corev1.ConfigMap{}, &corev1.Pod{}}

var neverCachedKinds = map[schema.GroupKind]bool{
	{Kind: "Secret"}:    true,
	{Kind: "ConfigMap"}: true,
	{Kind: "Pod"}:       true,
}

// checkWatchable validates a WatchInput and refuses the kinds a workload cache never holds.
func checkWatchable(scheme *runtime.Scheme, cluster client.ObjectKey, in WatchInput) error {
	switch {
	case in.Name == "":
		return errors.New("watch on a workload cluster needs a Name")
	case in.Watcher == nil:
		return fmt.Errorf("watch %s needs a Watcher (the controller to notify)", in.Name)
	case in.Kind == nil:
		return fmt.Errorf("watch %s needs a Kind", in.Name)
	case in.EventHandler == nil:
		return fmt.Errorf("watch %s needs an EventHandler", in.Name)
	}
	gvk, err := apiutil.GVKForObject(in.Kind, scheme)
	if err != nil {
		return fmt.Errorf("watch %s: %w", in.Name, err)
	}
	if neverCachedKinds[gvk.GroupKind()] {
		return fmt.Errorf("refusing watch %s on %s in the workload cluster of Cluster %s: Secrets, ConfigMaps and Pods "+
			"are never cached; read them with GetUncachedClient", in.Name, gvk.Kind, cluster)
	}
	return nil
}

// connectionSource scopes a controller's Kind source to one connection.
//
// The source starts an informer on the workload cache and, until that informer syncs, waits
// on the controller's context, which lives as long as the manager. When the connection drops
// first, the informer never syncs and the wait would outlive the connection; ending the
// source's context with the connection ends it.
//
// It deliberately does not implement source.SyncingSource: a controller must never wait for,
// or fail its start on, a workload cluster's cache.
type connectionSource struct {
	kind    source.Source
	connCtx context.Context
	name    string
}

func (s *connectionSource) Start(ctx context.Context, q workqueue.TypedRateLimitingInterface[reconcile.Request]) error {
	ctx, cancel := context.WithCancel(ctx)
	context.AfterFunc(s.connCtx, cancel)
	if err := s.kind.Start(ctx, q); err != nil {
		cancel()
		return err
	}
	return nil
}

func (s *connectionSource) String() string {
	return fmt.Sprintf("workload cluster watch %s", s.name)
}
