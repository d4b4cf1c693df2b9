package move

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
)

// clusterGroupKind is the Cluster: paused through spec.paused, copied first, deleted last.
var clusterGroupKind = schema.GroupKind{Group: clusterv1.GroupVersion.Group, Kind: "Cluster"}

func isCluster(o *unstructured.Unstructured) bool {
	return o.GroupVersionKind().GroupKind() == clusterGroupKind
}

// describe names an object for messages: "Kind namespace/name".
func describe(o *unstructured.Unstructured) string {
	return o.GetKind() + " " + o.GetNamespace() + "/" + o.GetName()
}

// Order sorts objs so that every object comes after the objects of objs that own it
// (ownerReferences matched by UID). References to objects outside objs do not order
// anything. Objects without an owner in objs come first, then their dependents, level by
// level; within a level Clusters come first, then by kind and name, so the order is the
// same on every run. Ownership forming a cycle is an error naming the objects involved.
func Order(objs []*unstructured.Unstructured) ([]*unstructured.Unstructured, error) {
	index := make(map[types.UID]int, len(objs))
	for i, o := range objs {
		index[o.GetUID()] = i
	}
	owners := make([]int, len(objs)) // owners in objs not placed yet
	dependents := make([][]int, len(objs))
	for i, o := range objs {
		seen := map[types.UID]bool{}
		for _, ref := range o.GetOwnerReferences() {
			j, ok := index[ref.UID]
			if !ok || seen[ref.UID] {
				continue
			}
			seen[ref.UID] = true
			owners[i]++
			dependents[j] = append(dependents[j], i)
		}
	}
	var level []int
	for i := range objs {
		if owners[i] == 0 {
			level = append(level, i)
		}
	}
	out := make([]*unstructured.Unstructured, 0, len(objs))
	for len(level) > 0 {
		slices.SortFunc(level, func(a, b int) int { return compareObjects(objs[a], objs[b]) })
		var next []int
		for _, i := range level {
			out = append(out, objs[i])
			for _, d := range dependents[i] {
				if owners[d]--; owners[d] == 0 {
					next = append(next, d)
				}
			}
		}
		level = next
	}
	if len(out) < len(objs) {
		var stuck []string
		for i, o := range objs {
			if owners[i] > 0 {
				stuck = append(stuck, describe(o))
			}
		}
		slices.Sort(stuck)
		return nil, fmt.Errorf("the ownerReferences of these objects form a cycle (or hang off one), so no owner-first order exists: %s; "+
			"remove the offending ownerReference, then move again", strings.Join(stuck, ", "))
	}
	return out, nil
}

func compareObjects(a, b *unstructured.Unstructured) int {
	if ca, cb := isCluster(a), isCluster(b); ca != cb {
		if ca {
			return -1
		}
		return 1
	}
	ga, gb := a.GroupVersionKind().GroupKind(), b.GroupVersionKind().GroupKind()
	return cmp.Or(cmp.Compare(ga.Kind, gb.Kind), cmp.Compare(ga.Group, gb.Group), cmp.Compare(a.GetName(), b.GetName()))
}

// Attached returns the candidates (the namespace's Secrets and ConfigMaps) that move
// with moved: those owned by an object of moved, directly or through other attached
// candidates (a Secret owned by a Secret owned by a KubeadmConfig), and those whose
// cluster-name label names a Cluster of moved (the cluster certificates and kubeconfig,
// which must move or the target's bootstrap provider would issue new ones).
func Attached(moved, candidates []*unstructured.Unstructured) []*unstructured.Unstructured {
	owners := map[types.UID]bool{}
	clusters := map[string]bool{}
	for _, o := range moved {
		owners[o.GetUID()] = true
		if isCluster(o) {
			clusters[o.GetName()] = true
		}
	}
	picked := make([]bool, len(candidates))
	for changed := true; changed; {
		changed = false
		for i, c := range candidates {
			if picked[i] || !(clusters[c.GetLabels()[clusterv1.ClusterNameLabel]] || ownedByAny(c, owners)) {
				continue
			}
			picked[i], changed = true, true
			owners[c.GetUID()] = true
		}
	}
	var out []*unstructured.Unstructured
	for i, c := range candidates {
		if picked[i] {
			out = append(out, c)
		}
	}
	return out
}

func ownedByAny(o *unstructured.Unstructured, owners map[types.UID]bool) bool {
	return slices.ContainsFunc(o.GetOwnerReferences(), func(r metav1.OwnerReference) bool { return owners[r.UID] })
}

// serverFields are the metadata fields the API server owns; a copy must not send them.
var serverFields = []string{"uid", "resourceVersion", "creationTimestamp", "generation", "managedFields",
	"deletionTimestamp", "deletionGracePeriodSeconds", "selfLink"}

// CopyOf returns what to create in the target for src: src without the fields the
// server owns and without owner references (the caller sets them through
// TargetOwnerRefs), marked with MovedFromUIDAnnotation. Labels, annotations,
// finalizers, spec, data and status are kept.
func CopyOf(src *unstructured.Unstructured) *unstructured.Unstructured {
	c := src.DeepCopy()
	for _, f := range serverFields {
		unstructured.RemoveNestedField(c.Object, "metadata", f)
	}
	c.SetOwnerReferences(nil)
	annotations := c.GetAnnotations()
	if annotations == nil {
		annotations = map[string]string{}
	}
	annotations[MovedFromUIDAnnotation] = string(src.GetUID())
	c.SetAnnotations(annotations)
	return c
}

// TargetOwnerRefs returns refs for a copy in the target: each reference to a moved
// object (moved holds the source UIDs) points at the UID of that object's copy
// (copies maps source UID to target UID), everything else in the reference kept.
//
// A reference to an object that does not move is dropped: no object has its UID in the
// target, and the target's garbage collector deletes an object all of whose owners are
// absent, so keeping it would have the copy deleted soon after the move.
func TargetOwnerRefs(refs []metav1.OwnerReference, moved map[types.UID]bool, copies map[types.UID]types.UID) ([]metav1.OwnerReference, error) {
	var out []metav1.OwnerReference
	for _, ref := range refs {
		if !moved[ref.UID] {
			continue
		}
		uid, ok := copies[ref.UID]
		if !ok {
			return nil, fmt.Errorf("owner %s %s is not copied yet: objects must be copied owners first", ref.Kind, ref.Name)
		}
		ref.UID = uid
		out = append(out, ref)
	}
	return out, nil
}

// CountByKind counts objs by kind, kinds sorted: "Cluster 1, DockerCluster 1, Secret 6".
func CountByKind(objs []*unstructured.Unstructured) string {
	counts := map[string]int{}
	for _, o := range objs {
		counts[o.GetKind()]++
	}
	parts := make([]string, 0, len(counts))
	for _, kind := range slices.Sorted(maps.Keys(counts)) {
		parts = append(parts, fmt.Sprintf("%s %d", kind, counts[kind]))
	}
	return strings.Join(parts, ", ")
}

// plural is "1 object", "2 objects".
func plural(n int, noun string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, noun)
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
