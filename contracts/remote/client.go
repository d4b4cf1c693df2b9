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
	"fmt"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"
)

// connectionClient bounds the reads of a workload-cluster client by the connection's life.
//
// A cached Get or List of a kind the cache has not seen yet starts an informer and waits for
// it to sync; against an unreachable API server that wait would never end. So every read
// gets the client timeout, ends when the connection is dropped, and a client kept past its
// connection's end (a controller may hold one for a whole reconcile) answers
// ErrClusterNotConnected instead of stale cache contents. Writes go to the API server and
// fail on their own when it is gone.
type connectionClient struct {
	client.Client
	connCtx context.Context
	timeout time.Duration
	cluster client.ObjectKey
}

func (c *connectionClient) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	ctx, done, err := c.bound(ctx)
	if err != nil {
		return err
	}
	defer done()
	return c.explain(c.Client.Get(ctx, key, obj, opts...))
}

func (c *connectionClient) List(ctx context.Context, list client.ObjectList, opts ...client.ListOption) error {
	ctx, done, err := c.bound(ctx)
	if err != nil {
		return err
	}
	defer done()
	return c.explain(c.Client.List(ctx, list, opts...))
}

// bound derives a context that ends at the timeout or when the connection is dropped.
func (c *connectionClient) bound(ctx context.Context) (context.Context, func(), error) {
	if c.connCtx.Err() != nil {
		return nil, nil, notConnected(c.cluster)
	}
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	stop := context.AfterFunc(c.connCtx, cancel)
	return ctx, func() { stop(); cancel() }, nil
}

// explain turns an error caused by the connection being dropped mid-call into
// ErrClusterNotConnected, which callers know how to handle.
func (c *connectionClient) explain(err error) error {
	if err != nil && c.connCtx.Err() != nil {
		return fmt.Errorf("%w: %w", notConnected(c.cluster), err)
	}
	return err
}
