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

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
)

// TestCreate_MinimalObjectsAreStoredAsSent creates a minimal valid object of each kind and reads it
// back: the schema must accept it and must not prune or rewrite any field we set.
func TestCreate_MinimalObjectsAreStoredAsSent(t *testing.T) {
	tests := []struct {
		name string
		obj  func(ns string) client.Object
		// spec extracts the spec so that what was sent can be compared with what was stored.
		spec func(obj client.Object) any
	}{
		{
			name: "Cluster",
			obj:  func(ns string) client.Object { return newCluster(ns) },
			spec: func(o client.Object) any { return o.(*clusterv1.Cluster).Spec },
		},
		{
			name: "Machine",
			obj:  func(ns string) client.Object { return newMachine(ns) },
			spec: func(o client.Object) any { return o.(*clusterv1.Machine).Spec },
		},
		{
			name: "MachineSet",
			obj:  func(ns string) client.Object { return newMachineSet(ns) },
			spec: func(o client.Object) any { return o.(*clusterv1.MachineSet).Spec },
		},
		{
			name: "MachineDeployment",
			obj: func(ns string) client.Object {
				md := newMachineDeployment(ns)
				// Set explicitly so that the round trip compares like with like; the defaults
				// have their own test.
				md.Spec.Rollout.Strategy = clusterv1.MachineDeploymentRolloutStrategy{
					Type: clusterv1.OnDeleteMachineDeploymentStrategyType,
					RollingUpdate: clusterv1.MachineDeploymentRolloutStrategyRollingUpdate{
						MaxSurge:       ptr.To(intstr.FromString("20%")),
						MaxUnavailable: ptr.To(intstr.FromInt32(1)),
					},
				}
				md.Spec.Deletion.Order = clusterv1.OldestMachineSetDeletionOrder
				return md
			},
			spec: func(o client.Object) any { return o.(*clusterv1.MachineDeployment).Spec },
		},
		{
			name: "MachineHealthCheck",
			obj: func(ns string) client.Object {
				mhc := newMachineHealthCheck(ns)
				mhc.Spec.Checks.NodeStartupTimeoutSeconds = ptr.To[int32](300)
				mhc.Spec.Remediation.TriggerIf.UnhealthyInRange = "[1-3]"
				return mhc
			},
			spec: func(o client.Object) any { return o.(*clusterv1.MachineHealthCheck).Spec },
		},
		{
			name: "MachinePool",
			obj:  func(ns string) client.Object { return newMachinePool(ns) },
			spec: func(o client.Object) any { return o.(*clusterv1.MachinePool).Spec },
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env.RequireStoredAsSent(t, tt.obj(env.CreateNamespace(t, "create")), tt.spec)
		})
	}
}

func TestMachineDeployment_DefaultsRolloutToRollingUpdateSurgeOneUnavailableZero(t *testing.T) {
	tests := []struct {
		name    string
		rollout clusterv1.MachineDeploymentRolloutSpec
		want    clusterv1.MachineDeploymentRolloutStrategy
	}{
		{
			name: "no rollout at all",
			want: clusterv1.MachineDeploymentRolloutStrategy{
				Type: clusterv1.RollingUpdateMachineDeploymentStrategyType,
				RollingUpdate: clusterv1.MachineDeploymentRolloutStrategyRollingUpdate{
					MaxSurge:       ptr.To(intstr.FromInt32(1)),
					MaxUnavailable: ptr.To(intstr.FromInt32(0)),
				},
			},
		},
		{
			name: "rollout with only maxSurge",
			rollout: clusterv1.MachineDeploymentRolloutSpec{Strategy: clusterv1.MachineDeploymentRolloutStrategy{
				RollingUpdate: clusterv1.MachineDeploymentRolloutStrategyRollingUpdate{MaxSurge: ptr.To(intstr.FromInt32(3))},
			}},
			want: clusterv1.MachineDeploymentRolloutStrategy{
				Type: clusterv1.RollingUpdateMachineDeploymentStrategyType,
				RollingUpdate: clusterv1.MachineDeploymentRolloutStrategyRollingUpdate{
					MaxSurge:       ptr.To(intstr.FromInt32(3)),
					MaxUnavailable: ptr.To(intstr.FromInt32(0)),
				},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			ns := env.CreateNamespace(t, "md-defaults")
			md := newMachineDeployment(ns)
			md.Spec.Rollout = tt.rollout
			require.NoError(t, env.Client.Create(ctx, md))

			// The create response already carries the defaults; read again to see what is stored.
			got := &clusterv1.MachineDeployment{}
			require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(md), got))
			require.Empty(t, cmp.Diff(tt.want, got.Spec.Rollout.Strategy))
		})
	}
}

func TestMachineHealthCheck_DefaultsNodeStartupTimeoutTo600Seconds(t *testing.T) {
	ctx := context.Background()
	ns := env.CreateNamespace(t, "mhc-defaults")
	mhc := newMachineHealthCheck(ns)
	require.NoError(t, env.Client.Create(ctx, mhc))

	got := &clusterv1.MachineHealthCheck{}
	require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(mhc), got))
	require.Equal(t, ptr.To(clusterv1.DefaultNodeStartupTimeoutSeconds), got.Spec.Checks.NodeStartupTimeoutSeconds)
}

// TestScaleSubresource_ExposesReplicasAndSelector checks the scale subresource paths: autoscalers
// read and write replicas through it and find the Machines through the selector.
func TestScaleSubresource_ExposesReplicasAndSelector(t *testing.T) {
	tests := []struct {
		name         string
		obj          func(ns string) client.Object
		setStatus    func(obj client.Object)
		wantSelector string
	}{
		{
			name: "MachineSet",
			obj:  func(ns string) client.Object { return newMachineSet(ns) },
			setStatus: func(o client.Object) {
				o.(*clusterv1.MachineSet).Status = clusterv1.MachineSetStatus{Replicas: ptr.To[int32](1), Selector: "app=web"}
			},
			wantSelector: "app=web",
		},
		{
			name: "MachineDeployment",
			obj:  func(ns string) client.Object { return newMachineDeployment(ns) },
			setStatus: func(o client.Object) {
				o.(*clusterv1.MachineDeployment).Status = clusterv1.MachineDeploymentStatus{Replicas: ptr.To[int32](1), Selector: "app=web"}
			},
			wantSelector: "app=web",
		},
		{
			name: "MachinePool",
			obj:  func(ns string) client.Object { return newMachinePool(ns) },
			setStatus: func(o client.Object) {
				o.(*clusterv1.MachinePool).Status = clusterv1.MachinePoolStatus{Replicas: ptr.To[int32](1)}
			},
			// MachinePool has no label selector (its instances are not Machines it selects).
			wantSelector: "",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			ns := env.CreateNamespace(t, "scale")
			obj := tt.obj(ns)
			require.NoError(t, env.Client.Create(ctx, obj))
			tt.setStatus(obj)
			require.NoError(t, env.Client.Status().Update(ctx, obj))

			scale := &autoscalingv1.Scale{}
			require.NoError(t, env.Client.SubResource("scale").Get(ctx, obj, scale))
			require.Equal(t, int32(1), scale.Status.Replicas)
			require.Equal(t, tt.wantSelector, scale.Status.Selector)

			scale.Spec.Replicas = 5
			require.NoError(t, env.Client.SubResource("scale").Update(ctx, obj, client.WithSubResourceBody(scale)))
			require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(obj), obj))
			scaled := &autoscalingv1.Scale{}
			require.NoError(t, env.Client.SubResource("scale").Get(ctx, obj, scaled))
			require.Equal(t, int32(5), scaled.Spec.Replicas)
		})
	}
}
