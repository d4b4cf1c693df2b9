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

package kubeadmcontrolplane

import (
	"context"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	controlplanev1 "capstan.dev/bootstrap-kubeadm/api/controlplane/v1beta2"
	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/envtest"
)

// TestDelete_WaitsForTheWorkersFirst: a deleted KubeadmControlPlane deletes no control plane
// Machine (checked on every Machine event) while the Cluster has a worker Machine or a
// MachinePool, and says which (WaitingForWorkersDeletion, as upstream); once they are gone its
// Machines go, then it does.
func TestDelete_WaitsForTheWorkersFirst(t *testing.T) {
	startController(t)
	f := newFixture(t)
	cp := f.growTo(1)[0]
	ctx := context.Background()
	inCluster := map[string]string{clusterv1.ClusterNameLabel: f.cluster.Name}
	worker := &clusterv1.Machine{
		ObjectMeta: metav1.ObjectMeta{Namespace: f.ns, Name: "worker-0", Labels: inCluster, Finalizers: []string{holdFinalizer}},
		Spec: clusterv1.MachineSpec{ClusterName: f.cluster.Name,
			Bootstrap:         clusterv1.Bootstrap{DataSecretName: ptr.To("worker-0-data")},
			InfrastructureRef: clusterv1.ContractVersionedObjectReference{APIGroup: "infrastructure.cluster.x-k8s.io", Kind: "GenericInfrastructureMachine", Name: "worker-0"}},
	}
	require.NoError(t, env.Client.Create(ctx, worker))
	pool := &clusterv1.MachinePool{
		ObjectMeta: metav1.ObjectMeta{Namespace: f.ns, Name: "pool-0", Labels: inCluster},
		Spec: clusterv1.MachinePoolSpec{ClusterName: f.cluster.Name, Template: clusterv1.MachineTemplateSpec{Spec: clusterv1.MachineSpec{
			ClusterName:       f.cluster.Name,
			Bootstrap:         clusterv1.Bootstrap{DataSecretName: ptr.To("pool-0-data")},
			InfrastructureRef: clusterv1.ContractVersionedObjectReference{APIGroup: "infrastructure.cluster.x-k8s.io", Kind: "GenericInfrastructureMachinePool", Name: "pool-0"}}}},
	}
	require.NoError(t, env.Client.Create(ctx, pool))

	var mu sync.Mutex
	workersLeft := 2
	var tooEarly []string
	onEvent(t, &clusterv1.MachineList{}, client.InNamespace(f.ns), func(obj client.Object) {
		mu.Lock()
		defer mu.Unlock()
		if obj.GetName() == cp.Name && obj.GetDeletionTimestamp() != nil && workersLeft > 0 {
			tooEarly = append(tooEarly, obj.GetResourceVersion())
		}
	})

	require.NoError(t, env.Client.Delete(ctx, f.kcp))
	f.waitCondition(clusterv1.DeletingCondition, metav1.ConditionTrue,
		"Waiting for worker Machine worker-0 and MachinePools pool-0 of Cluster c1 to be deleted first")
	require.Equal(t, controlplanev1.KubeadmControlPlaneDeletingWaitingForWorkersDeletionReason, deletingReason(t, f))

	require.NoError(t, env.Client.Delete(ctx, pool))
	f.waitCondition(clusterv1.DeletingCondition, metav1.ConditionTrue, "Waiting for worker Machine worker-0 of Cluster c1")
	require.NoError(t, env.Client.Delete(ctx, worker)) // held by its finalizer: it still exists
	f.waitCondition(clusterv1.DeletingCondition, metav1.ConditionTrue, "Waiting for worker Machine worker-0 of Cluster c1")
	mu.Lock()
	workersLeft = 0 // from the release on the worker may be gone at any event
	mu.Unlock()
	f.release(worker.Name)
	envtest.WaitFor(t, timeout, "the KubeadmControlPlane to be gone", func() (bool, error) {
		err := env.Client.Get(ctx, client.ObjectKeyFromObject(f.kcp), &controlplanev1.KubeadmControlPlane{})
		return apierrors.IsNotFound(err), client.IgnoreNotFound(err)
	})
	mu.Lock()
	defer mu.Unlock()
	require.Empty(t, tooEarly, "a control plane Machine was deleted while workers existed")
}

func deletingReason(t *testing.T, f *fixture) string {
	cur := &controlplanev1.KubeadmControlPlane{}
	require.NoError(t, env.Client.Get(context.Background(), client.ObjectKeyFromObject(f.kcp), cur))
	for _, c := range cur.Status.Conditions {
		if c.Type == clusterv1.DeletingCondition {
			return c.Reason
		}
	}
	return ""
}
