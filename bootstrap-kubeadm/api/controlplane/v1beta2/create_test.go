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
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	controlplanev1 "capstan.dev/bootstrap-kubeadm/api/controlplane/v1beta2"
	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
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
			name: "KubeadmControlPlaneMinimal",
			obj:  func(ns string) client.Object { return newKubeadmControlPlane(ns) },
			spec: func(o client.Object) any { return o.(*controlplanev1.KubeadmControlPlane).Spec },
		},
		{
			name: "KubeadmControlPlaneEveryField",
			obj: func(ns string) client.Object {
				kcp := newKubeadmControlPlane(ns)
				everyField(&kcp.Spec)
				return kcp
			},
			spec: func(o client.Object) any { return o.(*controlplanev1.KubeadmControlPlane).Spec },
		},
		{
			name: "KubeadmControlPlaneTemplateMinimal",
			obj:  func(ns string) client.Object { return newKubeadmControlPlaneTemplate(ns) },
			spec: func(o client.Object) any { return o.(*controlplanev1.KubeadmControlPlaneTemplate).Spec },
		},
		{
			name: "KubeadmControlPlaneTemplateEveryField",
			obj: func(ns string) client.Object {
				kcpt := newKubeadmControlPlaneTemplate(ns)
				full := newKubeadmControlPlane(ns).Spec
				everyField(&full)
				kcpt.Spec.Template = controlplanev1.KubeadmControlPlaneTemplateResource{
					ObjectMeta: clusterv1.ObjectMeta{Labels: map[string]string{"tier": "cp"}},
					Spec: controlplanev1.KubeadmControlPlaneTemplateResourceSpec{
						MachineTemplate: controlplanev1.KubeadmControlPlaneTemplateMachineTemplate{
							ObjectMeta: full.MachineTemplate.ObjectMeta,
							Spec: controlplanev1.KubeadmControlPlaneTemplateMachineTemplateSpec{
								Deletion: full.MachineTemplate.Spec.Deletion,
								Taints:   full.MachineTemplate.Spec.Taints,
							},
						},
						KubeadmConfigSpec: full.KubeadmConfigSpec,
						Rollout:           full.Rollout,
						Remediation:       full.Remediation,
						MachineNaming:     full.MachineNaming,
					},
				}
				return kcpt
			},
			spec: func(o client.Object) any { return o.(*controlplanev1.KubeadmControlPlaneTemplate).Spec },
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env.RequireStoredAsSent(t, tt.obj(env.CreateNamespace(t, "create")), tt.spec)
		})
	}
}

// TestKubeadmControlPlane_DefaultsOneReplicaAndRollingUpdateWithMaxSurgeOne checks the defaults the
// apiserver fills in, at each level a user may stop writing the rollout.
func TestKubeadmControlPlane_DefaultsOneReplicaAndRollingUpdateWithMaxSurgeOne(t *testing.T) {
	want := controlplanev1.KubeadmControlPlaneRolloutStrategy{
		Type: controlplanev1.RollingUpdateStrategyType,
		RollingUpdate: controlplanev1.KubeadmControlPlaneRolloutStrategyRollingUpdate{
			MaxSurge: ptr.To(intstr.FromInt32(1)),
		},
	}
	tests := []struct {
		name    string
		rollout any // the spec.rollout sent; nil removes it
	}{
		{name: "RolloutOmitted", rollout: nil},
		{name: "OnlyRolloutAfter", rollout: map[string]any{"after": "2026-03-09T09:00:00Z"}},
		{name: "OnlyStrategyType", rollout: map[string]any{"strategy": map[string]any{"type": "RollingUpdate"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			ns := env.CreateNamespace(t, "defaults")
			kcp := newKubeadmControlPlane(ns)
			kcp.Spec.Replicas = nil
			u := env.WithField(t, kcp, tt.rollout, "spec", "rollout")
			require.NoError(t, env.Client.Create(ctx, u))

			got := &controlplanev1.KubeadmControlPlane{}
			require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(kcp), got))
			require.Equal(t, ptr.To[int32](1), got.Spec.Replicas)
			require.Empty(t, cmp.Diff(want, got.Spec.Rollout.Strategy), "defaulted strategy differs (-want +got)")
		})
	}
}

// TestKubeadmControlPlane_StatusAndScaleExposeContractFields writes the contract status fields as
// the controller will, and checks that the scale subresource reports them.
func TestKubeadmControlPlane_StatusAndScaleExposeContractFields(t *testing.T) {
	ctx := context.Background()
	ns := env.CreateNamespace(t, "status")
	kcp := newKubeadmControlPlane(ns)
	require.NoError(t, env.Client.Create(ctx, kcp))

	kcp.Status = controlplanev1.KubeadmControlPlaneStatus{
		Initialization:     controlplanev1.KubeadmControlPlaneInitializationStatus{ControlPlaneInitialized: ptr.To(true)},
		Selector:           "cluster.x-k8s.io/cluster-name=c1,cluster.x-k8s.io/control-plane",
		Replicas:           ptr.To[int32](2),
		ReadyReplicas:      ptr.To[int32](1),
		AvailableReplicas:  ptr.To[int32](1),
		UpToDateReplicas:   ptr.To[int32](2),
		Version:            "v1.37.2",
		ObservedGeneration: 1,
	}
	want := kcp.Status
	require.NoError(t, env.Client.Status().Update(ctx, kcp))

	got := &controlplanev1.KubeadmControlPlane{}
	require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(kcp), got))
	require.Empty(t, cmp.Diff(want, got.Status), "stored status differs (-want +got)")

	scale := &autoscalingv1.Scale{}
	require.NoError(t, env.Client.SubResource("scale").Get(ctx, kcp, scale))
	require.Equal(t, int32(3), scale.Spec.Replicas)
	require.Equal(t, int32(2), scale.Status.Replicas)
	require.Equal(t, want.Selector, scale.Status.Selector)
}
