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

package locking

import (
	"context"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"capstan.dev/bootstrap-kubeadm/internal/apitest"
	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/envtest"
	"capstan.dev/contracts/testing/crds"
)

var env *envtest.Environment

const timeout = 30 * time.Second

func TestMain(m *testing.M) { os.Exit(apitest.Run(m, &env)) }

func newCluster(t *testing.T) *clusterv1.Cluster {
	t.Helper()
	c := &clusterv1.Cluster{
		ObjectMeta: metav1.ObjectMeta{Name: "c1", Namespace: env.CreateNamespace(t, "lock")},
		Spec: clusterv1.ClusterSpec{ClusterNetwork: clusterv1.ClusterNetwork{ServiceDomain: "cluster.local"},
			InfrastructureRef: crds.Ref(crds.GenericInfrastructureClusterGVK, "c1")},
	}
	require.NoError(t, env.Client.Create(context.Background(), c))
	return c
}

func newMachine(t *testing.T, c *clusterv1.Cluster, name string) *clusterv1.Machine {
	t.Helper()
	m := &clusterv1.Machine{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: c.Namespace},
		Spec: clusterv1.MachineSpec{
			ClusterName: c.Name,
			Bootstrap: clusterv1.Bootstrap{ConfigRef: clusterv1.ContractVersionedObjectReference{
				APIGroup: "bootstrap.cluster.x-k8s.io", Kind: "KubeadmConfig", Name: name}},
			InfrastructureRef: clusterv1.ContractVersionedObjectReference{
				APIGroup: "infrastructure.cluster.x-k8s.io", Kind: "DockerMachine", Name: name},
		},
	}
	require.NoError(t, env.Client.Create(context.Background(), m))
	return m
}

func lockOf(t *testing.T, c *clusterv1.Cluster) (*corev1.ConfigMap, error) {
	t.Helper()
	cm := &corev1.ConfigMap{}
	return cm, env.Client.Get(context.Background(), client.ObjectKey{Namespace: c.Namespace, Name: c.Name + "-lock"}, cm)
}

func newInitLock() *InitLock { return &InitLock{Reader: env.Client, Writer: env.Client} }

func TestAcquire_IsIdempotentForTheHolderAndRefusesOthers(t *testing.T) {
	ctx := context.Background()
	c := newCluster(t)
	m1, m2 := newMachine(t, c, "cp-1"), newMachine(t, c, "cp-2")
	l := newInitLock()

	ok, holder, err := l.Acquire(ctx, c, m1)
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, "cp-1", holder)
	cm, err := lockOf(t, c)
	require.NoError(t, err)
	rv := cm.ResourceVersion
	require.JSONEq(t, `{"machineName":"cp-1"}`, cm.Data["lock-information"])
	require.Equal(t, "c1", cm.Labels[clusterv1.ClusterNameLabel])
	require.Equal(t, []metav1.OwnerReference{{APIVersion: clusterv1.GroupVersion.String(), Kind: "Cluster", Name: "c1", UID: c.UID}}, cm.OwnerReferences)

	ok, _, err = l.Acquire(ctx, c, m1)
	require.NoError(t, err)
	require.True(t, ok, "the holder acquires again")

	ok, holder, err = l.Acquire(ctx, c, m2)
	require.NoError(t, err)
	require.False(t, ok)
	require.Equal(t, "cp-1", holder)

	cm, err = lockOf(t, c)
	require.NoError(t, err)
	require.Equal(t, rv, cm.ResourceVersion, "acquiring a held lock writes nothing")
}

func TestAcquire_ReleasesALockWhoseHolderMachineIsGone(t *testing.T) {
	ctx := context.Background()
	c := newCluster(t)
	m1, m2 := newMachine(t, c, "cp-1"), newMachine(t, c, "cp-2")
	l := newInitLock()
	ok, _, err := l.Acquire(ctx, c, m1)
	require.NoError(t, err)
	require.True(t, ok)

	require.NoError(t, env.Client.Delete(ctx, m1))
	envtest.WaitFor(t, timeout, "Machine cp-1 to be gone", func() (bool, error) {
		err := env.Client.Get(ctx, client.ObjectKeyFromObject(m1), &clusterv1.Machine{})
		return apierrors.IsNotFound(err), client.IgnoreNotFound(err)
	})

	ok, holder, err := l.Acquire(ctx, c, m2)
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, "cp-2", holder)
	cm, err := lockOf(t, c)
	require.NoError(t, err)
	require.JSONEq(t, `{"machineName":"cp-2"}`, cm.Data["lock-information"])
}

func TestAcquire_OneWinnerAmongConcurrentMachines(t *testing.T) {
	ctx := context.Background()
	c := newCluster(t)
	const n = 5
	machines := make([]*clusterv1.Machine, n)
	for i := range machines {
		machines[i] = newMachine(t, c, fmt.Sprintf("cp-%d", i))
	}
	var wg sync.WaitGroup
	results := make([]bool, n)
	errs := make([]error, n)
	for i := range machines {
		wg.Go(func() { results[i], _, errs[i] = newInitLock().Acquire(ctx, c, machines[i]) })
	}
	wg.Wait()
	winners := 0
	for i := range results {
		require.NoError(t, errs[i])
		if results[i] {
			winners++
		}
	}
	require.Equal(t, 1, winners)
}

func TestRelease_DeletesTheLockAndToleratesNone(t *testing.T) {
	ctx := context.Background()
	c := newCluster(t)
	m := newMachine(t, c, "cp-1")
	l := newInitLock()
	require.NoError(t, l.Release(ctx, c), "no lock yet")
	_, _, err := l.Acquire(ctx, c, m)
	require.NoError(t, err)
	require.NoError(t, l.Release(ctx, c))
	_, err = lockOf(t, c)
	require.True(t, apierrors.IsNotFound(err), "lock is gone: %v", err)
}

func TestAcquire_ACorruptLockSaysHowToRecover(t *testing.T) {
	ctx := context.Background()
	c := newCluster(t)
	m := newMachine(t, c, "cp-1")
	require.NoError(t, env.Client.Create(ctx, &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: "c1-lock", Namespace: c.Namespace},
		Data:       map[string]string{"lock-information": "garbage"},
	}))
	_, _, err := newInitLock().Acquire(ctx, c, m)
	require.ErrorContains(t, err, "delete the ConfigMap")
}
