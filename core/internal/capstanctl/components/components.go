// Package components holds what `capstanctl init` installs: each provider's kustomize base
// (config/default) as `kustomize build` prints it, rendered by `make generate` into the YAML
// files beside this one (hack/tools/cmd/components writes them; a test there fails when they
// are stale), and embedded here because the core module cannot read other modules' files. It
// parses them, selects providers by name, orders objects for installation (namespaces, then
// CRDs, then everything else with RBAC before Deployments) and rewrites the manager image tag.
// It is pure: it never talks to a cluster, and it never edits the YAML files.
package components

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"

	"capstan.dev/contracts/image"
)

//go:embed core.yaml bootstrap-kubeadm.yaml infrastructure-docker.yaml
var files embed.FS

// Provider is one installable provider.
type Provider struct {
	// Name is what --providers takes: core, kubeadm or docker.
	Name string
	// Module is the provider's directory in the repository, the name of its components file
	// (<Module>.yaml) and of its manager binary (bin/<Module>).
	Module string
	// Namespace is where config/default deploys the provider and its leader-election Lease.
	Namespace string
	// LeaseName is the manager's leader-election Lease (its main.go's LeaderElectionID).
	LeaseName string
}

// All lists every provider in installation order: the core first, as clusterctl does.
var All = []Provider{
	{Name: "core", Module: "core", Namespace: "capstan-system", LeaseName: "capstan-core-leader-election"},
	{Name: "kubeadm", Module: "bootstrap-kubeadm", Namespace: "capstan-kubeadm-bootstrap-system",
		LeaseName: "capstan-kubeadm-bootstrap-leader-election"},
	{Name: "docker", Module: "infrastructure-docker", Namespace: "capstan-docker-system",
		LeaseName: "capstan-docker-infrastructure-leader-election"},
}

// Names are the provider names --providers accepts, in installation order.
func Names() []string {
	names := make([]string, 0, len(All))
	for _, p := range All {
		names = append(names, p.Name)
	}
	return names
}

// Select returns the named providers in installation order, whatever order names has.
// A provider may also be named by its module (bootstrap-kubeadm, infrastructure-docker) or
// clusterctl's name for the core (cluster-api); duplicates are ignored; an empty list or an
// unknown name is an error listing the valid ones.
func Select(names []string) ([]Provider, error) {
	want := map[string]bool{}
	for _, n := range names {
		n = strings.TrimSpace(n)
		if n == "" {
			continue
		}
		i := slices.IndexFunc(All, func(p Provider) bool {
			return p.Name == n || p.Module == n || (p.Name == "core" && n == "cluster-api")
		})
		if i < 0 {
			return nil, fmt.Errorf("unknown provider %q: choose from %s", n, strings.Join(Names(), ","))
		}
		want[All[i].Name] = true
	}
	if len(want) == 0 {
		return nil, fmt.Errorf("no provider selected: choose from %s", strings.Join(Names(), ","))
	}
	var out []Provider
	for _, p := range All {
		if want[p.Name] {
			out = append(out, p)
		}
	}
	return out, nil
}

// Raw returns the provider's components file, as `kustomize build <module>/config/default` prints it.
func (p Provider) Raw() ([]byte, error) {
	data, err := files.ReadFile(p.Module + ".yaml")
	if err != nil {
		return nil, fmt.Errorf("components of provider %s: %w", p.Name, err)
	}
	return data, nil
}

// Objects parses the provider's components file.
func (p Provider) Objects() ([]*unstructured.Unstructured, error) {
	data, err := p.Raw()
	if err != nil {
		return nil, err
	}
	objs, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("components of provider %s: %w", p.Name, err)
	}
	return objs, nil
}

// Parse decodes a multi-document YAML stream, skipping empty documents.
func Parse(data []byte) ([]*unstructured.Unstructured, error) {
	var objs []*unstructured.Unstructured
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	for {
		u := &unstructured.Unstructured{}
		err := dec.Decode(&u.Object)
		if errors.Is(err, io.EOF) {
			return objs, nil
		}
		if err != nil {
			return nil, fmt.Errorf("decoding document %d: %w", len(objs)+1, err)
		}
		if len(u.Object) == 0 {
			continue
		}
		if u.GetKind() == "" || u.GetAPIVersion() == "" || u.GetName() == "" {
			return nil, fmt.Errorf("document %d has no apiVersion, kind or name", len(objs)+1)
		}
		objs = append(objs, u)
	}
}

// Load parses the components of every provider in ps, in order.
func Load(ps []Provider) ([]*unstructured.Unstructured, error) {
	var all []*unstructured.Unstructured
	for _, p := range ps {
		objs, err := p.Objects()
		if err != nil {
			return nil, err
		}
		all = append(all, objs...)
	}
	return all, nil
}

// Plan is the installation order: each step is applied in full before the next starts.
type Plan struct {
	// Namespaces come first, so namespaced objects have somewhere to go.
	Namespaces []*unstructured.Unstructured
	// CRDs come next; the installer waits until they are Established.
	CRDs []*unstructured.Unstructured
	// Rest is everything else: ServiceAccounts, RBAC, then the Deployments.
	Rest []*unstructured.Unstructured
}

// PlanOptions change what a Plan holds.
type PlanOptions struct {
	// WithoutWorkloads leaves out the Deployments, for `capstanctl init --dev`, where the
	// managers run as local processes instead.
	WithoutWorkloads bool
}

// kindRank orders the Rest step: identities and permissions before the workloads that use them.
var kindRank = map[string]int{
	"ServiceAccount": 1, "ClusterRole": 2, "ClusterRoleBinding": 3, "Role": 4, "RoleBinding": 5,
	"ConfigMap": 6, "Secret": 6, "Service": 7, "Deployment": 9,
}

// workloadKinds are what --dev replaces with local processes: the Deployments and the Service
// in front of the core's conversion webhook (a local manager is called on a loopback URL).
var workloadKinds = map[string]bool{"Deployment": true, "Service": true}

// NewPlan sorts objs into installation steps. Within a step the order of objs is kept
// except that Rest is stably sorted by kind (unknown kinds before the Deployments).
func NewPlan(objs []*unstructured.Unstructured, opts PlanOptions) Plan {
	var p Plan
	for _, o := range objs {
		switch {
		case o.GetKind() == "Namespace" && o.GroupVersionKind().Group == "":
			p.Namespaces = append(p.Namespaces, o)
		case o.GetKind() == "CustomResourceDefinition" && o.GroupVersionKind().Group == "apiextensions.k8s.io":
			p.CRDs = append(p.CRDs, o)
		case opts.WithoutWorkloads && workloadKinds[o.GetKind()]:
		default:
			p.Rest = append(p.Rest, o)
		}
	}
	slices.SortStableFunc(p.Rest, func(a, b *unstructured.Unstructured) int {
		return rank(a.GetKind()) - rank(b.GetKind())
	})
	return p
}

func rank(kind string) int {
	if r, ok := kindRank[kind]; ok {
		return r
	}
	return 8
}

// All returns the plan's objects in installation order.
func (p Plan) All() []*unstructured.Unstructured {
	return slices.Concat(p.Namespaces, p.CRDs, p.Rest)
}

// tagPattern is Docker's grammar for a tag.
var tagPattern = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$`)

// SetImageTag rewrites the tag of every container image of every Deployment in objs to tag
// (capstan/core-manager:dev becomes capstan/core-manager:<tag>), in place.
func SetImageTag(objs []*unstructured.Unstructured, tag string) error {
	if !tagPattern.MatchString(tag) {
		return fmt.Errorf("invalid image tag %q: a tag is up to 128 letters, digits, '_', '.' and '-', not starting with '.' or '-'", tag)
	}
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
			if !found {
				continue
			}
			for i, c := range containers {
				m, ok := c.(map[string]any)
				if !ok {
					return fmt.Errorf("Deployment %s: %s[%d] is not an object", o.GetName(), field, i)
				}
				image, _ := m["image"].(string)
				m["image"] = WithTag(image, tag)
			}
			if err := unstructured.SetNestedSlice(o.Object, containers, path...); err != nil {
				return fmt.Errorf("Deployment %s: %w", o.GetName(), err)
			}
		}
	}
	return nil
}

// WithTag replaces or adds the tag of an image reference; a digest reference is kept as is.
func WithTag(ref, tag string) string {
	r := image.Parse(ref)
	if r.Digest != "" {
		return ref
	}
	r.Tag = tag
	return r.String()
}

// Images returns the images of the Deployments' init containers and containers in objs, in
// order: every image a node needs to run them (and a release archives).
func Images(objs []*unstructured.Unstructured) []string {
	var out []string
	for _, o := range objs {
		if o.GetKind() != "Deployment" {
			continue
		}
		for _, field := range []string{"initContainers", "containers"} {
			containers, _, _ := unstructured.NestedSlice(o.Object, "spec", "template", "spec", field)
			for _, c := range containers {
				if m, ok := c.(map[string]any); ok {
					if image, ok := m["image"].(string); ok {
						out = append(out, image)
					}
				}
			}
		}
	}
	return out
}
