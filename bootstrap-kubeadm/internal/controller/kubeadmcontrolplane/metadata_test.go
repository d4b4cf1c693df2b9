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
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	controlplanev1 "capstan.dev/bootstrap-kubeadm/api/controlplane/v1beta2"
	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/envtest"
	"capstan.dev/contracts/testing/crds"
)

// partsOf reads m with its KubeadmConfig and InfraMachine.
func partsOf(t *testing.T, m *clusterv1.Machine) []client.Object {
	t.Helper()
	ctx := context.Background()
	cur := &clusterv1.Machine{}
	require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(m), cur))
	infra := &unstructured.Unstructured{}
	infra.SetGroupVersionKind(crds.GenericInfrastructureMachineTemplateGVK.GroupVersion().WithKind(cur.Spec.InfrastructureRef.Kind))
	require.NoError(t, env.Client.Get(ctx, client.ObjectKey{Namespace: m.Namespace, Name: cur.Spec.InfrastructureRef.Name}, infra))
	return []client.Object{cur, kubeadmConfigOf(t, cur), infra}
}

// TestSyncMachines_TemplateMetadataAndTimeoutsChangeInPlace: labels and annotations added to
// machineTemplate.metadata reach the Machine, its KubeadmConfig and its InfraMachine; a template
// label removed goes from them, while a label a user put on the Machine stays; a new drain
// timeout reaches the Machine. Nothing is rolled out (every Machine event is watched), and once
// in sync further reconciles write nothing.
func TestSyncMachines_TemplateMetadataAndTimeoutsChangeInPlace(t *testing.T) {
	counter := &envtest.CallCounter{Type: &controlplanev1.KubeadmControlPlane{}}
	startController(t, func(o *controllerOptions) { o.wrap = counter.Wrap })
	f := newFixture(t)
	counter.Key = client.ObjectKeyFromObject(f.kcp)
	m := f.growTo(1)[0]
	f.waitCondition(controlplanev1.KubeadmControlPlaneAvailableCondition, metav1.ConditionTrue, "")
	for _, o := range partsOf(t, m) {
		require.Equal(t, "control-plane", o.GetLabels()["tier"], "%T has the template label from its creation", o)
	}
	f.updateMachine(m.Name, func(cur *clusterv1.Machine) { cur.Labels["user"] = "mine" })
	mw := watchMachines(t, f.ns)

	f.updateKCP(func(k *controlplanev1.KubeadmControlPlane) {
		k.Spec.MachineTemplate.ObjectMeta.Labels = map[string]string{"env": "prod"}
		k.Spec.MachineTemplate.ObjectMeta.Annotations = map[string]string{"owner": "team-a"}
		k.Spec.MachineTemplate.Spec.Deletion.NodeDrainTimeoutSeconds = ptr.To[int32](120)
	})
	envtest.WaitFor(t, timeout, "the new template metadata on the Machine and its parts", func() (bool, error) {
		for _, o := range partsOf(t, m) {
			l, a := o.GetLabels(), o.GetAnnotations()
			if l["env"] != "prod" || a["owner"] != "team-a" {
				return false, fmt.Errorf("%T %s: labels %v annotations %v", o, o.GetName(), l, a)
			}
			if _, ok := l["tier"]; ok {
				return false, fmt.Errorf("%T %s still has the removed label tier", o, o.GetName())
			}
		}
		return true, nil
	})
	cur := partsOf(t, m)[0].(*clusterv1.Machine)
	require.Equal(t, "mine", cur.Labels["user"], "a label the KubeadmControlPlane did not put there stays")
	require.Equal(t, f.cluster.Name, cur.Labels[clusterv1.ClusterNameLabel])
	envtest.WaitFor(t, timeout, "the drain timeout on the Machine", func() (bool, error) {
		cur = partsOf(t, m)[0].(*clusterv1.Machine)
		return ptr.Deref(cur.Spec.Deletion.NodeDrainTimeoutSeconds, 0) == 120, nil
	})
	kcp := f.waitKCP("up to date", func(k *controlplanev1.KubeadmControlPlane) error {
		if ptr.Deref(k.Status.UpToDateReplicas, 0) != 1 {
			return fmt.Errorf("status %+v", k.Status)
		}
		return nil
	})
	require.Len(t, f.machines(), 1)
	total, deleting := mw.maxima()
	require.Equal(t, 0, deleting, "metadata changes roll nothing out")
	require.LessOrEqual(t, total, 1)

	// Steady state: once the sync has settled, reconciles write nothing. A reconcile starts by
	// reading the KubeadmControlPlane and reconciles of one object never overlap, so at each read
	// the previous reconcile is over: equal writes at three reads in a row mean two whole
	// reconciles wrote nothing. A status that kept changing would never get there.
	var atRead [][]string
	envtest.WaitFor(t, timeout, "two reconciles in a row that write nothing", func() (bool, error) {
		gets, _ := counter.Snapshot()
		f.updateKCP(func(k *controlplanev1.KubeadmControlPlane) {
			k.Annotations = map[string]string{"poke": fmt.Sprint(len(atRead))}
		})
		envtest.WaitFor(t, timeout, "the next reconcile", func() (bool, error) {
			g, _ := counter.Snapshot()
			return g > gets, nil
		})
		_, writes := counter.Snapshot()
		atRead = append(atRead, writes)
		n := len(atRead)
		if n < 3 || len(atRead[n-1]) != len(atRead[n-3]) {
			return false, fmt.Errorf("writes: %v", writes[len(atRead[max(n-3, 0)]):])
		}
		return true, nil
	})
	require.Equal(t, int32(1), ptr.Deref(kcp.Status.UpToDateReplicas, 0))
}
