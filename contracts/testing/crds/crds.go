// Package crds holds generic provider CRDs for tests, so core tests need no real
// provider: an InfraCluster(+Template), InfraMachine(+Template), BootstrapConfig(+Template) and
// ControlPlane (+Template) and an external remediation request (+Template) whose spec and status
// accept any fields, all declaring contract v1beta2, plus GenericLegacyInfrastructureMachine (contract v1beta1 only) and
// GenericMultiVersionInfrastructureMachine (two CRD versions under one label) and
// GenericImmutableInfrastructureMachineTemplate (spec.template.spec immutable, as real providers').
//
// It owns only these manifests and their names. It must not grow provider logic or
// typed Go structs: tests read and write these objects through
// capstan.dev/contracts/contract accessors, exactly as the core does for real
// providers.
package crds

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"sort"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
)

//go:embed *.yaml
var manifests embed.FS

// The groups and version the generic kinds are served in.
var (
	InfrastructureGroupVersion = schema.GroupVersion{Group: "infrastructure.cluster.x-k8s.io", Version: "v1beta2"}
	BootstrapGroupVersion      = schema.GroupVersion{Group: "bootstrap.cluster.x-k8s.io", Version: "v1beta2"}
	ControlPlaneGroupVersion   = schema.GroupVersion{Group: "controlplane.cluster.x-k8s.io", Version: "v1beta2"}
)

// The generic kinds, at the version tests should create them in.
var (
	GenericInfrastructureClusterGVK         = InfrastructureGroupVersion.WithKind("GenericInfrastructureCluster")
	GenericInfrastructureMachineGVK         = InfrastructureGroupVersion.WithKind("GenericInfrastructureMachine")
	GenericInfrastructureMachineTemplateGVK = InfrastructureGroupVersion.WithKind("GenericInfrastructureMachineTemplate")
	GenericBootstrapConfigGVK               = BootstrapGroupVersion.WithKind("GenericBootstrapConfig")
	GenericBootstrapConfigTemplateGVK       = BootstrapGroupVersion.WithKind("GenericBootstrapConfigTemplate")
	GenericControlPlaneGVK                  = ControlPlaneGroupVersion.WithKind("GenericControlPlane")
	// GenericInfrastructureClusterTemplateGVK and GenericControlPlaneTemplateGVK are the
	// templates a ClusterClass references; the topology generates a GenericInfrastructureCluster
	// and a GenericControlPlane from them.
	GenericInfrastructureClusterTemplateGVK = InfrastructureGroupVersion.WithKind("GenericInfrastructureClusterTemplate")
	GenericControlPlaneTemplateGVK          = ControlPlaneGroupVersion.WithKind("GenericControlPlaneTemplate")
	// GenericRemediationTemplateGVK is an external remediation template (a
	// MachineHealthCheck's remediation.templateRef); GenericRemediationGVK is the
	// remediation request cloned from it.
	GenericRemediationTemplateGVK = InfrastructureGroupVersion.WithKind("GenericRemediationTemplate")
	GenericRemediationGVK         = InfrastructureGroupVersion.WithKind("GenericRemediation")
	// GenericLegacyInfrastructureMachineGVK declares contract v1beta1 only and is
	// served at v1beta1.
	GenericLegacyInfrastructureMachineGVK = schema.GroupVersionKind{
		Group: "infrastructure.cluster.x-k8s.io", Version: "v1beta1", Kind: "GenericLegacyInfrastructureMachine"}
	// GenericMultiVersionInfrastructureMachineGVK is served at v1beta1 and v1beta2,
	// labelled cluster.x-k8s.io/v1beta2: v1beta1_v1beta2.
	GenericMultiVersionInfrastructureMachineGVK = InfrastructureGroupVersion.WithKind("GenericMultiVersionInfrastructureMachine")
	// GenericImmutableInfrastructureMachineTemplateGVK is a machine template whose
	// spec.template.spec cannot change once created (a CEL rule refuses it, dry runs too).
	GenericImmutableInfrastructureMachineTemplateGVK = InfrastructureGroupVersion.WithKind("GenericImmutableInfrastructureMachineTemplate")
)

// New returns an empty object of a generic kind, named in namespace, ready for a
// client Create after the test fills spec and status.
func New(gvk schema.GroupVersionKind, namespace, name string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(gvk)
	u.SetNamespace(namespace)
	u.SetName(name)
	return u
}

// Ref references a generic object by kind and name, as a Cluster or Machine does.
// A Cluster must reference something (or have a topology) to be admitted, so tests
// whose Cluster needs no provider give it Ref(GenericInfrastructureClusterGVK, name):
// only the Cluster controller follows it.
func Ref(gvk schema.GroupVersionKind, name string) clusterv1.ContractVersionedObjectReference {
	return clusterv1.ContractVersionedObjectReference{APIGroup: gvk.Group, Kind: gvk.Kind, Name: name}
}

// All returns fresh copies of every generic CRD, sorted by name, for
// envtest.Options.CRDs. The manifests are embedded and checked by this package's
// tests, so a decoding failure is a build defect and panics.
func All() []*apiextensionsv1.CustomResourceDefinition {
	out, err := decode(manifests)
	if err != nil {
		panic(fmt.Sprintf("capstan.dev/contracts/testing/crds: embedded manifests are broken: %v", err))
	}
	return out
}

func decode(fsys fs.FS) ([]*apiextensionsv1.CustomResourceDefinition, error) {
	files, err := fs.Glob(fsys, "*.yaml")
	if err != nil {
		return nil, err
	}
	var out []*apiextensionsv1.CustomResourceDefinition
	for _, file := range files {
		data, err := fs.ReadFile(fsys, file)
		if err != nil {
			return nil, err
		}
		dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
		for {
			crd := &apiextensionsv1.CustomResourceDefinition{}
			if err := dec.Decode(crd); err != nil {
				if errors.Is(err, io.EOF) {
					break
				}
				return nil, fmt.Errorf("decoding %s: %w", path.Base(file), err)
			}
			if crd.Kind == "" && crd.Name == "" { // an empty YAML document
				continue
			}
			if crd.Kind != "CustomResourceDefinition" {
				return nil, fmt.Errorf("%s holds a %q, not a CustomResourceDefinition", file, crd.Kind)
			}
			out = append(out, crd)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}
