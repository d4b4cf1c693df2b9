package providercomponents

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// clusterScoped are the cluster-scoped kinds components hold; every other kind is taken to be
// namespaced, as clusterctl does (it keeps a list like this one rather than asking a cluster,
// because the components' own CRDs are not installed yet).
var clusterScoped = map[string]bool{
	"Namespace": true, "CustomResourceDefinition": true, "ClusterRole": true, "ClusterRoleBinding": true,
	"ValidatingWebhookConfiguration": true, "MutatingWebhookConfiguration": true,
	"ValidatingAdmissionPolicy": true, "ValidatingAdmissionPolicyBinding": true,
	"MutatingAdmissionPolicy": true, "MutatingAdmissionPolicyBinding": true,
	"PriorityClass": true, "StorageClass": true, "APIService": true, "ClusterIssuer": true,
	"PersistentVolume": true, "IngressClass": true, "RuntimeClass": true, "CSIDriver": true,
}

// injectCAFrom is cert-manager's annotation naming the Certificate whose CA it injects.
const injectCAFrom = "cert-manager.io/inject-ca-from"

// moveTo puts every namespaced object into ns and rewrites the references to the old
// namespace clusterctl rewrites: RBAC subjects, webhook and conversion services, cert-manager's
// CA injection and Certificates' DNS names.
func moveTo(objs []*unstructured.Unstructured, ns string) error {
	for _, o := range objs {
		if isNamespace(o) {
			o.SetName(ns)
			continue
		}
		original := o.GetNamespace()
		if !clusterScoped[o.GetKind()] {
			o.SetNamespace(ns)
		}
		what := o.GetKind() + " " + o.GetName()
		var err error
		switch o.GetKind() {
		case "ClusterRoleBinding", "RoleBinding":
			err = fixSubjects(o, ns)
		case "ValidatingWebhookConfiguration", "MutatingWebhookConfiguration":
			if err = fixInjectCA(o, ns); err == nil {
				err = fixWebhooks(o, ns)
			}
		case "CustomResourceDefinition":
			if err = fixInjectCA(o, ns); err == nil {
				err = setIfPresent(o, ns, "spec", "conversion", "webhook", "clientConfig", "service")
			}
		case "Certificate":
			if o.GroupVersionKind().Group == "cert-manager.io" {
				err = fixDNSNames(o, original, ns)
			}
		}
		if err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
	}
	return nil
}

func fixSubjects(o *unstructured.Unstructured, ns string) error {
	subjects, found, err := unstructured.NestedSlice(o.Object, "subjects")
	if err != nil || !found {
		return err
	}
	for i, s := range subjects {
		m, ok := s.(map[string]any)
		if !ok {
			return fmt.Errorf("subjects[%d] is not an object", i)
		}
		if n, _ := m["namespace"].(string); n != "" {
			m["namespace"] = ns
		}
	}
	return unstructured.SetNestedSlice(o.Object, subjects, "subjects")
}

func fixWebhooks(o *unstructured.Unstructured, ns string) error {
	hooks, found, err := unstructured.NestedSlice(o.Object, "webhooks")
	if err != nil || !found {
		return err
	}
	for i, h := range hooks {
		m, ok := h.(map[string]any)
		if !ok {
			return fmt.Errorf("webhooks[%d] is not an object", i)
		}
		if svc, ok, _ := unstructured.NestedMap(m, "clientConfig", "service"); ok {
			svc["namespace"] = ns
			if err := unstructured.SetNestedMap(m, svc, "clientConfig", "service"); err != nil {
				return err
			}
		}
	}
	return unstructured.SetNestedSlice(o.Object, hooks, "webhooks")
}

// setIfPresent sets the namespace of the service reference at path, when there is one.
func setIfPresent(o *unstructured.Unstructured, ns string, path ...string) error {
	svc, found, err := unstructured.NestedMap(o.Object, path...)
	if err != nil || !found {
		return err
	}
	svc["namespace"] = ns
	return unstructured.SetNestedMap(o.Object, svc, path...)
}

func fixInjectCA(o *unstructured.Unstructured, ns string) error {
	a := o.GetAnnotations()
	from, ok := a[injectCAFrom]
	if !ok {
		return nil
	}
	parts := strings.Split(from, "/")
	if len(parts) != 2 {
		return fmt.Errorf("annotation %s is %q, and must be <namespace>/<certificate>", injectCAFrom, from)
	}
	a[injectCAFrom] = ns + "/" + parts[1]
	o.SetAnnotations(a)
	return nil
}

// fixDNSNames rewrites <service>.<old namespace>.svc names to the new namespace.
func fixDNSNames(o *unstructured.Unstructured, original, ns string) error {
	names, found, err := unstructured.NestedStringSlice(o.Object, "spec", "dnsNames")
	if err != nil || !found || original == "" {
		return err
	}
	for i, n := range names {
		names[i] = strings.Replace(n, "."+original+".", "."+ns+".", 1)
	}
	return unstructured.SetNestedStringSlice(o.Object, names, "spec", "dnsNames")
}

// CertManagerUsers names the objects that need cert-manager: its own kinds (Certificate,
// Issuer, ...) and objects asking it to inject a CA.
func CertManagerUsers(objs []*unstructured.Unstructured) []string {
	var out []string
	for _, o := range objs {
		_, inject := o.GetAnnotations()[injectCAFrom]
		if o.GroupVersionKind().Group == "cert-manager.io" || inject {
			name := o.GetName()
			if o.GetNamespace() != "" {
				name = o.GetNamespace() + "/" + name
			}
			out = append(out, o.GetKind()+" "+name)
		}
	}
	return out
}
