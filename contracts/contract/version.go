package contract

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation"
	k8sversion "k8s.io/apimachinery/pkg/version"
)

// ContractVersion is a version of the provider contract ("v1beta2"). It selects
// which paths the accessors read, and is not the provider's CRD API version.
type ContractVersion string

const (
	// V1Beta2 is the contract this Capstan implements (status.initialization.*).
	V1Beta2 ContractVersion = "v1beta2"
	// V1Beta1 is the previous contract (status.ready and friends). The v1beta2 core
	// still accepts providers that only declare it, as upstream does until v1beta1
	// is retired.
	V1Beta1 ContractVersion = "v1beta1"
)

// LabelDomain prefixes the CRD labels that declare contract versions:
// "cluster.x-k8s.io/v1beta2: v1beta1_v1beta2".
const LabelDomain = "cluster.x-k8s.io"

// CompatibleContracts lists the contract versions the core accepts, newest first:
// discovery takes the first one a CRD declares.
func CompatibleContracts() []ContractVersion { return []ContractVersion{V1Beta2, V1Beta1} }

// Label is the CRD label key that declares this contract version.
func (v ContractVersion) Label() string { return LabelDomain + "/" + string(v) }

// Version is what discovery learns about a provider kind: the contract it
// implements and the newest CRD API version serving that contract.
type Version struct {
	// Contract selects the accessor paths, e.g. Provisioned(v.Contract).
	Contract ContractVersion
	// APIVersion is a CRD version name such as "v1beta2" (no group): the version
	// the core should use to read and reference objects of the kind.
	APIVersion string
}

// GroupVersionKind is the kind at the discovered API version.
func (v Version) GroupVersionKind(gk schema.GroupKind) schema.GroupVersionKind {
	return gk.WithVersion(v.APIVersion)
}

// VersionFromLabels picks the contract and API version from a CRD's labels: the
// newest compatible contract with a label wins, and within its underscore-separated
// value the newest version in Kubernetes order (v1 > v1beta2 > v1beta1 > v1alpha1).
// A present but malformed label is an error rather than a reason to fall back to an
// older contract: the provider meant to declare that contract and must be told.
func VersionFromLabels(crdName string, labels map[string]string) (Version, error) {
	for _, c := range CompatibleContracts() {
		value, ok := labels[c.Label()]
		if !ok {
			continue
		}
		newest, err := newestVersion(value)
		if err != nil {
			return Version{}, tagged(ErrMalformedContractLabel, "CRD %s has label %s=%q: %v", crdName, c.Label(), value, err)
		}
		return Version{Contract: c, APIVersion: newest}, nil
	}
	keys := make([]string, 0, len(CompatibleContracts()))
	for _, c := range CompatibleContracts() {
		keys = append(keys, c.Label())
	}
	return Version{}, tagged(ErrNoContractLabel, "CRD %s has no %s label: the provider does not declare a supported contract",
		crdName, strings.Join(keys, " or "))
}

// newestVersion parses "v1beta1_v1beta2". Each element must be a valid CRD version
// name (a DNS-1035 label), which rules out empty elements from "__" or a trailing "_".
func newestVersion(value string) (string, error) {
	if value == "" {
		return "", errors.New("the value is empty; want CRD versions joined by '_', e.g. v1beta1_v1beta2")
	}
	versions := strings.Split(value, "_")
	for _, v := range versions {
		if v == "" {
			return "", errors.New("empty version between '_' separators")
		}
		if errs := validation.IsDNS1035Label(v); len(errs) > 0 {
			return "", fmt.Errorf("version %q is not a valid CRD version name: %s", v, strings.Join(errs, "; "))
		}
	}
	return slices.MaxFunc(versions, k8sversion.CompareKubeAwareVersionStrings), nil
}
