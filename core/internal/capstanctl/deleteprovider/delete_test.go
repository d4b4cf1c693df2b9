package deleteprovider

import (
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"capstan.dev/core/internal/capstanctl/inventory"
)

func obj(apiVersion, kind, namespace, name string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetAPIVersion(apiVersion)
	u.SetKind(kind)
	u.SetNamespace(namespace)
	u.SetName(name)
	return u
}

func names(objs []*unstructured.Unstructured) []string {
	var out []string
	for _, o := range objs {
		out = append(out, o.GetKind()+" "+o.GetName())
	}
	return out
}

func TestSelectObjects_KeepsCRDsAndNamespaceUnlessAskedAndDeletesTheInventoryLast(t *testing.T) {
	p := inventory.Entry{Label: "infrastructure-example", Namespace: "example-system"}
	found := []*unstructured.Unstructured{
		obj("clusterctl.cluster.x-k8s.io/v1alpha3", "Provider", "example-system", "infrastructure-example"),
		obj("v1", "Namespace", "", "example-system"),
		obj("v1", "Namespace", "", "other"),
		obj("apiextensions.k8s.io/v1", "CustomResourceDefinition", "", "things.example.dev"),
		obj("rbac.authorization.k8s.io/v1", "ClusterRole", "", "manager"),
		obj("apps/v1", "Deployment", "example-system", "manager"),
	}
	require.Equal(t, []string{"Deployment manager", "ClusterRole manager", "Provider infrastructure-example"},
		names(selectObjects(found, p, Options{})))
	require.Equal(t, []string{"ClusterRole manager", "CustomResourceDefinition things.example.dev", "Namespace example-system"},
		names(selectObjects(found, p, Options{IncludeCRD: true, IncludeNamespace: true})),
		"the namespace's deletion removes what is in it, the inventory entry too")
}
