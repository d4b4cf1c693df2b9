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
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
)

// The builders below return minimal valid objects; tests change one thing to hit one rule.

const clusterName = "c1"

func infraRef(kind, name string) clusterv1.ContractVersionedObjectReference {
	return clusterv1.ContractVersionedObjectReference{APIGroup: "infrastructure.cluster.x-k8s.io", Kind: kind, Name: name}
}

func machineSpec() clusterv1.MachineSpec {
	return clusterv1.MachineSpec{
		ClusterName:       clusterName,
		Bootstrap:         clusterv1.Bootstrap{DataSecretName: ptr.To("bootstrap-data")},
		InfrastructureRef: infraRef("DevMachine", "m1"),
		Version:           "v1.37.2",
	}
}

// machineTemplate and the selectors below carry the cluster-name label, as the admission
// policies would add it, so that these objects are complete as sent.
func machineTemplate() clusterv1.MachineTemplateSpec {
	return clusterv1.MachineTemplateSpec{
		ObjectMeta: clusterv1.ObjectMeta{Labels: map[string]string{"app": "web", clusterv1.ClusterNameLabel: clusterName}},
		Spec:       machineSpec(),
	}
}

func selector() clusterv1.LabelSelector {
	return clusterv1.LabelSelector{MatchLabels: map[string]string{"app": "web", clusterv1.ClusterNameLabel: clusterName}}
}

func newCluster(ns string) *clusterv1.Cluster {
	return &clusterv1.Cluster{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: clusterName},
		Spec: clusterv1.ClusterSpec{
			ClusterNetwork: clusterv1.ClusterNetwork{
				Pods: clusterv1.NetworkRanges{CIDRBlocks: []string{"10.244.0.0/16", "fd00:10:244::/56"}},
			},
			InfrastructureRef: infraRef("DevCluster", clusterName),
		},
	}
}

func newMachine(ns string) *clusterv1.Machine {
	return &clusterv1.Machine{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "m1"},
		Spec:       machineSpec(),
	}
}

func newMachineSet(ns string) *clusterv1.MachineSet {
	return &clusterv1.MachineSet{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "ms1"},
		Spec: clusterv1.MachineSetSpec{
			ClusterName: clusterName,
			Replicas:    ptr.To[int32](1),
			Selector:    selector(),
			Template:    machineTemplate(),
		},
	}
}

func newMachineDeployment(ns string) *clusterv1.MachineDeployment {
	return &clusterv1.MachineDeployment{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "md1"},
		Spec: clusterv1.MachineDeploymentSpec{
			ClusterName: clusterName,
			Replicas:    ptr.To[int32](1),
			Selector:    selector(),
			Template:    machineTemplate(),
		},
	}
}

func newMachineHealthCheck(ns string) *clusterv1.MachineHealthCheck {
	return &clusterv1.MachineHealthCheck{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "mhc1"},
		Spec: clusterv1.MachineHealthCheckSpec{
			ClusterName: clusterName,
			Selector:    metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
		},
	}
}

func newMachinePool(ns string) *clusterv1.MachinePool {
	mp := &clusterv1.MachinePool{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "mp1"},
		Spec: clusterv1.MachinePoolSpec{
			ClusterName: clusterName,
			Replicas:    ptr.To[int32](2),
			Template:    machineTemplate(),
		},
	}
	mp.Spec.Template.Spec.Deletion.NodeDeletionTimeoutSeconds = ptr.To[int32](10)
	return mp
}
