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

package v1beta2_test

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	infrav1 "capstan.dev/infrastructure-docker/api/v1beta2"
)

// TestCreate_ObjectsAreStoredAsSent creates each kind, minimal and with every field set, and reads
// it back: the schema must accept it and must not prune or rewrite any field we set.
func TestCreate_ObjectsAreStoredAsSent(t *testing.T) {
	tests := []struct {
		name string
		obj  func(ns string) client.Object
		spec func(obj client.Object) any
	}{
		{
			name: "DockerClusterMinimal",
			obj:  func(ns string) client.Object { return newDockerCluster(ns) },
			spec: func(o client.Object) any { return o.(*infrav1.DockerCluster).Spec },
		},
		{
			name: "DockerClusterEveryField",
			obj: func(ns string) client.Object {
				dc := newDockerCluster(ns)
				dc.Spec = fullClusterSpec()
				return dc
			},
			spec: func(o client.Object) any { return o.(*infrav1.DockerCluster).Spec },
		},
		{
			name: "DockerClusterTemplateEveryField",
			obj: func(ns string) client.Object {
				dct := newDockerClusterTemplate(ns)
				dct.Spec.Template.ObjectMeta = templateMeta
				dct.Spec.Template.Spec = fullClusterSpec()
				return dct
			},
			spec: func(o client.Object) any { return o.(*infrav1.DockerClusterTemplate).Spec },
		},
		{
			name: "DockerMachineMinimal",
			obj:  func(ns string) client.Object { return newDockerMachine(ns) },
			spec: func(o client.Object) any { return o.(*infrav1.DockerMachine).Spec },
		},
		{
			name: "DockerMachineEveryField",
			obj: func(ns string) client.Object {
				dm := newDockerMachine(ns)
				dm.Spec = fullMachineSpec()
				dm.Spec.ProviderID = "docker:////c1-cp-0"
				return dm
			},
			spec: func(o client.Object) any { return o.(*infrav1.DockerMachine).Spec },
		},
		{
			name: "DockerMachineTemplateMinimal",
			obj:  func(ns string) client.Object { return newDockerMachineTemplate(ns) },
			spec: func(o client.Object) any { return o.(*infrav1.DockerMachineTemplate).Spec },
		},
		{
			name: "DockerMachineTemplateEveryField",
			obj: func(ns string) client.Object {
				dmt := newDockerMachineTemplate(ns)
				dmt.Spec.Template.ObjectMeta = templateMeta
				dmt.Spec.Template.Spec = fullMachineSpec()
				return dmt
			},
			spec: func(o client.Object) any { return o.(*infrav1.DockerMachineTemplate).Spec },
		},
		{
			name: "DockerMachinePoolMinimal",
			obj:  func(ns string) client.Object { return newDockerMachinePool(ns) },
			spec: func(o client.Object) any { return o.(*infrav1.DockerMachinePool).Spec },
		},
		{
			name: "DockerMachinePoolEveryField",
			obj: func(ns string) client.Object {
				dmp := newDockerMachinePool(ns)
				dmp.Spec = infrav1.DockerMachinePoolSpec{
					Template:       fullPoolTemplate(),
					ProviderID:     "docker:////pool",
					ProviderIDList: []string{"docker:////c1-pool-abcde", "docker:////c1-pool-fghij"},
				}
				return dmp
			},
			spec: func(o client.Object) any { return o.(*infrav1.DockerMachinePool).Spec },
		},
		{
			name: "DockerMachinePoolTemplateMinimal",
			obj:  func(ns string) client.Object { return newDockerMachinePoolTemplate(ns) },
			spec: func(o client.Object) any { return o.(*infrav1.DockerMachinePoolTemplate).Spec },
		},
		{
			name: "DockerMachinePoolTemplateEveryField",
			obj: func(ns string) client.Object {
				dmpt := newDockerMachinePoolTemplate(ns)
				dmpt.Spec.Template.ObjectMeta = templateMeta
				dmpt.Spec.Template.Spec.Template = fullPoolTemplate()
				return dmpt
			},
			spec: func(o client.Object) any { return o.(*infrav1.DockerMachinePoolTemplate).Spec },
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env.RequireStoredAsSent(t, tt.obj(env.CreateNamespace(t, "create")), tt.spec)
		})
	}
}

// TestStatusSubresource_StoresContractFields writes the contract fields through the status
// subresource, as the controllers will, and checks that they are stored unchanged.
func TestStatusSubresource_StoresContractFields(t *testing.T) {
	ctx := context.Background()
	ns := env.CreateNamespace(t, "status")

	dc := newDockerCluster(ns)
	require.NoError(t, env.Client.Create(ctx, dc))
	dc.Status = infrav1.DockerClusterStatus{
		Initialization: infrav1.DockerClusterInitializationStatus{Provisioned: ptr.To(true)},
		FailureDomains: []clusterv1.FailureDomain{{Name: "fd-a", ControlPlane: ptr.To(true)}},
		Conditions: []metav1.Condition{{Type: clusterv1.ReadyCondition, Status: metav1.ConditionTrue, Reason: clusterv1.ReadyReason,
			LastTransitionTime: metav1.Now().Rfc3339Copy()}},
	}
	want := dc.Status.DeepCopy()
	require.NoError(t, env.Client.Status().Update(ctx, dc))
	got := &infrav1.DockerCluster{}
	require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(dc), got))
	require.Empty(t, cmp.Diff(*want, got.Status), "stored status (-sent +stored)")

	dm := newDockerMachine(ns)
	require.NoError(t, env.Client.Create(ctx, dm))
	dm.Status = infrav1.DockerMachineStatus{
		Initialization: infrav1.DockerMachineInitializationStatus{Provisioned: ptr.To(true)},
		Addresses: clusterv1.MachineAddresses{
			{Type: clusterv1.MachineHostName, Address: "c1-cp-0"},
			{Type: clusterv1.MachineInternalIP, Address: "172.18.0.3"},
		},
		FailureDomain: "fd-a",
	}
	wantM := dm.Status.DeepCopy()
	require.NoError(t, env.Client.Status().Update(ctx, dm))
	gotM := &infrav1.DockerMachine{}
	require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(dm), gotM))
	require.Empty(t, cmp.Diff(*wantM, gotM.Status), "stored status (-sent +stored)")

	dmp := newDockerMachinePool(ns)
	require.NoError(t, env.Client.Create(ctx, dmp))
	dmp.Status = infrav1.DockerMachinePoolStatus{
		Initialization:     infrav1.DockerMachinePoolInitializationStatus{Provisioned: ptr.To(true)},
		Replicas:           2,
		ObservedGeneration: 1,
		Instances: []infrav1.DockerMachinePoolInstanceStatus{
			{InstanceName: "c1-pool-abcde", ProviderID: "docker:////c1-pool-abcde", Bootstrapped: true, Ready: true,
				Addresses: clusterv1.MachineAddresses{{Type: clusterv1.MachineHostName, Address: "c1-pool-abcde"}, {Type: clusterv1.MachineInternalIP, Address: "172.18.0.4"}}},
			{InstanceName: "c1-pool-fghij", ProviderID: "docker:////c1-pool-fghij"},
		},
		Conditions: []metav1.Condition{{Type: infrav1.DockerMachinePoolReplicasReadyCondition, Status: metav1.ConditionFalse,
			Reason: infrav1.DockerMachinePoolScalingUpReason, Message: "Waiting for 1 of 2 instances to be bootstrapped", LastTransitionTime: metav1.Now().Rfc3339Copy()}},
	}
	wantP := dmp.Status.DeepCopy()
	require.NoError(t, env.Client.Status().Update(ctx, dmp))
	gotP := &infrav1.DockerMachinePool{}
	require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(dmp), gotP))
	require.Empty(t, cmp.Diff(*wantP, gotP.Status), "stored status (-sent +stored)")
}

// TestCRDs_CarryTheContractLabelAndCategory checks what the core's contract discovery and
// "kubectl get cluster-api" rely on.
func TestCRDs_CarryTheContractLabelAndCategory(t *testing.T) {
	ctx := context.Background()
	for _, name := range []string{"dockerclusters", "dockerclustertemplates", "dockermachines", "dockermachinetemplates",
		"dockermachinepools", "dockermachinepooltemplates", "devclusters", "devclustertemplates", "devmachines",
		"devmachinetemplates", "devmachinepools", "devmachinepooltemplates"} {
		crd := &apiextensionsv1.CustomResourceDefinition{}
		require.NoError(t, env.Client.Get(ctx, client.ObjectKey{Name: name + ".infrastructure.cluster.x-k8s.io"}, crd))
		require.Equal(t, "v1beta2", crd.Labels["cluster.x-k8s.io/v1beta2"], name)
		require.Contains(t, crd.Spec.Names.Categories, "cluster-api", name)
	}
}

// TestDockerCluster_AcceptsAnEmptySpecAsUpstreamManifestsWriteIt applies a DockerCluster
// (and template) with `spec: {}`, as upstream's cluster templates do.
func TestDockerCluster_AcceptsAnEmptySpecAsUpstreamManifestsWriteIt(t *testing.T) {
	ns := env.CreateNamespace(t, "empty-spec")
	dc := env.WithField(t, newDockerCluster(ns), map[string]any{}, "spec")
	require.NoError(t, env.Client.Create(context.Background(), dc))
	tmpl := &infrav1.DockerClusterTemplate{ObjectMeta: metav1.ObjectMeta{Name: "empty", Namespace: ns}}
	require.NoError(t, env.Client.Create(context.Background(), env.WithField(t, tmpl, map[string]any{}, "spec", "template", "spec")))
}
