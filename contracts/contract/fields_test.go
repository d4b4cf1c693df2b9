package contract_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"capstan.dev/contracts/contract"
)

// scalar is one bool/string/integer accessor with the path each contract version
// gives it ("" when the version does not define the field).
type scalar struct {
	name  string
	kind  string // the provider kind used in fixtures
	paths map[contract.ContractVersion]string
	typ   string // "bool", "string" or "integer": the JSON type the contract promises
	field func(contract.ContractVersion) interface {
		Path() contract.Path
		String() string
	}
	get func(contract.ContractVersion, *unstructured.Unstructured) (any, error)
	set func(contract.ContractVersion, *unstructured.Unstructured) error
}

func boolScalar(name, kind, v1beta2, v1beta1 string, f func(contract.ContractVersion) contract.BoolField) scalar {
	return scalar{
		name: name, kind: kind, typ: "bool",
		paths: map[contract.ContractVersion]string{contract.V1Beta2: v1beta2, contract.V1Beta1: v1beta1},
		field: func(v contract.ContractVersion) interface {
			Path() contract.Path
			String() string
		} {
			return f(v)
		},
		get: func(v contract.ContractVersion, u *unstructured.Unstructured) (any, error) {
			p, err := f(v).Get(u)
			if p == nil {
				return nil, err
			}
			return *p, err
		},
		set: func(v contract.ContractVersion, u *unstructured.Unstructured) error { return f(v).Set(u, true) },
	}
}

func stringScalar(name, kind, v1beta2, v1beta1 string, f func(contract.ContractVersion) contract.StringField) scalar {
	return scalar{
		name: name, kind: kind, typ: "string",
		paths: map[contract.ContractVersion]string{contract.V1Beta2: v1beta2, contract.V1Beta1: v1beta1},
		field: func(v contract.ContractVersion) interface {
			Path() contract.Path
			String() string
		} {
			return f(v)
		},
		get: func(v contract.ContractVersion, u *unstructured.Unstructured) (any, error) {
			p, err := f(v).Get(u)
			if p == nil {
				return nil, err
			}
			return *p, err
		},
		set: func(v contract.ContractVersion, u *unstructured.Unstructured) error {
			return f(v).Set(u, "value-1")
		},
	}
}

func intScalar(name, kind, v1beta2, v1beta1 string, f func(contract.ContractVersion) contract.Int64Field) scalar {
	return scalar{
		name: name, kind: kind, typ: "integer",
		paths: map[contract.ContractVersion]string{contract.V1Beta2: v1beta2, contract.V1Beta1: v1beta1},
		field: func(v contract.ContractVersion) interface {
			Path() contract.Path
			String() string
		} {
			return f(v)
		},
		get: func(v contract.ContractVersion, u *unstructured.Unstructured) (any, error) {
			p, err := f(v).Get(u)
			if p == nil {
				return nil, err
			}
			return *p, err
		},
		set: func(v contract.ContractVersion, u *unstructured.Unstructured) error { return f(v).Set(u, 3) },
	}
}

// same wraps an accessor that takes no contract version: its path is the same in both.
func same[T any](f func() T) func(contract.ContractVersion) T {
	return func(contract.ContractVersion) T { return f() }
}

var (
	ic = contract.InfrastructureCluster()
	im = contract.InfrastructureMachine()
	bs = contract.Bootstrap()
	cp = contract.ControlPlane()
)

var scalars = []scalar{
	boolScalar("InfraCluster.Provisioned", "DockerCluster",
		"status.initialization.provisioned", "status.ready", ic.Provisioned),
	stringScalar("InfraCluster.FailureReason", "DockerCluster", "", "status.failureReason", ic.FailureReason),
	stringScalar("InfraCluster.FailureMessage", "DockerCluster", "", "status.failureMessage", ic.FailureMessage),

	stringScalar("InfraMachine.ProviderID", "DockerMachine", "spec.providerID", "spec.providerID", same(im.ProviderID)),
	boolScalar("InfraMachine.Provisioned", "DockerMachine",
		"status.initialization.provisioned", "status.ready", im.Provisioned),
	boolScalar("InfraMachine.Interruptible", "DockerMachine",
		"status.interruptible", "status.interruptible", same(im.Interruptible)),
	stringScalar("InfraMachine.FailureDomain", "DockerMachine",
		"status.failureDomain", "status.failureDomain", same(im.FailureDomain)),
	stringScalar("InfraMachine.SpecFailureDomain", "DockerMachine",
		"spec.failureDomain", "spec.failureDomain", same(im.SpecFailureDomain)),
	stringScalar("InfraMachine.FailureReason", "DockerMachine", "", "status.failureReason", im.FailureReason),
	stringScalar("InfraMachine.FailureMessage", "DockerMachine", "", "status.failureMessage", im.FailureMessage),

	stringScalar("Bootstrap.DataSecretName", "KubeadmConfig",
		"status.dataSecretName", "status.dataSecretName", same(bs.DataSecretName)),
	boolScalar("Bootstrap.DataSecretCreated", "KubeadmConfig",
		"status.initialization.dataSecretCreated", "status.ready", bs.DataSecretCreated),
	stringScalar("Bootstrap.FailureReason", "KubeadmConfig", "", "status.failureReason", bs.FailureReason),
	stringScalar("Bootstrap.FailureMessage", "KubeadmConfig", "", "status.failureMessage", bs.FailureMessage),

	intScalar("ControlPlane.Replicas", "KubeadmControlPlane", "spec.replicas", "spec.replicas", same(cp.Replicas)),
	stringScalar("ControlPlane.Selector", "KubeadmControlPlane", "status.selector", "status.selector", same(cp.Selector)),
	intScalar("ControlPlane.StatusReplicas", "KubeadmControlPlane",
		"status.replicas", "status.replicas", same(cp.StatusReplicas)),
	intScalar("ControlPlane.ReadyReplicas", "KubeadmControlPlane",
		"status.readyReplicas", "status.readyReplicas", same(cp.ReadyReplicas)),
	intScalar("ControlPlane.AvailableReplicas", "KubeadmControlPlane",
		"status.availableReplicas", "", cp.AvailableReplicas),
	intScalar("ControlPlane.UpToDateReplicas", "KubeadmControlPlane",
		"status.upToDateReplicas", "", cp.UpToDateReplicas),
	intScalar("ControlPlane.UpdatedReplicas", "KubeadmControlPlane", "", "status.updatedReplicas", cp.UpdatedReplicas),
	intScalar("ControlPlane.UnavailableReplicas", "KubeadmControlPlane",
		"", "status.unavailableReplicas", cp.UnavailableReplicas),
	stringScalar("ControlPlane.Version", "KubeadmControlPlane", "spec.version", "spec.version", same(cp.Version)),
	stringScalar("ControlPlane.StatusVersion", "KubeadmControlPlane",
		"status.version", "status.version", same(cp.StatusVersion)),
	boolScalar("ControlPlane.Initialized", "KubeadmControlPlane",
		"status.initialization.controlPlaneInitialized", "status.initialized", cp.Initialized),
	boolScalar("ControlPlane.ExternalManagedControlPlane", "KubeadmControlPlane",
		"status.externalManagedControlPlane", "status.externalManagedControlPlane", same(cp.ExternalManagedControlPlane)),
}

// validValue and wrongValue are what a well-behaved and a broken provider would
// write for each JSON type.
func validValue(typ string) any {
	switch typ {
	case "bool":
		return true
	case "string":
		return "value-1"
	default:
		return int64(3)
	}
}

func wrongValue(typ string) (value any, jsonType string) {
	switch typ {
	case "bool":
		return "true", "string"
	case "string":
		return int64(1), "integer"
	default:
		return "3", "string"
	}
}

// forEach runs fn for every scalar under every contract version that defines it.
func forEach(t *testing.T, fn func(t *testing.T, s scalar, v contract.ContractVersion, path string)) {
	for _, s := range scalars {
		for _, v := range bothContracts {
			path := s.paths[v]
			if path == "" {
				continue
			}
			t.Run(fmt.Sprintf("%s/%s", s.name, v), func(t *testing.T) { fn(t, s, v, path) })
		}
	}
}

func TestScalarAccessors_ReadTheContractPathOfEachVersion(t *testing.T) {
	forEach(t, func(t *testing.T, s scalar, v contract.ContractVersion, path string) {
		require.Equal(t, path, s.field(v).String())
		require.Equal(t, path, s.field(v).Path().String())

		got, err := s.get(v, withValue(t, s.kind, path, validValue(s.typ)))
		require.NoError(t, err)
		require.Equal(t, validValue(s.typ), got)
	})
}

func TestScalarAccessors_MissingFieldIsErrFieldNotFoundNamingPathAndObject(t *testing.T) {
	forEach(t, func(t *testing.T, s scalar, v contract.ContractVersion, path string) {
		for name, u := range map[string]*unstructured.Unstructured{
			"no spec or status":  fromJSON(t, s.kind, `{}`),
			"empty spec, status": fromJSON(t, s.kind, `{"spec":{},"status":{}}`),
			"explicit null":      withValue(t, s.kind, path, nil),
		} {
			_, err := s.get(v, u)
			require.ErrorIs(t, err, contract.ErrFieldNotFound, name)
			require.NotErrorIs(t, err, contract.ErrFieldMistyped, name)
			require.EqualError(t, err, fmt.Sprintf("field %s of %s default/m1 not found", path, s.kind), name)
			var fe *contract.FieldError
			require.ErrorAs(t, err, &fe)
			require.Equal(t, path, fe.Path)
		}
	})
}

func TestScalarAccessors_MistypedFieldSaysExpectedAndActualType(t *testing.T) {
	forEach(t, func(t *testing.T, s scalar, v contract.ContractVersion, path string) {
		wrong, wrongType := wrongValue(s.typ)
		_, err := s.get(v, withValue(t, s.kind, path, wrong))
		require.ErrorIs(t, err, contract.ErrFieldMistyped)
		require.NotErrorIs(t, err, contract.ErrFieldNotFound)
		require.EqualError(t, err,
			fmt.Sprintf("field %s of %s default/m1: expected %s, got %s", path, s.kind, s.typ, wrongType))
	})
}

func TestScalarAccessors_MistypedParentNamesWhereTheShapeBreaks(t *testing.T) {
	forEach(t, func(t *testing.T, s scalar, v contract.ContractVersion, path string) {
		root := contract.Path(s.field(v).Path()[:1]).String() // "spec" or "status"
		for _, bad := range []any{"x", []any{"x"}, int64(1), true} {
			u := fromJSON(t, s.kind, `{}`)
			u.Object[root] = bad
			_, err := s.get(v, u)
			require.ErrorIs(t, err, contract.ErrFieldMistyped)
			require.Contains(t, err.Error(), fmt.Sprintf("field %s of %s default/m1: expected object at %s, got ", path, s.kind, root))
		}
	})
}

func TestScalarAccessors_SetThenGetRoundTrips(t *testing.T) {
	forEach(t, func(t *testing.T, s scalar, v contract.ContractVersion, path string) {
		for name, u := range map[string]*unstructured.Unstructured{
			"empty object":       {},
			"object with kind":   fromJSON(t, s.kind, `{}`),
			"null parents":       fromJSON(t, s.kind, `{"spec":null,"status":null}`),
			"existing old value": withValue(t, s.kind, path, validValue(s.typ)),
		} {
			require.NoError(t, s.set(v, u), name)
			got, err := s.get(v, u)
			require.NoError(t, err, name)
			require.NotNil(t, got, name)
		}
	})
}

func TestScalarAccessors_SetRefusesToOverwriteAMistypedParent(t *testing.T) {
	forEach(t, func(t *testing.T, s scalar, v contract.ContractVersion, path string) {
		root := s.field(v).Path()[0]
		u := fromJSON(t, s.kind, `{}`)
		u.Object[root] = "x"
		err := s.set(v, u)
		require.ErrorIs(t, err, contract.ErrFieldMistyped)
		require.Equal(t, "x", u.Object[root], "the broken parent must be left for the test to see")
	})
}

func TestScalarAccessors_FieldOutsideTheContractVersionIsErrNotInContract(t *testing.T) {
	checked := 0
	for _, s := range scalars {
		for _, v := range bothContracts {
			if s.paths[v] != "" {
				continue
			}
			checked++
			u := withValue(t, s.kind, "status.failureReason", "x") // present, yet not readable under v
			_, err := s.get(v, u)
			require.ErrorIs(t, err, contract.ErrNotInContract, s.name)
			require.NotErrorIs(t, err, contract.ErrFieldNotFound, s.name)
			require.Contains(t, err.Error(), "is not part of contract "+string(v), s.name)
			require.ErrorIs(t, s.set(v, u), contract.ErrNotInContract, s.name)
			require.Nil(t, s.field(v).Path(), s.name)
		}
	}
	require.Equal(t, 10, checked, "v1beta1-only failure fields (6) + v1beta2-only and v1beta1-only replica counts (4)")
}

func TestVersionedAccessors_UnknownContractVersionIsErrUnsupportedContract(t *testing.T) {
	versioned := 0
	for _, a := range everyAccessor("v1alpha3") {
		u := fromJSON(t, "DockerMachine", `{"status":{"ready":true}}`)
		err := a.get(u)
		if err == nil || errors.Is(err, contract.ErrFieldNotFound) {
			continue // an accessor whose path does not depend on the version
		}
		require.ErrorIs(t, err, contract.ErrUnsupportedContract, a.name)
		require.Contains(t, err.Error(), `contract version "v1alpha3" is not supported (supported: v1beta2, v1beta1)`, a.name)
		require.ErrorIs(t, a.set(u), contract.ErrUnsupportedContract, a.name)
		versioned++
	}
	require.Equal(t, 16, versioned, "every accessor that takes a contract version")
}

func TestEveryAccessor_NilObjectIsErrNilObjectNotNotFound(t *testing.T) {
	for _, v := range bothContracts {
		for _, a := range everyAccessor(v) {
			err := a.get(nil)
			if errors.Is(err, contract.ErrNotInContract) {
				continue
			}
			require.ErrorIs(t, err, contract.ErrNilObject, a.name)
			require.NotErrorIs(t, err, contract.ErrFieldNotFound, a.name)
			require.ErrorIs(t, a.set(nil), contract.ErrNilObject, a.name)
		}
	}
}

func TestInt64Field_AcceptsIntegralNumbersFromEncodingJSON(t *testing.T) {
	u := withValue(t, "KubeadmControlPlane", "spec.replicas", float64(3))
	got, err := cp.Replicas().Get(u)
	require.NoError(t, err)
	require.Equal(t, int64(3), *got)

	u = withValue(t, "KubeadmControlPlane", "spec.replicas", 2.5)
	_, err = cp.Replicas().Get(u)
	require.ErrorIs(t, err, contract.ErrFieldMistyped)
	require.EqualError(t, err, "field spec.replicas of KubeadmControlPlane default/m1: expected integer, got number")
}

func TestInfraMachineProviderID_MissingFieldNamesPath(t *testing.T) {
	_, err := im.ProviderID().Get(fromJSON(t, "DockerMachine", `{"spec":{}}`))
	require.ErrorIs(t, err, contract.ErrFieldNotFound)
	require.EqualError(t, err, "field spec.providerID of DockerMachine default/m1 not found")
}

func TestInfraMachineProvisioned_MistypedFieldSaysExpectedAndActual(t *testing.T) {
	u := fromJSON(t, "DockerMachine", `{"status":{"initialization":{"provisioned":"true"}}}`)
	_, err := im.Provisioned(contract.V1Beta2).Get(u)
	require.EqualError(t, err,
		"field status.initialization.provisioned of DockerMachine default/m1: expected bool, got string")
}

func TestInfraMachineProvisioned_V1Beta1ProviderIsReadFromStatusReady(t *testing.T) {
	u := fromJSON(t, "DockerMachine", `{"status":{"ready":true}}`)
	got, err := im.Provisioned(contract.V1Beta1).Get(u)
	require.NoError(t, err)
	require.True(t, *got)

	// Read with the wrong contract, the same object has no provisioned field: this is
	// why callers must discover the contract first.
	_, err = im.Provisioned(contract.V1Beta2).Get(u)
	require.ErrorIs(t, err, contract.ErrFieldNotFound)
}

func TestFieldError_DescribesClusterScopedAndUnnamedObjects(t *testing.T) {
	u := &unstructured.Unstructured{Object: map[string]any{"kind": "Thing", "metadata": map[string]any{"name": "t"}}}
	_, err := im.ProviderID().Get(u)
	require.EqualError(t, err, "field spec.providerID of Thing t not found")

	_, err = im.ProviderID().Get(&unstructured.Unstructured{})
	require.EqualError(t, err, "field spec.providerID of object <unnamed> not found")

	// Broken metadata must not hide the real error or panic.
	u = &unstructured.Unstructured{Object: map[string]any{"kind": 7, "metadata": "x", "spec": "x"}}
	_, err = im.ProviderID().Get(u)
	require.EqualError(t, err, "field spec.providerID of object <unnamed>: expected object at spec, got string")
}
