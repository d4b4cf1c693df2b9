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

package cluster

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	runtimev1 "capstan.dev/contracts/api/runtime/v1beta2"
	"capstan.dev/contracts/conditions"
	"capstan.dev/contracts/envtest"
	"capstan.dev/contracts/testing/crds"
)

// TestCluster_TopologyClusterDeletesNothingUntilOkToDelete: a deleting topology Cluster without
// the ok-to-delete annotation keeps its InfrastructureCluster and ControlPlane and says why in
// Deleting (WaitingForBeforeDeleteHook); once the annotation is set the deletion runs to the end.
func TestCluster_TopologyClusterDeletesNothingUntilOkToDelete(t *testing.T) {
	startControllers(t, false)
	ctx := context.Background()
	ns := env.CreateNamespace(t, "delete-hook")
	infra := newGeneric(t, crds.New(crds.GenericInfrastructureClusterGVK, ns, "infra"))
	cp := newGeneric(t, crds.New(crds.GenericControlPlaneGVK, ns, "cp"))
	c := &clusterv1.Cluster{
		ObjectMeta: metav1.ObjectMeta{Name: "held", Namespace: ns},
		Spec: clusterv1.ClusterSpec{InfrastructureRef: refTo(infra), ControlPlaneRef: refTo(cp),
			Topology: clusterv1.Topology{ClassRef: clusterv1.ClusterClassRef{Name: "any"}, Version: "v1.37.2"}},
	}
	require.NoError(t, env.Client.Create(ctx, c))
	envtest.WaitFor(t, 30*time.Second, "the Cluster to carry its finalizer", func() (bool, error) {
		got, err := getCluster(c)
		return err == nil && len(got.Finalizers) > 0, err
	})

	require.NoError(t, env.Client.Delete(ctx, c))
	got := waitCondition(t, c, clusterv1.ClusterDeletingCondition, metav1.ConditionTrue, "Waiting for BeforeClusterDelete hook")
	require.Equal(t, clusterv1.ClusterDeletingWaitingForBeforeDeleteHookReason, conditions.Get(got, clusterv1.ClusterDeletingCondition).Reason)
	require.Contains(t, conditions.Get(got, clusterv1.ClusterDeletingCondition).Message, runtimev1.OkToDeleteAnnotation)
	requireNotDeleting(t, cp)
	requireNotDeleting(t, infra)

	envtest.WaitFor(t, 30*time.Second, "to mark the Cluster ok-to-delete", func() (bool, error) {
		cur, err := getCluster(c)
		if err != nil {
			return false, err
		}
		if cur.Annotations == nil {
			cur.Annotations = map[string]string{}
		}
		cur.Annotations[runtimev1.OkToDeleteAnnotation] = ""
		err = env.Client.Update(ctx, cur)
		return err == nil, client.IgnoreNotFound(func() error {
			if apierrors.IsConflict(err) {
				return nil
			}
			return err
		}())
	})
	envtest.WaitFor(t, 30*time.Second, "the Cluster to be gone", func() (bool, error) {
		_, err := getCluster(c)
		return apierrors.IsNotFound(err), client.IgnoreNotFound(err)
	})
}
