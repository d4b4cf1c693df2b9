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
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	bootstrapv1 "capstan.dev/bootstrap-kubeadm/api/bootstrap/v1beta2"
	controlplanev1 "capstan.dev/bootstrap-kubeadm/api/controlplane/v1beta2"
	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/envtest"
	"capstan.dev/contracts/testing/crds"
)

// machineWatch records, on every Machine event of a namespace, the most Machines and the most
// deleting Machines that existed at once: a "never more than" property seen on each event.
type machineWatch struct {
	mu                    sync.Mutex
	present               map[string]bool // by name: deleting
	maxTotal, maxDeleting int
}

func watchMachines(t *testing.T, ns string) *machineWatch {
	t.Helper()
	w, err := env.Client.Watch(context.Background(), &clusterv1.MachineList{}, client.InNamespace(ns))
	require.NoError(t, err)
	mw := &machineWatch{present: map[string]bool{}}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ev := range w.ResultChan() {
			m, ok := ev.Object.(*clusterv1.Machine)
			if !ok {
				continue
			}
			mw.mu.Lock()
			if ev.Type == watch.Deleted {
				delete(mw.present, m.Name)
			} else {
				mw.present[m.Name] = !m.DeletionTimestamp.IsZero()
			}
			deletingNow := 0
			for _, d := range mw.present {
				if d {
					deletingNow++
				}
			}
			mw.maxTotal, mw.maxDeleting = max(mw.maxTotal, len(mw.present)), max(mw.maxDeleting, deletingNow)
			mw.mu.Unlock()
		}
	}()
	t.Cleanup(func() { w.Stop(); <-done })
	return mw
}

func (mw *machineWatch) maxima() (total, deleting int) {
	mw.mu.Lock()
	defer mw.mu.Unlock()
	return mw.maxTotal, mw.maxDeleting
}

// kubeadmConfigOf reads the KubeadmConfig of m.
func kubeadmConfigOf(t *testing.T, m *clusterv1.Machine) *bootstrapv1.KubeadmConfig {
	t.Helper()
	cfg := &bootstrapv1.KubeadmConfig{}
	require.NoError(t, env.Client.Get(context.Background(), client.ObjectKey{Namespace: m.Namespace, Name: m.Spec.Bootstrap.ConfigRef.Name}, cfg))
	return cfg
}

// rollUntil plays kubeadm join for every new Machine until n Machines exist, none deleting, all
// accepted by done.
func (f *fixture) rollUntil(n int, what string, done func(*clusterv1.Machine) bool) []*clusterv1.Machine {
	f.t.Helper()
	var got []*clusterv1.Machine
	envtest.WaitFor(f.t, 3*timeout, what, func() (bool, error) {
		got = f.machines()
		for _, m := range got {
			if m.DeletionTimestamp.IsZero() && m.Status.NodeRef.Name == "" {
				f.joinNode(m)
			}
		}
		if len(got) != n {
			return false, fmt.Errorf("%d Machines: %s", len(got), names(got))
		}
		for _, m := range got {
			if !m.DeletionTimestamp.IsZero() || !done(m) {
				return false, fmt.Errorf("Machine %s not done yet: %s", m.Name, names(got))
			}
		}
		return true, nil
	})
	return got
}

// TestRollout_KubeadmConfigSpecChangeReplacesOneMachineAtATime: a new apiServer extraArg rolls
// the three Machines one at a time within maxSurge 1 (never more than four Machines, never two
// deleting), the RollingOut condition names the field, and the new KubeadmConfigs carry it.
func TestRollout_KubeadmConfigSpecChangeReplacesOneMachineAtATime(t *testing.T) {
	f, old := scaleDownFixture(t)
	mw := watchMachines(t, f.ns)
	f.updateKCP(func(k *controlplanev1.KubeadmControlPlane) {
		k.Spec.KubeadmConfigSpec.ClusterConfiguration.APIServer.ExtraArgs = []bootstrapv1.Arg{{Name: "audit-log-maxage", Value: ptr.To("30")}}
	})
	f.waitCondition(clusterv1.RollingOutCondition, metav1.ConditionTrue, "differs in spec.kubeadmConfigSpec.clusterConfiguration.apiServer.extraArgs")

	got := f.rollUntil(3, "three Machines with the new apiServer extraArg", func(m *clusterv1.Machine) bool {
		return len(kubeadmConfigOf(t, m).Spec.ClusterConfiguration.APIServer.ExtraArgs) == 1
	})
	for _, m := range got {
		require.False(t, slices.ContainsFunc(old, func(o *clusterv1.Machine) bool { return o.Name == m.Name }), "Machine %s was not replaced", m.Name)
	}
	total, deleting := mw.maxima()
	require.LessOrEqual(t, total, 4, "more than replicas+maxSurge Machines existed at once")
	require.LessOrEqual(t, deleting, 1, "more than one Machine was being deleted at once")
	f.waitCondition(clusterv1.RollingOutCondition, metav1.ConditionFalse, "")
}

// TestRollout_InfrastructureTemplateChangeReplacesTheMachine: pointing
// machineTemplate.spec.infrastructureRef at another template replaces the Machine with one whose
// InfraMachine is cloned from the new template.
func TestRollout_InfrastructureTemplateChangeReplacesTheMachine(t *testing.T) {
	startController(t)
	f := newFixture(t)
	old := f.growTo(1)[0]
	f.waitCondition(controlplanev1.KubeadmControlPlaneAvailableCondition, metav1.ConditionTrue, "")

	it := crds.New(crds.GenericInfrastructureMachineTemplateGVK, f.ns, "cp-infra-2")
	require.NoError(t, unstructured.SetNestedField(it.Object, map[string]any{"spec": map[string]any{"image": "node:new"}}, "spec", "template"))
	require.NoError(t, env.Client.Create(context.Background(), it))
	f.updateKCP(func(k *controlplanev1.KubeadmControlPlane) {
		k.Spec.MachineTemplate.Spec.InfrastructureRef.Name = "cp-infra-2"
	})
	f.waitCondition(clusterv1.RollingOutCondition, metav1.ConditionTrue, "spec.machineTemplate.spec.infrastructureRef is")

	got := f.rollUntil(1, "one Machine cloned from cp-infra-2", func(m *clusterv1.Machine) bool {
		infra := &unstructured.Unstructured{}
		infra.SetGroupVersionKind(crds.GenericInfrastructureMachineTemplateGVK.GroupVersion().WithKind("GenericInfrastructureMachine"))
		if err := env.Client.Get(context.Background(), client.ObjectKey{Namespace: f.ns, Name: m.Spec.InfrastructureRef.Name}, infra); err != nil {
			return false
		}
		return infra.GetAnnotations()[clusterv1.TemplateClonedFromNameAnnotation] == "cp-infra-2"
	})
	require.NotEqual(t, old.Name, got[0].Name)
}

// TestRollout_NoRolloutForExistingOrEquivalentMachines: a Machine made by the controller stays up
// to date although the bootstrap controller filled in its join discovery, and changes that differ
// only by defaulting (an explicit default format) or only in the join discovery
// roll nothing out. Every Machine event is watched: none is deleted or added.
func TestRollout_NoRolloutForExistingOrEquivalentMachines(t *testing.T) {
	startController(t)
	f := newFixture(t)
	m := f.growTo(1)[0]
	kcp := f.waitCondition(controlplanev1.KubeadmControlPlaneAvailableCondition, metav1.ConditionTrue, "")
	require.Equal(t, int32(1), ptr.Deref(kcp.Status.UpToDateReplicas, 0))
	mw := watchMachines(t, f.ns)

	cfg := kubeadmConfigOf(t, m)
	envtest.Update(t, env.Client, cfg, func() {
		cfg.Spec.JoinConfiguration.Discovery.BootstrapToken = bootstrapv1.BootstrapTokenDiscovery{
			Token: "abcdef.0123456789abcdef", CACertHashes: []string{"sha256:00"}}
	})
	f.updateKCP(func(k *controlplanev1.KubeadmControlPlane) {
		k.Spec.KubeadmConfigSpec.Format = bootstrapv1.CloudConfig
		k.Spec.KubeadmConfigSpec.JoinConfiguration.Discovery.BootstrapToken.APIServerEndpoint = "10.0.0.1:6443"
	})
	cur := f.waitKCP("the new generation observed", func(k *controlplanev1.KubeadmControlPlane) error {
		if k.Status.ObservedGeneration != k.Generation {
			return fmt.Errorf("observedGeneration %d, generation %d", k.Status.ObservedGeneration, k.Generation)
		}
		return nil
	})
	require.Equal(t, int32(1), ptr.Deref(cur.Status.UpToDateReplicas, 0), "conditions: %+v", cur.Status.Conditions)
	// The reconcile that observed the generation made its Machine decision before writing the
	// status: a Machine it created or deleted is in a live read now, and in the watch.
	total, deleting := mw.maxima()
	require.Equal(t, 0, deleting)
	require.LessOrEqual(t, total, 1)
	require.Len(t, f.machines(), 1)
}

// TestRollout_CertificatesAboutToExpireReplaceTheMachine: with
// spec.rollout.before.certificatesExpiryDays 30, a Machine whose certificates-expiry annotation
// is 10 days away is replaced, and RollingOut says why; the replacement (no expiry known) is not.
func TestRollout_CertificatesAboutToExpireReplaceTheMachine(t *testing.T) {
	startController(t)
	f := newFixture(t)
	old := f.growTo(1)[0]
	f.waitCondition(controlplanev1.KubeadmControlPlaneAvailableCondition, metav1.ConditionTrue, "")
	expiry := time.Now().Add(10 * 24 * time.Hour).UTC().Format(time.RFC3339)
	f.updateMachine(old.Name, func(m *clusterv1.Machine) {
		m.Annotations[clusterv1.MachineCertificatesExpiryDateAnnotation] = expiry
	})
	f.updateKCP(func(k *controlplanev1.KubeadmControlPlane) { k.Spec.Rollout.Before.CertificatesExpiryDays = 30 })
	f.waitCondition(clusterv1.RollingOutCondition, metav1.ConditionTrue,
		"certificates expire at "+expiry+" (Machine annotation machine.cluster.x-k8s.io/certificates-expiry), within spec.rollout.before.certificatesExpiryDays 30")
	got := f.rollUntil(1, "the Machine replaced", func(m *clusterv1.Machine) bool { return m.Name != old.Name })
	require.NotContains(t, got[0].Annotations, clusterv1.MachineCertificatesExpiryDateAnnotation)
	f.waitCondition(clusterv1.RollingOutCondition, metav1.ConditionFalse, "")
}

// TestRollout_CertificatesExpiryReadFromTheNodeIsRecordedAndRollsOut: without an annotation, the
// controller reads the expiry of the node's API server certificate (a double here: envtest has no
// kubelet), records it on the KubeadmConfig, and replaces the Machine whose certificates expire
// within spec.rollout.before.certificatesExpiryDays; the replacement's far expiry is recorded too
// and it stays.
func TestRollout_CertificatesExpiryReadFromTheNodeIsRecordedAndRollsOut(t *testing.T) {
	soon := time.Now().Add(5 * 24 * time.Hour).UTC().Truncate(time.Second)
	later := time.Now().Add(365 * 24 * time.Hour).UTC().Truncate(time.Second)
	var mu sync.Mutex
	var expiring string // the node whose certificates expire soon
	startController(t, func(o *controllerOptions) {
		o.apiServerExpiry = func(_ context.Context, _ *clusterv1.Cluster, node string) (time.Time, error) {
			mu.Lock()
			defer mu.Unlock()
			if node == expiring {
				return soon, nil
			}
			return later, nil
		}
	})
	f := newFixture(t)
	old := f.growTo(1)[0]
	f.waitCondition(controlplanev1.KubeadmControlPlaneAvailableCondition, metav1.ConditionTrue, "")
	mu.Lock()
	expiring = old.Name
	mu.Unlock()
	f.updateKCP(func(k *controlplanev1.KubeadmControlPlane) { k.Spec.Rollout.Before.CertificatesExpiryDays = 30 })

	envtest.WaitFor(t, timeout, "the expiry recorded on the KubeadmConfig", func() (bool, error) {
		cfg := &bootstrapv1.KubeadmConfig{}
		err := env.Client.Get(context.Background(), client.ObjectKey{Namespace: f.ns, Name: old.Spec.Bootstrap.ConfigRef.Name}, cfg)
		return err == nil && cfg.Annotations[clusterv1.MachineCertificatesExpiryDateAnnotation] == soon.Format(time.RFC3339), err
	})
	got := f.rollUntil(1, "the Machine replaced", func(m *clusterv1.Machine) bool { return m.Name != old.Name })
	envtest.WaitFor(t, timeout, "the replacement's expiry recorded", func() (bool, error) {
		cfg := kubeadmConfigOf(t, got[0])
		return cfg.Annotations[clusterv1.MachineCertificatesExpiryDateAnnotation] == later.Format(time.RFC3339), nil
	})
	f.waitCondition(clusterv1.RollingOutCondition, metav1.ConditionFalse, "")
	require.Len(t, f.machines(), 1)
}
