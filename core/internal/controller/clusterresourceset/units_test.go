package clusterresourceset

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	addonsv1 "capstan.dev/contracts/api/addons/v1beta2"
)

// The metadata informer must not keep anything of a Secret but its identity: a kubectl
// last-applied annotation holds the Secret's data.
func TestKeepIdentity_StripsEverythingButTheIdentity(t *testing.T) {
	in := &metav1.PartialObjectMetadata{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"},
		ObjectMeta: metav1.ObjectMeta{Name: "s", Namespace: "ns", UID: "u", ResourceVersion: "7",
			Labels:          map[string]string{"a": "b"},
			Annotations:     map[string]string{"kubectl.kubernetes.io/last-applied-configuration": `{"data":{"password":"c2VjcmV0"}}`},
			ManagedFields:   []metav1.ManagedFieldsEntry{{Manager: "kubectl"}},
			OwnerReferences: []metav1.OwnerReference{{Name: "o"}}},
	}
	out, err := keepIdentity(in)
	require.NoError(t, err)
	require.Equal(t, metav1.ObjectMeta{Name: "s", Namespace: "ns", UID: "u", ResourceVersion: "7"}, out.(*metav1.PartialObjectMetadata).ObjectMeta)
}

func TestFieldManager_IsNamedForTheClusterResourceSetWithinTheLimit(t *testing.T) {
	require.Equal(t, "clusterresourceset/cni", fieldManager("cni"))
	long := strings.Repeat("a", 253)
	got := fieldManager(long)
	require.Len(t, got, maxFieldManagerLength)
	require.True(t, strings.HasPrefix(got, "clusterresourceset/aaa"))
	require.NotEqual(t, got, fieldManager(strings.Repeat("a", 252)+"b"), "names differing past the cut get different managers")
}

func TestNeedsApply_ApplyOnceOnceReconcileOnHashChange(t *testing.T) {
	ref := addonsv1.ResourceRef{Name: "cni", Kind: "ConfigMap"}
	res := resource{ref: ref, manifests: &manifests{hash: "sha256:new"}}
	entry := func(applied bool, hash string) addonsv1.ResourceSetBinding {
		return addonsv1.ResourceSetBinding{ClusterResourceSetName: "x", Resources: []addonsv1.ResourceBinding{
			{ResourceRef: addonsv1.ResourceRef{Name: "other", Kind: "ConfigMap"}, Applied: ptr.To(true), Hash: "sha256:new"},
			{ResourceRef: ref, Applied: ptr.To(applied), Hash: hash}}}
	}
	for _, tc := range []struct {
		name     string
		strategy addonsv1.ClusterResourceSetStrategy
		entry    addonsv1.ResourceSetBinding
		want     bool
	}{
		{"ApplyOnceNeverApplied", addonsv1.ClusterResourceSetStrategyApplyOnce, addonsv1.ResourceSetBinding{}, true},
		{"ApplyOnceFailedBefore", addonsv1.ClusterResourceSetStrategyApplyOnce, entry(false, "sha256:new"), true},
		{"ApplyOnceAppliedOldContent", addonsv1.ClusterResourceSetStrategyApplyOnce, entry(true, "sha256:old"), false},
		{"ReconcileNeverApplied", addonsv1.ClusterResourceSetStrategyReconcile, addonsv1.ResourceSetBinding{}, true},
		{"ReconcileAppliedSameContent", addonsv1.ClusterResourceSetStrategyReconcile, entry(true, "sha256:new"), false},
		{"ReconcileAppliedOldContent", addonsv1.ClusterResourceSetStrategyReconcile, entry(true, "sha256:old"), true},
		{"ReconcileFailedBefore", addonsv1.ClusterResourceSetStrategyReconcile, entry(false, "sha256:new"), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, needsApply(string(tc.strategy), tc.entry, res))
		})
	}
}
