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

package v1beta1

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/conversion"
)

var clusterConversion = conversion.KindConversion[ClusterSpec, ClusterStatus, clusterv1.ClusterSpec, clusterv1.ClusterStatus]{
	SpecUp:     clusterSpecUp,
	SpecDown:   clusterSpecDown,
	StatusUp:   clusterStatusUp,
	StatusDown: clusterStatusDown,
	Derived: DerivedConditions(func(s *ClusterStatus) *Conditions { return &s.Conditions },
		func(s *clusterv1.ClusterStatus) []metav1.Condition { return s.Conditions },
		DerivedCondition{Type: ReadyV1Beta1Condition, From: clusterv1.ClusterAvailableCondition},
		DerivedCondition{Type: "InfrastructureReady", From: clusterv1.ClusterInfrastructureReadyCondition},
		DerivedCondition{Type: "ControlPlaneInitialized", From: clusterv1.ClusterControlPlaneInitializedCondition},
		DerivedCondition{Type: "ControlPlaneReady", From: clusterv1.ClusterControlPlaneAvailableCondition},
		DerivedCondition{Type: "TopologyReconciled", From: clusterv1.ClusterTopologyReconciledCondition}),
}

// ConvertClusterToHub converts a v1beta1 Cluster to v1beta2.
func ConvertClusterToHub(_ context.Context, src *Cluster, dst *clusterv1.Cluster) error {
	return clusterConversion.Up(&src.ObjectMeta, &src.Spec, &src.Status, &dst.ObjectMeta, &dst.Spec, &dst.Status)
}

// ConvertHubToCluster converts a v1beta2 Cluster to v1beta1; resolver names the API version of
// references that v1beta1 clients did not write themselves.
func ConvertHubToCluster(ctx context.Context, src *clusterv1.Cluster, dst *Cluster, resolver conversion.APIVersionResolver) error {
	return clusterConversion.Down(ctx, resolver, &src.ObjectMeta, &src.Spec, &src.Status, &dst.ObjectMeta, &dst.Spec, &dst.Status)
}

func clusterSpecUp(in *ClusterSpec, restored *clusterv1.ClusterSpec) (clusterv1.ClusterSpec, error) {
	out := clusterv1.ClusterSpec{
		Paused:               conversion.BoolIntent(in.Paused, restored.Paused),
		ControlPlaneEndpoint: clusterv1.APIEndpoint{Host: in.ControlPlaneEndpoint.Host, Port: in.ControlPlaneEndpoint.Port},
		AvailabilityGates:    append([]clusterv1.ClusterAvailabilityGate(nil), in.AvailabilityGates...),
		Topology:             topologyUp(in.Topology, &restored.Topology),
	}
	if n := in.ClusterNetwork; n != nil {
		out.ClusterNetwork = clusterv1.ClusterNetwork{
			APIServerPort: conversion.Deref(n.APIServerPort),
			Services:      networkRangesUp(n.Services),
			Pods:          networkRangesUp(n.Pods),
			ServiceDomain: n.ServiceDomain,
		}
	}
	var err error
	if out.ControlPlaneRef, err = conversion.RefToContract(in.ControlPlaneRef, "spec.controlPlaneRef"); err != nil {
		return out, err
	}
	out.InfrastructureRef, err = conversion.RefToContract(in.InfrastructureRef, "spec.infrastructureRef")
	return out, err
}

func clusterSpecDown(ctx context.Context, in *clusterv1.ClusterSpec, namespace string, stored *ClusterSpec,
	resolver conversion.APIVersionResolver) (ClusterSpec, error) {
	out := ClusterSpec{
		Paused:               conversion.Deref(in.Paused),
		ControlPlaneEndpoint: APIEndpoint{Host: in.ControlPlaneEndpoint.Host, Port: in.ControlPlaneEndpoint.Port},
		AvailabilityGates:    append([]clusterv1.ClusterAvailabilityGate(nil), in.AvailabilityGates...),
	}
	if n := in.ClusterNetwork; n.APIServerPort != 0 || n.ServiceDomain != "" || len(n.Services.CIDRBlocks) > 0 || len(n.Pods.CIDRBlocks) > 0 {
		out.ClusterNetwork = &ClusterNetwork{APIServerPort: conversion.NonZero(n.APIServerPort), ServiceDomain: n.ServiceDomain}
		out.ClusterNetwork.Services = networkRangesDown(n.Services)
		out.ClusterNetwork.Pods = networkRangesDown(n.Pods)
	}
	if stored == nil {
		stored = &ClusterSpec{}
	}
	out.Topology = topologyDown(&in.Topology, namespace, stored.Topology)
	var err error
	if out.ControlPlaneRef, err = conversion.RefFromContract(ctx, in.ControlPlaneRef, namespace, stored.ControlPlaneRef, resolver, "spec.controlPlaneRef"); err != nil {
		return out, err
	}
	out.InfrastructureRef, err = conversion.RefFromContract(ctx, in.InfrastructureRef, namespace, stored.InfrastructureRef, resolver, "spec.infrastructureRef")
	return out, err
}

func clusterStatusUp(in *ClusterStatus, restored *clusterv1.ClusterStatus) clusterv1.ClusterStatus {
	out := clusterv1.ClusterStatus{
		Phase:              in.Phase,
		ObservedGeneration: in.ObservedGeneration,
		Initialization: clusterv1.ClusterInitializationStatus{
			InfrastructureProvisioned: conversion.BoolIntent(in.InfrastructureReady, restored.Initialization.InfrastructureProvisioned),
			ControlPlaneInitialized:   conversion.BoolIntent(in.ControlPlaneReady, restored.Initialization.ControlPlaneInitialized),
		},
	}
	if v := in.V1Beta2; v != nil {
		out.Conditions = v.Conditions
		out.ControlPlane = v.ControlPlane.DeepCopy()
		out.Workers = v.Workers.DeepCopy()
	}
	out.FailureDomains = ConvertFailureDomainsToHub(in.FailureDomains, restored.FailureDomains)
	return out
}

func clusterStatusDown(in *clusterv1.ClusterStatus) ClusterStatus {
	out := ClusterStatus{
		Phase:               in.Phase,
		ObservedGeneration:  in.ObservedGeneration,
		InfrastructureReady: conversion.Deref(in.Initialization.InfrastructureProvisioned),
		ControlPlaneReady:   conversion.Deref(in.Initialization.ControlPlaneInitialized),
	}
	if len(in.Conditions) > 0 || in.ControlPlane != nil || in.Workers != nil {
		out.V1Beta2 = &ClusterV1Beta2Status{Conditions: in.Conditions, ControlPlane: in.ControlPlane.DeepCopy(), Workers: in.Workers.DeepCopy()}
	}
	out.FailureDomains = ConvertHubToFailureDomains(in.FailureDomains)
	return out
}

// networkRangesUp maps no ranges and an empty list alike to v1beta2's unset ranges (v1beta2
// requires at least one block when the stanza is there).
func networkRangesUp(in *NetworkRanges) clusterv1.NetworkRanges {
	if in == nil || len(in.CIDRBlocks) == 0 {
		return clusterv1.NetworkRanges{}
	}
	return clusterv1.NetworkRanges{CIDRBlocks: append([]string(nil), in.CIDRBlocks...)}
}

func networkRangesDown(in clusterv1.NetworkRanges) *NetworkRanges {
	if len(in.CIDRBlocks) == 0 {
		return nil
	}
	return &NetworkRanges{CIDRBlocks: append([]string(nil), in.CIDRBlocks...)}
}
