package mapping

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
)

func TestClusterToObjects_RequestsTheObjectsLabelledWithTheClusterInItsNamespace(t *testing.T) {
	scheme := runtime.NewScheme()
	require.NoError(t, clusterv1.AddToScheme(scheme))
	machine := func(ns, name, cluster string) client.Object {
		return &clusterv1.Machine{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name,
			Labels: map[string]string{clusterv1.ClusterNameLabel: cluster}}}
	}
	c := fake.NewClientBuilder().WithScheme(scheme).WithObjects(
		machine("ns", "a", "c1"), machine("ns", "b", "c1"), machine("ns", "other", "c2"), machine("elsewhere", "x", "c1"),
	).Build()

	got := ClusterObjectToObjects(c, func() client.ObjectList { return &clusterv1.MachineList{} })(context.Background(),
		&clusterv1.Cluster{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "c1"}})
	require.ElementsMatch(t, []reconcile.Request{
		{NamespacedName: client.ObjectKey{Namespace: "ns", Name: "a"}},
		{NamespacedName: client.ObjectKey{Namespace: "ns", Name: "b"}},
	}, got)
}
