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
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// NodeProviderIDIndex is the field index every workload cache keeps on Node spec.providerID,
// so Machine and MachinePool controllers find a Machine's Node without listing all Nodes.
const NodeProviderIDIndex = "spec.providerID"

// nodeProviderID is the indexer behind NodeProviderIDIndex. Nodes without a providerID are
// left out of the index: an empty ID names no Machine.
func nodeProviderID(o client.Object) []string {
	node, ok := o.(*corev1.Node)
	if !ok || node.Spec.ProviderID == "" {
		return nil
	}
	return []string{node.Spec.ProviderID}
}

// ListNodesByProviderID lists the Nodes whose spec.providerID is providerID. c must be the
// cached client from ClusterCache.GetClient: the index lives in that cache, and an API
// server does not support spec.providerID as a field selector. Usually there is one Node or
// none; more than one means two Nodes claim the same machine, which the caller should
// report rather than pick one.
func ListNodesByProviderID(ctx context.Context, c client.Reader, providerID string) ([]corev1.Node, error) {
	if providerID == "" {
		return nil, errors.New("listing Nodes by providerID: the providerID is empty")
	}
	nodes := &corev1.NodeList{}
	if err := c.List(ctx, nodes, client.MatchingFields{NodeProviderIDIndex: providerID}); err != nil {
		return nil, fmt.Errorf("listing Nodes with providerID %q: %w", providerID, err)
	}
	return nodes.Items, nil
}
