// Package owner keeps the two marks that tie an object to its Cluster under the
// contract: the cluster.x-k8s.io/cluster-name label, which every controller
// selects by, and an owner reference to the Cluster, which lets the garbage
// collector take the object with the Cluster.
package owner

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

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
	for _, ref := range obj.GetOwnerReferences() {
		if ref.UID == c.UID {
			return false
		}
	}
	obj.SetOwnerReferences(append(obj.GetOwnerReferences(), ClusterReference(c)))
	return true
}
