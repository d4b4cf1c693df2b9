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
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	bootstrapv1 "capstan.dev/bootstrap-kubeadm/api/bootstrap/v1beta2"
	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/envtest"
	"capstan.dev/contracts/testing/crds"
)

// TestCreateMachine_ClonesOfAMachineNeverCreatedAreSwept: the InfraMachine and KubeadmConfig a
// controller created before it was killed, for a Machine it never created, are deleted by the
// next one; the clones of the Machines that exist, and objects of the same labels this control
// plane does not own, stay.
func TestCreateMachine_ClonesOfAMachineNeverCreatedAreSwept(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	labels := map[string]string{clusterv1.ClusterNameLabel: f.cluster.Name, clusterv1.MachineControlPlaneNameLabel: f.kcp.Name}
	owned := []metav1.OwnerReference{{APIVersion: "controlplane.cluster.x-k8s.io/v1beta2", Kind: "KubeadmControlPlane", Name: f.kcp.Name, UID: f.kcp.UID}}
	config := func(name string, owners []metav1.OwnerReference) *bootstrapv1.KubeadmConfig {
		return &bootstrapv1.KubeadmConfig{ObjectMeta: metav1.ObjectMeta{Namespace: f.ns, Name: name, Labels: labels, OwnerReferences: owners}}
	}
	require.NoError(t, env.Client.Create(ctx, config("cp-orphan", owned)))
	require.NoError(t, env.Client.Create(ctx, config("cp-foreign", nil)))
	infra := crds.New(crds.GenericInfrastructureMachineGVK, f.ns, "cp-orphan")
	infra.SetLabels(labels)
	infra.SetOwnerReferences(owned)
	require.NoError(t, env.Client.Create(ctx, infra))

	startController(t)
	m := f.waitMachines(1)[0]
	envtest.WaitFor(t, timeout, "only the clones of "+m.Name+" and the foreign KubeadmConfig", func() (bool, error) {
		live := liveClones(t, f.ns)
		want := []string{"config cp-foreign", "config " + m.Name, "infra " + m.Name}
		slices.Sort(want)
		if !slices.Equal(live, want) {
			return false, fmt.Errorf("left: %v", live)
		}
		return true, nil
	})
}

// liveClones names the KubeadmConfigs and GenericInfrastructureMachines of namespace ns that are
// not being deleted, sorted.
func liveClones(t *testing.T, ns string) []string {
	infras := &unstructured.UnstructuredList{}
	infras.SetGroupVersionKind(crds.GenericInfrastructureMachineGVK.GroupVersion().WithKind("GenericInfrastructureMachineList"))
	require.NoError(t, env.Client.List(context.Background(), infras, client.InNamespace(ns)))
	configs := &bootstrapv1.KubeadmConfigList{}
	require.NoError(t, env.Client.List(context.Background(), configs, client.InNamespace(ns)))
	var live []string
	for _, i := range infras.Items {
		if i.GetDeletionTimestamp() == nil {
			live = append(live, "infra "+i.GetName())
		}
	}
	for _, c := range configs.Items {
		if c.DeletionTimestamp.IsZero() {
			live = append(live, "config "+c.Name)
		}
	}
	slices.Sort(live)
	return live
}
