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
	"errors"
	"fmt"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	bootstrapv1 "capstan.dev/bootstrap-kubeadm/api/bootstrap/v1beta2"
	controlplanev1 "capstan.dev/bootstrap-kubeadm/api/controlplane/v1beta2"
	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/conditions"
	"capstan.dev/contracts/envtest"
	"capstan.dev/contracts/events"
	"capstan.dev/contracts/owner"
	"capstan.dev/contracts/secret"
	"capstan.dev/contracts/testing/crds"
)

// TestKubeadmControlPlane_CreatesMachinesOneAtATimeAcrossFailureDomains follows a 3-replica
// control plane from nothing: certificates, the init Machine, nothing more until kubeadm init is
// done, then one join Machine at a time, each after the previous one has a Node, in the failure
// domain with the fewest Machines.
func TestKubeadmControlPlane_CreatesMachinesOneAtATimeAcrossFailureDomains(t *testing.T) {
	startController(t)
	f := newFixture(t, func(o *fixtureOptions) {
		o.replicas = 3
		o.failureDomains = []clusterv1.FailureDomain{
			{Name: "fd-c", ControlPlane: ptr.To(true)}, {Name: "fd-a", ControlPlane: ptr.To(true)},
			{Name: "fd-b", ControlPlane: ptr.To(true)}, {Name: "fd-workers", ControlPlane: ptr.To(false)},
		}
	})
	ctx := context.Background()

	first := f.waitMachines(1)[0]
	kcp := f.waitCondition(controlplanev1.KubeadmControlPlaneInitializedCondition, metav1.ConditionFalse, "kube-system/kubeadm-config")
	require.True(t, metav1.IsControlledBy(first, kcp))
	require.Equal(t, map[string]string{
		clusterv1.ClusterNameLabel: "c1", clusterv1.MachineControlPlaneLabel: "", clusterv1.MachineControlPlaneNameLabel: "cp", "tier": "control-plane",
	}, first.Labels)
	require.Equal(t, testVersion, first.Spec.Version)
	require.Equal(t, "fd-a", first.Spec.FailureDomain, "fewest Machines first, by name on a tie, only domains open to the control plane")
	require.Equal(t, clusterv1.ContractVersionedObjectReference{APIGroup: bootstrapv1.GroupVersion.Group, Kind: "KubeadmConfig", Name: first.Name},
		first.Spec.Bootstrap.ConfigRef)
	require.Equal(t, clusterv1.ContractVersionedObjectReference{APIGroup: crds.InfrastructureGroupVersion.Group, Kind: "GenericInfrastructureMachine", Name: first.Name},
		first.Spec.InfrastructureRef)

	infra := crds.New(crds.GenericInfrastructureMachineGVK, f.ns, first.Name)
	require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(infra), infra))
	image, _, _ := unstructured.NestedString(infra.Object, "spec", "image")
	require.Equal(t, "node:"+testVersion, image, "cloned from the template")
	require.Equal(t, "KubeadmControlPlane", infra.GetOwnerReferences()[0].Kind)
	require.Nil(t, infra.GetOwnerReferences()[0].Controller, "owned, not controlled: the Machine takes it over")

	initCfg := &bootstrapv1.KubeadmConfig{}
	require.NoError(t, env.Client.Get(ctx, client.ObjectKey{Namespace: f.ns, Name: first.Name}, initCfg))
	require.Equal(t, "2", *initCfg.Spec.InitConfiguration.NodeRegistration.KubeletExtraArgs[0].Value, "the first Machine runs kubeadm init")
	require.Equal(t, bootstrapv1.JoinConfiguration{}, initCfg.Spec.JoinConfiguration)
	require.Equal(t, "/etc/kubernetes/pki", initCfg.Spec.ClusterConfiguration.CertificatesDir)
	require.Equal(t, "control-plane", initCfg.Labels["tier"])

	for _, p := range secret.CertificatePurposes {
		s := &corev1.Secret{}
		require.NoError(t, env.Client.Get(ctx, client.ObjectKey{Namespace: f.ns, Name: secret.Name("c1", p)}, s))
		require.Equal(t, []metav1.OwnerReference{owner.ClusterReference(f.cluster)}, s.OwnerReferences, "certificates belong to the Cluster")
	}

	// A Node alone does not let a second Machine in: kubeadm init has not finished.
	f.joinNode(first)
	f.waitCondition(clusterv1.ScalingUpCondition, metav1.ConditionTrue,
		"Scaling up from 1 to 3 replicas; Waiting for the control plane to be initialized")
	require.Len(t, f.machines(), 1)

	simulateKubeadmInit(t)
	f.waitCondition(controlplanev1.KubeadmControlPlaneInitializedCondition, metav1.ConditionTrue, "")
	second := f.waitMachines(2)[1]
	if second.Name == first.Name {
		second = f.machines()[0]
	}
	joinCfg := &bootstrapv1.KubeadmConfig{}
	require.NoError(t, env.Client.Get(ctx, client.ObjectKey{Namespace: f.ns, Name: second.Name}, joinCfg))
	require.NotNil(t, joinCfg.Spec.JoinConfiguration.ControlPlane, "further Machines join as control plane nodes")
	require.Equal(t, "3", *joinCfg.Spec.JoinConfiguration.NodeRegistration.KubeletExtraArgs[0].Value)
	require.Equal(t, bootstrapv1.InitConfiguration{}, joinCfg.Spec.InitConfiguration)

	// The second Machine has no Node yet: the third waits for it.
	f.waitCondition(clusterv1.ScalingUpCondition, metav1.ConditionTrue, "Waiting for Machine "+second.Name+" to have a Node")
	require.Len(t, f.machines(), 2)
	f.joinNode(second)
	ms := f.waitMachines(3)
	for _, m := range ms {
		if m.Status.NodeRef.Name == "" {
			f.joinNode(m)
		}
	}
	domains := map[string]bool{}
	for _, m := range f.machines() {
		domains[m.Spec.FailureDomain] = true
	}
	require.Equal(t, map[string]bool{"fd-a": true, "fd-b": true, "fd-c": true}, domains, "one Machine per failure domain")

	kcp = f.waitCondition(controlplanev1.KubeadmControlPlaneAvailableCondition, metav1.ConditionTrue, "")
	kcp = f.waitKCP("3 ready replicas", func(k *controlplanev1.KubeadmControlPlane) error {
		if ptr.Deref(k.Status.ReadyReplicas, 0) != 3 {
			return fmt.Errorf("status %+v", k.Status)
		}
		return nil
	})
	require.Equal(t, ptr.To(int32(3)), kcp.Status.Replicas)
	require.Equal(t, ptr.To(int32(3)), kcp.Status.UpToDateReplicas)
	require.Equal(t, "cluster.x-k8s.io/control-plane,cluster.x-k8s.io/control-plane-name=cp", kcp.Status.Selector)
	require.Equal(t, testVersion, kcp.Status.Version)
	require.True(t, ptr.Deref(kcp.Status.Initialization.ControlPlaneInitialized, false))
	for _, c := range []string{clusterv1.ScalingUpCondition, clusterv1.ScalingDownCondition, clusterv1.RollingOutCondition, clusterv1.PausedCondition, clusterv1.DeletingCondition} {
		require.False(t, conditions.IsTrue(kcp, c), "%s: %+v", c, conditions.Get(kcp, c))
	}
	require.True(t, conditions.IsTrue(kcp, controlplanev1.KubeadmControlPlaneCertificatesAvailableCondition))

	// The kubeconfig the test stored (not controlled by the control plane) is left as it is.
	kc := &corev1.Secret{}
	require.NoError(t, env.Client.Get(ctx, client.ObjectKey{Namespace: f.ns, Name: "c1-kubeconfig"}, kc))
	require.Equal(t, env.KubeConfig, kc.Data["value"])
}

// TestKubeadmControlPlane_WaitsForTheClusterToOwnIt: without the owner reference the core's
// Cluster controller sets, nothing is created and the Available condition says why.
func TestKubeadmControlPlane_WaitsForTheClusterToOwnIt(t *testing.T) {
	startController(t)
	f := newFixture(t, func(o *fixtureOptions) { o.noOwner = true })
	f.waitCondition(controlplanev1.KubeadmControlPlaneAvailableCondition, metav1.ConditionFalse, "Waiting for a Cluster to own this KubeadmControlPlane")
	require.Empty(t, f.machines())

	f.updateKCP(func(k *controlplanev1.KubeadmControlPlane) {
		k.OwnerReferences = []metav1.OwnerReference{{APIVersion: clusterv1.GroupVersion.String(), Kind: "Cluster", Name: f.cluster.Name, UID: f.cluster.UID}}
	})
	f.waitMachines(1)
}

// TestKubeadmControlPlane_PausedClusterIsLeftAlone: a paused Cluster gets the Paused condition and
// nothing else, until it is unpaused.
func TestKubeadmControlPlane_PausedClusterIsLeftAlone(t *testing.T) {
	startController(t)
	f := newFixture(t, func(o *fixtureOptions) { o.pausedCluster = true })
	kcp := f.waitCondition(clusterv1.PausedCondition, metav1.ConditionTrue, "Cluster spec.paused is true")
	require.Empty(t, kcp.Finalizers)
	require.Empty(t, f.machines())

	cur := f.cluster.DeepCopy()
	envtest.Update(t, env.Client, cur, func() { cur.Spec.Paused = ptr.To(false) })
	f.waitCondition(clusterv1.PausedCondition, metav1.ConditionFalse, "")
	f.waitMachines(1)
}

// TestDelete_DeletesTheMachinesThenRemovesTheFinalizer: a deleted KubeadmControlPlane deletes its
// Machines, says how many are left, and goes once they are gone.
func TestDelete_DeletesTheMachinesThenRemovesTheFinalizer(t *testing.T) {
	startController(t)
	f := newFixture(t, func(o *fixtureOptions) { o.replicas = 3 })
	ms := f.growTo(2)
	f.hold(ms[0])
	require.NoError(t, env.Client.Delete(context.Background(), f.kcp))

	f.waitCondition(clusterv1.DeletingCondition, metav1.ConditionTrue, "Waiting for 1 control plane Machine(s) to be deleted: Machine "+ms[0].Name)
	f.waitCondition(controlplanev1.KubeadmControlPlaneAvailableCondition, metav1.ConditionFalse, "being deleted")
	f.release(ms[0].Name)
	envtest.WaitFor(t, timeout, "the KubeadmControlPlane to be gone", func() (bool, error) {
		err := env.Client.Get(context.Background(), client.ObjectKeyFromObject(f.kcp), &controlplanev1.KubeadmControlPlane{})
		return apierrors.IsNotFound(err), client.IgnoreNotFound(err)
	})
	require.Empty(t, f.machines())
}

// TestCreateMachine_DeletesTheClonesWhenTheMachineCannotBeCreated: a failed Machine creation
// leaves no InfraMachine or KubeadmConfig behind; the next attempt succeeds.
func TestCreateMachine_DeletesTheClonesWhenTheMachineCannotBeCreated(t *testing.T) {
	var failures atomic.Int32
	startController(t, func(o *controllerOptions) {
		o.wrap = func(c client.Client) client.Client {
			return envtest.Intercept(c, interceptor.Funcs{
				Create: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
					if _, ok := obj.(*clusterv1.Machine); ok && failures.Add(1) == 1 {
						return errors.New("injected failure")
					}
					return c.Create(ctx, obj, opts...)
				},
			})
		}
	})
	f := newFixture(t)
	m := f.waitMachines(1)[0]
	require.GreaterOrEqual(t, failures.Load(), int32(2), "the first Machine creation failed")

	envtest.WaitFor(t, timeout, "only the clones of "+m.Name, func() (bool, error) {
		if live := liveClones(t, f.ns); !slices.Equal(live, []string{"config " + m.Name, "infra " + m.Name}) {
			return false, fmt.Errorf("left: %v", live)
		}
		return true, nil
	})
}

// TestSteadyState_WritesNothing: once a control plane has what it wants, reconciling it again
// writes nothing (no status patch, no Secret, no Machine).
func TestSteadyState_WritesNothing(t *testing.T) {
	f := newFixture(t)
	counter := &envtest.CallCounter{Key: client.ObjectKeyFromObject(f.kcp), Type: &controlplanev1.KubeadmControlPlane{}}
	startController(t, func(o *controllerOptions) {
		o.wrap = counter.Wrap
		o.wrapRecorder = func(r events.Recorder) events.Recorder { return counter.WrapRecorder(r) }
	})
	first := f.growTo(1)[0]
	f.waitCondition(controlplanev1.KubeadmControlPlaneAvailableCondition, metav1.ConditionTrue, "")
	up := env.WaitForEvents(t, timeout, f.kcp, ReasonSuccessfulScaleUp, 1)
	require.Equal(t, first.Name, up[0].Related.Name, "the Event names the Machine created")
	poke := func(i int) {
		gets, _ := counter.Snapshot()
		f.updateKCP(func(k *controlplanev1.KubeadmControlPlane) {
			k.Annotations = map[string]string{"test.capstan.dev/poke": fmt.Sprint(i)}
		})
		envtest.WaitFor(t, timeout, "another reconcile", func() (bool, error) {
			now, _ := counter.Snapshot()
			return now > gets, nil
		})
	}
	// The first poke makes sure a reconcile that started before the last status write reached
	// the cache has run.
	poke(0)
	_, before := counter.Snapshot()
	poke(1)
	poke(2)
	_, after := counter.Snapshot()
	require.Equal(t, before, after, "a steady KubeadmControlPlane is reconciled without writes (Events included)")
	require.Contains(t, before, "event "+ReasonSuccessfulScaleUp+" *v1beta2.KubeadmControlPlane "+f.kcp.Name, "Events are counted")
}
