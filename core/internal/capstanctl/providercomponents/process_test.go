package providercomponents

import (
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

const webhookProvider = `apiVersion: v1
kind: Namespace
metadata: {name: old-system}
---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: things.example.dev
  annotations: {cert-manager.io/inject-ca-from: old-system/serving-cert}
spec:
  conversion:
    strategy: Webhook
    webhook: {clientConfig: {service: {name: webhook, namespace: old-system}}}
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfiguration
metadata: {name: ${PREFIX:=x}-mutating}
webhooks:
- name: m.example.dev
  clientConfig: {service: {name: webhook, namespace: old-system}}
---
apiVersion: cert-manager.io/v1
kind: Certificate
metadata: {name: serving-cert, namespace: old-system}
spec: {dnsNames: [webhook.old-system.svc]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: manager}
subjects: [{kind: ServiceAccount, name: manager, namespace: old-system}, {kind: Group, name: everyone}]
`

func TestProcess_MovesEveryReferenceIntoTheTargetNamespace(t *testing.T) {
	p := Provider{Label: "infrastructure-example", Name: "example", Type: "InfrastructureProvider", Version: "v0.1.0"}
	c, err := Process(p, []byte(webhookProvider), func(string) (string, bool) { return "", false }, "new-ns")
	require.NoError(t, err)
	require.Equal(t, "new-ns", c.Namespace)
	byKind := map[string]*unstructured.Unstructured{}
	for _, o := range c.Objects {
		byKind[o.GetKind()] = o
		require.Equal(t, "infrastructure-example", o.GetLabels()["cluster.x-k8s.io/provider"])
	}
	require.Equal(t, "new-ns", byKind["Namespace"].GetName())
	require.Equal(t, "x-mutating", byKind["MutatingWebhookConfiguration"].GetName())
	crd := byKind["CustomResourceDefinition"]
	require.Equal(t, "new-ns/serving-cert", crd.GetAnnotations()["cert-manager.io/inject-ca-from"])
	ns, _, _ := unstructured.NestedString(crd.Object, "spec", "conversion", "webhook", "clientConfig", "service", "namespace")
	require.Equal(t, "new-ns", ns)
	hooks, _, _ := unstructured.NestedSlice(byKind["MutatingWebhookConfiguration"].Object, "webhooks")
	ns, _, _ = unstructured.NestedString(hooks[0].(map[string]any), "clientConfig", "service", "namespace")
	require.Equal(t, "new-ns", ns)
	require.Equal(t, "new-ns", byKind["Certificate"].GetNamespace())
	dns, _, _ := unstructured.NestedStringSlice(byKind["Certificate"].Object, "spec", "dnsNames")
	require.Equal(t, []string{"webhook.new-ns.svc"}, dns)
	subjects, _, _ := unstructured.NestedSlice(byKind["ClusterRoleBinding"].Object, "subjects")
	require.Equal(t, "new-ns", subjects[0].(map[string]any)["namespace"])
	require.NotContains(t, subjects[1].(map[string]any), "namespace", "a subject without a namespace keeps none")
	require.Equal(t, "", byKind["ClusterRoleBinding"].GetNamespace())
	require.Equal(t, []string{"CustomResourceDefinition things.example.dev", "Certificate new-ns/serving-cert"},
		CertManagerUsers(c.Objects), "the webhook configuration asks for no CA injection")
	require.Equal(t, "new-ns", c.Inventory.GetNamespace())
}

func TestProcess_RefusesWhatCannotNameATargetNamespace(t *testing.T) {
	p := Provider{Label: "infrastructure-example", Version: "v0.1.0"}
	none := func(string) (string, bool) { return "", false }
	_, err := Process(p, []byte("apiVersion: v1\nkind: ServiceAccount\nmetadata: {name: a, namespace: x}\n"), none, "")
	require.ErrorContains(t, err, "hold no Namespace object to name the target namespace: choose one with --target-namespace")
	_, err = Process(p, []byte("apiVersion: v1\nkind: Namespace\nmetadata: {name: a}\n---\napiVersion: v1\nkind: Namespace\nmetadata: {name: b}\n"), none, "")
	require.ErrorContains(t, err, "hold 2 Namespace objects (a, b)")
	_, err = Process(p, []byte("apiVersion: v1\nkind: Namespace\nmetadata: {name: ${A}-${B}}\n"), none, "")
	require.EqualError(t, err, "infrastructure-example v0.1.0 needs variables A, B, which neither the environment nor the configuration file sets: "+
		"set them (e.g. export A=...) or add them to the configuration file; 'capstanctl init --list-variables' lists every variable")
}

func TestProcess_AddsTheNamespaceObjectWhenMissing(t *testing.T) {
	p := Provider{Label: "infrastructure-example", Version: "v0.1.0"}
	c, err := Process(p, []byte("apiVersion: v1\nkind: ServiceAccount\nmetadata: {name: a, namespace: x}\n"),
		func(string) (string, bool) { return "", false }, "target")
	require.NoError(t, err)
	require.Equal(t, "Namespace", c.Objects[0].GetKind())
	require.Equal(t, "target", c.Objects[0].GetName())
	require.Equal(t, "target", c.Objects[1].GetNamespace())
}
