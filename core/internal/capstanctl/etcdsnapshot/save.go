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

package etcdsnapshot

import (
	"context"
	"fmt"
	"time"

	"k8s.io/client-go/rest"

	"capstan.dev/contracts/etcd"
)

// PortForward is the etcd.ConnectFunc of the KubeadmControlPlane controller's path: a
// port-forward through the workload API server of cfg to kube-system/etcd-<node>, with a client
// certificate signed by the etcd CA (caCert, caKey).
func PortForward(cfg *rest.Config, caCert, caKey []byte) etcd.ConnectFunc {
	return func(ctx context.Context, node string) (etcd.Client, error) {
		return etcd.DialPod(ctx, cfg, caCert, caKey, node, time.Now())
	}
}

// DefaultPath is the file a snapshot of cluster taken at now goes to when --to is not given:
// <cluster>-<UTC timestamp>.db in the current directory.
func DefaultPath(cluster string, now time.Time) string { return etcd.SnapshotFileName(cluster, now) }

// CheckDestination refuses a --to that exists, or whose directory does not: a snapshot never
// overwrites a file, and fails before anything is dialled.
func CheckDestination(path string) error {
	if err := etcd.CheckSnapshotDestination(path); err != nil {
		return fmt.Errorf("--to: %w", err)
	}
	return nil
}
