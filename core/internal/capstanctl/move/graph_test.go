package move

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
)

// obj builds an object of kind in namespace ns whose UID is "uid-<name>", owned by owners.
func obj(apiVersion, kind, name string, owners ...*unstructured.Unstructured) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetAPIVersion(apiVersion)
	u.SetKind(kind)
	u.SetNamespace("ns")
	u.SetName(name)
	u.SetUID(types.UID("uid-" + kind + "-" + name))
	var refs []metav1.OwnerReference
	for _, o := range owners {
		refs = append(refs, metav1.OwnerReference{APIVersion: o.GetAPIVersion(), Kind: o.GetKind(), Name: o.GetName(), UID: o.GetUID(),
			Controller: ptr.To(true)})
	}
	u.SetOwnerReferences(refs)
	return u
}

func names(objs []*unstructured.Unstructured) []string {
	out := make([]string, 0, len(objs))
	for _, o := range objs {
		out = append(out, o.GetKind()+"/"+o.GetName())
	}
	return out
}

const (
	core  = "cluster.x-k8s.io/v1beta2"
	infra = "infrastructure.cluster.x-k8s.io/v1beta2"
)

func TestOrder_PutsOwnersBeforeDependentsLevelByLevelClustersFirst(t *testing.T) {
	cluster := obj(core, "Cluster", "c")
	dc := obj(infra, "DockerCluster", "c", cluster)
	md := obj(core, "MachineDeployment", "md", cluster)
	ms := obj(core, "MachineSet", "md-1", md)
	m := obj(core, "Machine", "md-1-a", ms)
	dm := obj(infra, "DockerMachine", "md-1-a", m)
	tmpl := obj(infra, "DockerMachineTemplate", "workers") // no owner at all
	// Owned by both the Machine and the DockerMachine: must follow both.
	secret := obj("v1", "Secret", "data", dm, m)

	got, err := Order([]*unstructured.Unstructured{secret, dm, m, ms, md, tmpl, dc, cluster})
	require.NoError(t, err)
	want := []string{
		"Cluster/c", "DockerMachineTemplate/workers", // no owners in the graph: first, Cluster leading
		"DockerCluster/c", "MachineDeployment/md",
		"MachineSet/md-1",
		"Machine/md-1-a",
		"DockerMachine/md-1-a",
		"Secret/data",
	}
	require.Empty(t, cmp.Diff(want, names(got)))
}

func TestOrder_IgnoresOwnersOutsideTheObjects(t *testing.T) {
	foreign := obj(core, "Cluster", "elsewhere")
	m := obj(core, "Machine", "m", foreign)
	cluster := obj(core, "Cluster", "c")
	got, err := Order([]*unstructured.Unstructured{m, cluster})
	require.NoError(t, err)
	require.Equal(t, []string{"Cluster/c", "Machine/m"}, names(got), "a foreign owner neither blocks nor orders the Machine")
}

func TestOrder_CycleIsAnErrorNamingTheObjects(t *testing.T) {
	a := obj(core, "Machine", "a")
	b := obj(core, "Machine", "b", a)
	a.SetOwnerReferences([]metav1.OwnerReference{{APIVersion: core, Kind: "Machine", Name: "b", UID: b.GetUID()}})
	dependent := obj(infra, "DockerMachine", "b", b)
	free := obj(core, "Cluster", "c")

	_, err := Order([]*unstructured.Unstructured{a, b, dependent, free})
	require.ErrorContains(t, err, "form a cycle")
	require.ErrorContains(t, err, "DockerMachine ns/b, Machine ns/a, Machine ns/b")
	require.NotContains(t, err.Error(), "Cluster ns/c")

	self := obj(core, "Machine", "self")
	self.SetOwnerReferences([]metav1.OwnerReference{{APIVersion: core, Kind: "Machine", Name: "self", UID: self.GetUID()}})
	_, err = Order([]*unstructured.Unstructured{self})
	require.ErrorContains(t, err, "Machine ns/self", "an object owning itself is a cycle")
}

func TestAttached_SelectsOwnedTransitivelyAndClusterLabelledOnly(t *testing.T) {
	cluster := obj(core, "Cluster", "c")
	config := obj("bootstrap.cluster.x-k8s.io/v1beta2", "KubeadmConfig", "cfg", cluster)
	data := obj("v1", "Secret", "cfg", config)
	dataOfData := obj("v1", "Secret", "derived", data) // owned through another attached Secret
	kubeconfig := obj("v1", "Secret", "c-kubeconfig")
	kubeconfig.SetLabels(map[string]string{clusterv1.ClusterNameLabel: "c"})
	otherCluster := obj("v1", "Secret", "other-kubeconfig")
	otherCluster.SetLabels(map[string]string{clusterv1.ClusterNameLabel: "other"})
	unrelated := obj("v1", "Secret", "unrelated")
	cm := obj("v1", "ConfigMap", "addons", cluster)

	// dataOfData listed before its owner: selection must not depend on list order.
	got := Attached([]*unstructured.Unstructured{cluster, config},
		[]*unstructured.Unstructured{dataOfData, otherCluster, data, unrelated, kubeconfig, cm})
	require.Equal(t, []string{"Secret/derived", "Secret/cfg", "Secret/c-kubeconfig", "ConfigMap/addons"}, names(got))
}

func TestTargetOwnerRefs_RewritesMovedOwnersAndDropsForeignOnes(t *testing.T) {
	refs := []metav1.OwnerReference{
		{APIVersion: core, Kind: "Machine", Name: "m", UID: "src-m", Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true)},
		{APIVersion: "v1", Kind: "Node", Name: "n", UID: "foreign"},
	}
	got, err := TargetOwnerRefs(refs, map[types.UID]bool{"src-m": true}, map[types.UID]types.UID{"src-m": "dst-m"})
	require.NoError(t, err)
	require.Equal(t, []metav1.OwnerReference{
		{APIVersion: core, Kind: "Machine", Name: "m", UID: "dst-m", Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true)},
	}, got)

	_, err = TargetOwnerRefs(refs, map[types.UID]bool{"src-m": true}, map[types.UID]types.UID{})
	require.ErrorContains(t, err, "owner Machine m is not copied yet")
}

func TestCopyOf_StripsServerFieldsAndKeepsTheRest(t *testing.T) {
	src := obj(core, "Machine", "m", obj(core, "MachineSet", "ms"))
	src.SetResourceVersion("42")
	src.SetGeneration(3)
	src.SetCreationTimestamp(metav1.Now())
	src.SetDeletionTimestamp(ptr.To(metav1.Now()))
	src.SetManagedFields([]metav1.ManagedFieldsEntry{{Manager: "x"}})
	src.SetSelfLink("/x")
	src.SetLabels(map[string]string{"l": "v"})
	src.SetAnnotations(map[string]string{"a": "v"})
	src.SetFinalizers([]string{"machine.cluster.x-k8s.io"})
	src.Object["spec"] = map[string]any{"clusterName": "c"}
	src.Object["status"] = map[string]any{"phase": "Running"}

	got := CopyOf(src)
	require.Equal(t, map[string]any{
		"apiVersion": core, "kind": "Machine",
		"metadata": map[string]any{
			"namespace": "ns", "name": "m", "labels": map[string]any{"l": "v"},
			"annotations": map[string]any{"a": "v", MovedFromUIDAnnotation: "uid-Machine-m"},
			"finalizers":  []any{"machine.cluster.x-k8s.io"},
		},
		"spec":   map[string]any{"clusterName": "c"},
		"status": map[string]any{"phase": "Running"},
	}, got.Object)
	require.Equal(t, "42", src.GetResourceVersion(), "the source object is left as it was")
}

func TestDeletionOrder_ReversesTheCopyOrderWithClustersLast(t *testing.T) {
	c1, c2 := obj(core, "Cluster", "a"), obj(core, "Cluster", "b")
	tmpl := obj(infra, "DockerMachineTemplate", "t")
	m := obj(core, "Machine", "m", c1)
	dm := obj(infra, "DockerMachine", "m", m)
	got := DeletionOrder([]*unstructured.Unstructured{c1, c2, tmpl, m, dm})
	require.Equal(t, []string{"DockerMachine/m", "Machine/m", "DockerMachineTemplate/t", "Cluster/b", "Cluster/a"}, names(got))
}

func TestCountByKind_SortsKinds(t *testing.T) {
	objs := []*unstructured.Unstructured{obj("v1", "Secret", "a"), obj(core, "Cluster", "c"), obj("v1", "Secret", "b")}
	require.Equal(t, "Cluster 1, Secret 2", CountByKind(objs))
	require.Equal(t, "1 object", plural(1, "object"))
	require.Equal(t, "0 objects", plural(0, "object"))
}

func TestIsClusterAPIGroup(t *testing.T) {
	for group, want := range map[string]bool{
		"cluster.x-k8s.io": true, "infrastructure.cluster.x-k8s.io": true, "addons.cluster.x-k8s.io": true,
		"": false, "apps": false, "notcluster.x-k8s.io": false, "cluster.x-k8s.io.evil": false,
	} {
		require.Equal(t, want, IsClusterAPIGroup(group), group)
	}
}

// clusterctl's move discovers kinds by the clusterctl.cluster.x-k8s.io CRD label, so a provider
// outside cluster.x-k8s.io's groups moves when its CRDs carry it; inventory and cluster-scoped
// kinds never move.
func TestMovesKind_ClusterAPIGroupsAndClusterctlLabelledNamespacedCRDs(t *testing.T) {
	crd := func(group string, scope apiextensionsv1.ResourceScope, labels map[string]string) *apiextensionsv1.CustomResourceDefinition {
		return &apiextensionsv1.CustomResourceDefinition{
			ObjectMeta: metav1.ObjectMeta{Labels: labels},
			Spec:       apiextensionsv1.CustomResourceDefinitionSpec{Group: group, Scope: scope},
		}
	}
	owned := map[string]string{"clusterctl.cluster.x-k8s.io": ""}
	for name, tc := range map[string]struct {
		crd  *apiextensionsv1.CustomResourceDefinition
		want bool
	}{
		"core group":                   {crd("cluster.x-k8s.io", apiextensionsv1.NamespaceScoped, nil), true},
		"labelled third-party group":   {crd("infrastructure.example.com", apiextensionsv1.NamespaceScoped, owned), true},
		"unlabelled third-party group": {crd("infrastructure.example.com", apiextensionsv1.NamespaceScoped, nil), false},
		"labelled but cluster-scoped":  {crd("infrastructure.example.com", apiextensionsv1.ClusterScoped, owned), false},
		"clusterctl's inventory":       {crd("clusterctl.cluster.x-k8s.io", apiextensionsv1.NamespaceScoped, map[string]string{"clusterctl.cluster.x-k8s.io/core": "inventory"}), false},
	} {
		require.Equal(t, tc.want, MovesKind(tc.crd), name)
	}
}
