package provider

import (
	"context"
	"fmt"
	"runtime"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
)

// nodeName is unique across namespaces, because all Clusters share one workload API
// server: <namespace>-<infra machine name>.
func nodeName(infraMachine client.Object) string {
	return infraMachine.GetNamespace() + "-" + infraMachine.GetName()
}

// ensureNode registers the Node of an InfraMachine, Ready, unless it exists. Status
// is sent with the create, as a kubelet registers, so a Node costs one write.
func (p *scaleProvider) ensureNode(ctx context.Context, infraMachine *unstructured.Unstructured, m *clusterv1.Machine, providerID, ip string) error {
	name := nodeName(infraMachine)
	err := p.client.Get(ctx, client.ObjectKey{Name: name}, &corev1.Node{})
	if !apierrors.IsNotFound(err) {
		return err
	}
	node := newReadyNode(name, infraMachine.GetNamespace(), string(infraMachine.GetUID()), providerID, ip, m.Spec.Version)
	if err := p.client.Create(ctx, node); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("registering Node %s: %w", name, err)
	}
	return nil
}

// newReadyNode is what a kubelet registers: providerID, addresses, capacity, a
// nodeInfo and Ready=True with the pressure conditions False.
func newReadyNode(name, namespace, id, providerID, ip, kubeletVersion string) *corev1.Node {
	now := metav1.Now()
	condition := func(t corev1.NodeConditionType, s corev1.ConditionStatus, reason string) corev1.NodeCondition {
		return corev1.NodeCondition{Type: t, Status: s, Reason: reason, LastHeartbeatTime: now, LastTransitionTime: now}
	}
	capacity := corev1.ResourceList{
		corev1.ResourceCPU: resource.MustParse("2"), corev1.ResourceMemory: resource.MustParse("4Gi"),
		corev1.ResourcePods: resource.MustParse("110"),
	}
	return &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{
			NodeLabel: namespace, corev1.LabelHostname: name,
			corev1.LabelOSStable: "linux", corev1.LabelArchStable: runtime.GOARCH,
		}},
		Spec: corev1.NodeSpec{ProviderID: providerID},
		Status: corev1.NodeStatus{
			Conditions: []corev1.NodeCondition{
				condition(corev1.NodeMemoryPressure, corev1.ConditionFalse, "KubeletHasSufficientMemory"),
				condition(corev1.NodeDiskPressure, corev1.ConditionFalse, "KubeletHasNoDiskPressure"),
				condition(corev1.NodePIDPressure, corev1.ConditionFalse, "KubeletHasSufficientPID"),
				condition(corev1.NodeReady, corev1.ConditionTrue, "KubeletReady"),
			},
			Addresses:   []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: ip}, {Type: corev1.NodeHostName, Address: name}},
			Capacity:    capacity,
			Allocatable: capacity,
			NodeInfo: corev1.NodeSystemInfo{
				MachineID: id, SystemUUID: id, BootID: id,
				KernelVersion: "6.0.0-scale", OSImage: "Capstan scale provider", ContainerRuntimeVersion: "scale://1.0.0",
				KubeletVersion: kubeletVersion, OperatingSystem: "linux", Architecture: runtime.GOARCH,
			},
		},
	}
}
