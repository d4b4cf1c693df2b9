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

func TestOwnerReads_ByUIDAndByGroupKind(t *testing.T) {
	refs := []metav1.OwnerReference{
		{APIVersion: "cluster.x-k8s.io/v1beta1", Kind: "MachineSet", Name: "old-api", UID: "u1"},
		{APIVersion: "example.com/v1", Kind: "Machine", Name: "other-group", UID: "u2"},
		{APIVersion: "cluster.x-k8s.io/v1beta2", Kind: "Machine", Name: "m1", UID: "u3"},
	}
	m := &clusterv1.Machine{ObjectMeta: metav1.ObjectMeta{OwnerReferences: refs}}
	require.True(t, HasUID(m, "u2"))
	require.False(t, HasUID(m, "u9"))
	require.Equal(t, "m1", NameOf(m, clusterv1.GroupVersion.WithKind("Machine").GroupKind()), "the group must match, any version")
	require.Equal(t, "old-api", NameOf(m, clusterv1.GroupVersion.WithKind("MachineSet").GroupKind()))
	require.Empty(t, NameOf(m, clusterv1.GroupVersion.WithKind("Cluster").GroupKind()))
	require.Equal(t, []metav1.OwnerReference{refs[0], refs[2]}, WithoutUID(refs, "u2"))
	require.Len(t, refs, 3, "the input is left as it was")
	require.Equal(t, "other-group", refs[1].Name)
}
