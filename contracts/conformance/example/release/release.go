package release

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"

	"capstan.dev/contracts/conformance/example"
)

const (
	// ProviderLabel is the provider's directory in a clusterctl repository (type prefix + name).
	ProviderLabel = "infrastructure-example"
	// Namespace is where the components run (clusterctl's --target-namespace may change it).
	Namespace = "example-system"
	// ImageRepository is the manager image; each release runs the tag of its version.
	ImageRepository = "capstan/example-manager"
	// WebhookService fronts the conversion webhook of v0.2.0.
	WebhookService = "example-webhook-service"
	// Deployment is the manager's Deployment.
	Deployment     = "example-controller-manager"
	serviceAccount = "example-manager"
	webhookPort    = 9443
)

// Versions are the example's releases, oldest first.
var Versions = []string{"v0.1.0", "v0.2.0"}

// withConversion says whether a release stores v1alpha2 and converts v1alpha1 by webhook.
func withConversion(version string) bool { return version != "v0.1.0" }

// Write writes release version into <dir>/infrastructure-example/<version>/.
func Write(dir, version string) error {
	if !slices.Contains(Versions, version) {
		return fmt.Errorf("the example provider has no release %q (it has %s)", version, strings.Join(Versions, ", "))
	}
	comps, err := Components(version)
	if err != nil {
		return err
	}
	out := filepath.Join(dir, ProviderLabel, version)
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	for name, data := range map[string][]byte{
		"infrastructure-components.yaml": comps,
		"metadata.yaml":                  Metadata(version),
		"cluster-template.yaml":          []byte(clusterTemplate),
	} {
		if err := os.WriteFile(filepath.Join(out, name), data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// Metadata is the release's metadata.yaml: every release series up to this one, each serving
// the v1beta2 contract (clusterctl's upgrade looks the current version's series up in it).
func Metadata(version string) []byte {
	var b strings.Builder
	b.WriteString("apiVersion: clusterctl.cluster.x-k8s.io/v1alpha3\nkind: Metadata\nreleaseSeries:\n")
	for _, v := range Versions[:slices.Index(Versions, version)+1] {
		var major, minor int
		fmt.Sscanf(v, "v%d.%d.", &major, &minor)
		fmt.Fprintf(&b, "- major: %d\n  minor: %d\n  contract: v1beta2\n", major, minor)
	}
	return []byte(b.String())
}

// Components is the release's infrastructure-components.yaml: namespace, CRDs, RBAC, the
// manager's Deployment and, from v0.2.0, the webhook Service.
func Components(version string) ([]byte, error) {
	crds, err := crds(version)
	if err != nil {
		return nil, err
	}
	rbac, err := rbacObjects()
	if err != nil {
		return nil, err
	}
	objs := []map[string]any{{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": Namespace}}}
	objs = append(objs, crds...)
	objs = append(objs, rbac...)
	objs = append(objs, deployment(version))
	if withConversion(version) {
		objs = append(objs, service())
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "# The example infrastructure provider %s (capstan.dev/contracts/conformance/example).\n", version)
	for _, o := range objs {
		data, err := yaml.Marshal(o)
		if err != nil {
			return nil, err
		}
		b.WriteString("---\n")
		b.Write(data)
	}
	return b.Bytes(), nil
}

// crds are the infrastructure CRDs of the release; v0.2.0's name the conversion webhook
// (strategy, Service, path), leaving only caBundle to the manager.
func crds(version string) ([]map[string]any, error) {
	dir, prefix := "config/crd/bases", "infrastructure."
	if withConversion(version) {
		dir = "config/crd/v1alpha2"
	}
	entries, err := fs.ReadDir(example.Config, dir)
	if err != nil {
		return nil, err
	}
	var out []map[string]any
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), prefix) {
			continue
		}
		docs, err := readDocs(path.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		for _, crd := range docs {
			if withConversion(version) {
				crd["spec"].(map[string]any)["conversion"] = map[string]any{
					"strategy": "Webhook",
					"webhook": map[string]any{
						"conversionReviewVersions": []any{"v1"},
						"clientConfig": map[string]any{"service": map[string]any{
							"namespace": Namespace, "name": WebhookService, "path": "/convert", "port": int64(443),
						}},
					},
				}
			}
			out = append(out, crd)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no CRDs in %s: run make generate", dir)
	}
	return out, nil
}

// rbacObjects are config/rbac's roles (from the controllers' markers) with the ServiceAccount
// and a binding for each.
func rbacObjects() ([]map[string]any, error) {
	roles, err := readDocs("config/rbac/role.yaml")
	if err != nil {
		return nil, err
	}
	subject := map[string]any{"kind": "ServiceAccount", "name": serviceAccount, "namespace": Namespace}
	out := []map[string]any{{"apiVersion": "v1", "kind": "ServiceAccount", "metadata": map[string]any{"name": serviceAccount, "namespace": Namespace}}}
	// The core creates, reads and deletes the provider's objects (clones of its templates): its
	// role aggregates every ClusterRole labelled so, as upstream's does.
	out = append(out, map[string]any{
		"apiVersion": "rbac.authorization.k8s.io/v1",
		"kind":       "ClusterRole",
		"metadata": map[string]any{"name": "example-aggregated-core-role",
			"labels": map[string]any{"cluster.x-k8s.io/aggregate-to-manager": "true"}},
		"rules": []any{map[string]any{
			"apiGroups": []any{"infrastructure.example.capstan.dev"},
			"resources": []any{"exampleclusters", "examplemachines", "examplemachinetemplates"},
			"verbs":     []any{"get", "list", "watch", "create", "update", "patch", "delete"},
		}},
	})
	for _, r := range roles {
		u := unstructured.Unstructured{Object: r}
		binding := map[string]any{
			"apiVersion": "rbac.authorization.k8s.io/v1",
			"kind":       "ClusterRoleBinding",
			"metadata":   map[string]any{"name": u.GetName()},
			"roleRef":    map[string]any{"apiGroup": "rbac.authorization.k8s.io", "kind": u.GetKind(), "name": u.GetName()},
			"subjects":   []any{subject},
		}
		if u.GetKind() == "Role" {
			u.SetNamespace(Namespace)
			binding["kind"] = "RoleBinding"
			binding["metadata"] = map[string]any{"name": u.GetName(), "namespace": Namespace}
		}
		out = append(out, u.Object, binding)
	}
	return out, nil
}

// readDocs reads the YAML documents of an embedded file.
func readDocs(name string) ([]map[string]any, error) {
	data, err := example.Config.ReadFile(name)
	if err != nil {
		return nil, err
	}
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	var out []map[string]any
	for {
		var obj map[string]any
		if err := dec.Decode(&obj); err != nil {
			if errors.Is(err, io.EOF) {
				return out, nil
			}
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		if len(obj) > 0 {
			out = append(out, obj)
		}
	}
}
