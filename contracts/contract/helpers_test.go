package contract_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"capstan.dev/contracts/contract"
)

// Every fixture is "<Kind> default/m1" so messages can be asserted in full.
const (
	testNamespace = "default"
	testName      = "m1"
)

var bothContracts = []contract.ContractVersion{contract.V1Beta2, contract.V1Beta1}

// fromJSON decodes content the way the API machinery does (integers become int64)
// into an object of kind default/m1. content holds only spec/status.
func fromJSON(t *testing.T, kind, content string) *unstructured.Unstructured {
	t.Helper()
	u := &unstructured.Unstructured{}
	doc := `{"apiVersion":"test.capstan.dev/v1","kind":"` + kind +
		`","metadata":{"namespace":"` + testNamespace + `","name":"` + testName + `"}`
	if content = strings.TrimSpace(content); content != "{}" && content != "" {
		doc += "," + strings.TrimPrefix(content, "{")
	} else {
		doc += "}"
	}
	require.NoError(t, u.UnmarshalJSON([]byte(doc)), doc)
	return u
}

// withValue returns an object of kind default/m1 holding value at the dotted path.
func withValue(t *testing.T, kind, path string, value any) *unstructured.Unstructured {
	t.Helper()
	u := fromJSON(t, kind, "{}")
	m := u.Object
	keys := strings.Split(path, ".")
	for _, k := range keys[:len(keys)-1] {
		child, ok := m[k].(map[string]any)
		if !ok {
			child = map[string]any{}
			m[k] = child
		}
		m = child
	}
	m[keys[len(keys)-1]] = value
	return u
}

// accessor erases an accessor's value type so tests can sweep all of them.
type accessor struct {
	name string
	get  func(*unstructured.Unstructured) error
	set  func(*unstructured.Unstructured) error
}

func getErr[T any](get func(*unstructured.Unstructured) (T, error)) func(*unstructured.Unstructured) error {
	return func(u *unstructured.Unstructured) error { _, err := get(u); return err }
}

// everyAccessor lists every accessor of the package for contract version v.
func everyAccessor(v contract.ContractVersion) []accessor {
	ic, im, bs, cp := contract.InfrastructureCluster(), contract.InfrastructureMachine(), contract.Bootstrap(), contract.ControlPlane()
	boolean := func(name string, f contract.BoolField) accessor {
		return accessor{name, getErr(f.Get), func(u *unstructured.Unstructured) error { return f.Set(u, true) }}
	}
	str := func(name string, f contract.StringField) accessor {
		return accessor{name, getErr(f.Get), func(u *unstructured.Unstructured) error { return f.Set(u, "x") }}
	}
	integer := func(name string, f contract.Int64Field) accessor {
		return accessor{name, getErr(f.Get), func(u *unstructured.Unstructured) error { return f.Set(u, 1) }}
	}
	endpoint := func(name string, f contract.EndpointField) accessor {
		return accessor{name, getErr(f.Get), func(u *unstructured.Unstructured) error {
			return f.Set(u, contract.APIEndpoint{Host: "h", Port: 1})
		}}
	}
	fds := ic.FailureDomains(v)
	addrs := im.Addresses()
	ref := cp.MachineTemplateInfrastructureRef(v)
	return []accessor{
		endpoint("InfraCluster.ControlPlaneEndpoint", ic.ControlPlaneEndpoint()),
		boolean("InfraCluster.Provisioned", ic.Provisioned(v)),
		{"InfraCluster.FailureDomains", getErr(fds.Get), func(u *unstructured.Unstructured) error {
			return fds.Set(u, []contract.FailureDomain{{Name: "a"}})
		}},
		str("InfraCluster.FailureReason", ic.FailureReason(v)),
		str("InfraCluster.FailureMessage", ic.FailureMessage(v)),
		str("InfraMachine.ProviderID", im.ProviderID()),
		boolean("InfraMachine.Provisioned", im.Provisioned(v)),
		{"InfraMachine.Addresses", getErr(addrs.Get), func(u *unstructured.Unstructured) error {
			return addrs.Set(u, []contract.MachineAddress{{Type: "InternalIP", Address: "10.0.0.1"}})
		}},
		boolean("InfraMachine.Interruptible", im.Interruptible()),
		str("InfraMachine.FailureDomain", im.FailureDomain()),
		str("InfraMachine.SpecFailureDomain", im.SpecFailureDomain()),
		str("InfraMachine.FailureReason", im.FailureReason(v)),
		str("InfraMachine.FailureMessage", im.FailureMessage(v)),
		str("Bootstrap.DataSecretName", bs.DataSecretName()),
		boolean("Bootstrap.DataSecretCreated", bs.DataSecretCreated(v)),
		str("Bootstrap.FailureReason", bs.FailureReason(v)),
		str("Bootstrap.FailureMessage", bs.FailureMessage(v)),
		endpoint("ControlPlane.ControlPlaneEndpoint", cp.ControlPlaneEndpoint()),
		integer("ControlPlane.Replicas", cp.Replicas()),
		str("ControlPlane.Selector", cp.Selector()),
		integer("ControlPlane.StatusReplicas", cp.StatusReplicas()),
		integer("ControlPlane.ReadyReplicas", cp.ReadyReplicas()),
		integer("ControlPlane.AvailableReplicas", cp.AvailableReplicas(v)),
		integer("ControlPlane.UpToDateReplicas", cp.UpToDateReplicas(v)),
		integer("ControlPlane.UpdatedReplicas", cp.UpdatedReplicas(v)),
		integer("ControlPlane.UnavailableReplicas", cp.UnavailableReplicas(v)),
		str("ControlPlane.Version", cp.Version()),
		str("ControlPlane.StatusVersion", cp.StatusVersion()),
		boolean("ControlPlane.Initialized", cp.Initialized(v)),
		boolean("ControlPlane.ExternalManagedControlPlane", cp.ExternalManagedControlPlane()),
		{"ControlPlane.MachineTemplateInfrastructureRef", getErr(ref.Get), func(u *unstructured.Unstructured) error {
			return ref.Set(u, contract.ObjectReference{APIGroup: "g", APIVersion: "g/v1", Kind: "K", Name: "n"})
		}},
	}
}
