package coretest

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// PodOn creates a Pod bound to node through spec.nodeName (no scheduler runs in envtest), with
// one container and no termination grace period, after mutate changed it. The drain tests of
// the Machine controller and of `capstanctl plan` build the workload's Pods with it.
func PodOn(t testing.TB, c client.Client, node, namespace, name string, podLabels map[string]string, mutate ...func(*corev1.Pod)) *corev1.Pod {
	t.Helper()
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace, Labels: podLabels},
		Spec: corev1.PodSpec{NodeName: node, TerminationGracePeriodSeconds: ptr.To[int64](0),
			Containers: []corev1.Container{{Name: "c", Image: "example.invalid/app:1"}}},
	}
	for _, mut := range mutate {
		mut(p)
	}
	require.NoError(t, c.Create(context.Background(), p))
	return p
}

// ControlledBy makes a Pod's controller the given kind (a DaemonSet, say).
func ControlledBy(kind, name string) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		p.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: kind, Name: name, UID: "d1", Controller: ptr.To(true)}}
	}
}
