package release

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// canonical returns ref with the registry and namespace a container runtime assumes for a
// short name (capstan/core-manager:v0.1.0 is docker.io/capstan/core-manager:v0.1.0): upstream
// clusterctl refuses components whose images are not canonical ("repository name must be
// canonical"), and a runtime pulls or finds the same image under either name.
func canonical(ref string) string {
	first, _, hasSlash := strings.Cut(ref, "/")
	if hasSlash && (strings.ContainsAny(first, ".:") || first == "localhost") {
		return ref // names its registry already
	}
	if !hasSlash {
		return "docker.io/library/" + ref
	}
	return "docker.io/" + ref
}

// canonicalImages rewrites every container image of every Deployment in objs to its canonical
// name, in place.
func canonicalImages(objs []*unstructured.Unstructured) error {
	for _, o := range objs {
		if o.GetKind() != "Deployment" {
			continue
		}
		for _, field := range []string{"initContainers", "containers"} {
			path := []string{"spec", "template", "spec", field}
			containers, found, err := unstructured.NestedSlice(o.Object, path...)
			if err != nil {
				return fmt.Errorf("Deployment %s: %w", o.GetName(), err)
			}
			for i, c := range containers {
				m, ok := c.(map[string]any)
				if !ok {
					return fmt.Errorf("Deployment %s: %s[%d] is not an object", o.GetName(), field, i)
				}
				if image, ok := m["image"].(string); ok {
					m["image"] = canonical(image)
				}
			}
			if found {
				if err := unstructured.SetNestedSlice(o.Object, containers, path...); err != nil {
					return fmt.Errorf("Deployment %s: %w", o.GetName(), err)
				}
			}
		}
	}
	return nil
}
