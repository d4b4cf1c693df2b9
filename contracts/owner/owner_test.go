package owner

import (
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
)

func TestLabelCluster_SetsTheLabelOnceAndKeepsOthers(t *testing.T) {
	m := &clusterv1.Machine{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"pool": "a"}}}
	require.True(t, LabelCluster(m, "prod"))
	require.Equal(t, map[string]string{"pool": "a", clusterv1.ClusterNameLabel: "prod"}, m.Labels)
	require.False(t, LabelCluster(m, "prod"), "an unchanged label is no change")
	require.True(t, LabelCluster(&clusterv1.Machine{}, "prod"), "an object without labels gets one")
}

func TestEnsureClusterOwner_AddsOneNonControllerReferenceByUID(t *testing.T) {
	c := &clusterv1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: "prod", UID: "u1"}}
	other := metav1.OwnerReference{APIVersion: "v1", Kind: "Other", Name: "x", UID: "u2"}
	m := &clusterv1.Machine{ObjectMeta: metav1.ObjectMeta{OwnerReferences: []metav1.OwnerReference{other}}}
	require.True(t, EnsureClusterOwner(m, c))
	require.False(t, EnsureClusterOwner(m, c))
	require.Equal(t, []metav1.OwnerReference{other, {APIVersion: "cluster.x-k8s.io/v1beta2", Kind: "Cluster", Name: "prod", UID: "u1"}}, m.OwnerReferences)
	require.Nil(t, m.OwnerReferences[1].Controller, "the Cluster owns, it does not control")
}
