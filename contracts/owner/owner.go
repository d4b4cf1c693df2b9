// Package owner keeps the two marks that tie an object to its Cluster under the
// contract: the cluster.x-k8s.io/cluster-name label, which every controller
// selects by, and an owner reference to the Cluster, which lets the garbage
// collector take the object with the Cluster; and it reads owner references
// (by UID, by group and kind) for every controller, so that each does not scan
// them its own way.
package owner

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
)

// ClusterReference is the owner reference to c. It is not a controller
// reference: the Cluster owns what a user created, it does not control it.
func ClusterReference(c *clusterv1.Cluster) metav1.OwnerReference {
	return metav1.OwnerReference{APIVersion: clusterv1.GroupVersion.String(), Kind: "Cluster", Name: c.Name, UID: c.UID}
}

// LabelCluster sets obj's cluster-name label to clusterName and reports whether
// it changed.
func LabelCluster(obj metav1.Object, clusterName string) bool {
	labels := obj.GetLabels()
	if labels[clusterv1.ClusterNameLabel] == clusterName && labels != nil {
		return false
	}
	if labels == nil {
		labels = map[string]string{}
	}
	labels[clusterv1.ClusterNameLabel] = clusterName
	obj.SetLabels(labels)
	return true
}

// EnsureClusterOwner adds c as an owner of obj unless it is one already (by
// UID), and reports whether it added it.
func EnsureClusterOwner(obj metav1.Object, c *clusterv1.Cluster) bool {
	if HasUID(obj, c.UID) {
		return false
	}
	obj.SetOwnerReferences(append(obj.GetOwnerReferences(), ClusterReference(c)))
	return true
}

// HasUID reports whether the object of that UID is among obj's owners. The UID,
// not the name, tells a live owner from a deleted one of the same name.
func HasUID(obj metav1.Object, uid types.UID) bool {
	for _, ref := range obj.GetOwnerReferences() {
		if ref.UID == uid {
			return true
		}
	}
	return false
}

// WithoutUID is refs without the references to the object of that UID, in a new
// slice (refs is left as it is, for a patch computed against it).
func WithoutUID(refs []metav1.OwnerReference, uid types.UID) []metav1.OwnerReference {
	out := refs[:0:0]
	for _, ref := range refs {
		if ref.UID != uid {
			out = append(out, ref)
		}
	}
	return out
}

// NameOf is the name of obj's first owner of group kind gk, whatever its API
// version, or "" when it has none (yet, or any more).
func NameOf(obj metav1.Object, gk schema.GroupKind) string {
	for _, ref := range obj.GetOwnerReferences() {
		gv, err := schema.ParseGroupVersion(ref.APIVersion)
		if err == nil && ref.Kind == gk.Kind && gv.Group == gk.Group {
			return ref.Name
		}
	}
	return ""
}
