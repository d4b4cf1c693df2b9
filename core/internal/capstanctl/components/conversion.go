package components

import (
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// ConversionWebhookPath is where a manager serves conversions (capstan.dev/contracts/conversionwebhook).
const ConversionWebhookPath = "/convert"

// SetConversionURL points every CRD in objs whose conversion webhook is the Service in namespace
// (a provider's manager Service) at url instead, in place, and returns how many it changed. It is
// for `capstanctl init --dev`, whose managers are local processes the API server calls on a
// loopback URL: applying the CRDs with the URL the manager itself configures means a re-apply
// changes nothing that serves v1beta1 (the manager owns only the CA bundle).
func SetConversionURL(objs []*unstructured.Unstructured, namespace, url string) (int, error) {
	changed := 0
	for _, o := range objs {
		if o.GetKind() != "CustomResourceDefinition" {
			continue
		}
		path := []string{"spec", "conversion", "webhook", "clientConfig"}
		cfg, found, err := unstructured.NestedMap(o.Object, path...)
		if err != nil {
			return changed, fmt.Errorf("CustomResourceDefinition %s: %w", o.GetName(), err)
		}
		svc, ok := cfg["service"].(map[string]any)
		if !found || !ok || svc["namespace"] != namespace {
			continue
		}
		delete(cfg, "service")
		cfg["url"] = url
		if err := unstructured.SetNestedMap(o.Object, cfg, path...); err != nil {
			return changed, fmt.Errorf("CustomResourceDefinition %s: %w", o.GetName(), err)
		}
		changed++
	}
	return changed, nil
}

// ConversionCRDs returns the names of the CRDs in objs that are converted by a webhook.
func ConversionCRDs(objs []*unstructured.Unstructured) []string {
	var names []string
	for _, o := range objs {
		strategy, _, _ := unstructured.NestedString(o.Object, "spec", "conversion", "strategy")
		if o.GetKind() == "CustomResourceDefinition" && strategy == "Webhook" {
			names = append(names, o.GetName())
		}
	}
	return names
}
