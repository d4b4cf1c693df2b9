package contract_test

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"capstan.dev/contracts/contract"
)

func sprintf(format string, args ...any) string { return fmt.Sprintf(format, args...) }

// The endpoint has the same path in both contract versions, hence no version loop.
func TestControlPlaneControlPlaneEndpoint_ReadsHostAndPortAndNamesBadSubFields(t *testing.T) {
	testEndpoint(t, "KubeadmControlPlane", cp.ControlPlaneEndpoint())
}

func TestControlPlaneInfrastructureRef_ReadsTheShapeOfTheGivenContract(t *testing.T) {
	const (
		v1beta2Ref = `{"spec":{"machineTemplate":{"spec":{"infrastructureRef":` +
			`{"apiGroup":"infrastructure.cluster.x-k8s.io","kind":"DockerMachineTemplate","name":"cp"}}}}}`
		v1beta1Ref = `{"spec":{"machineTemplate":{"infrastructureRef":` +
			`{"apiVersion":"infrastructure.cluster.x-k8s.io/v1beta1","kind":"DockerMachineTemplate","name":"cp","namespace":"default"}}}}`
	)
	cases := []struct {
		name    string
		version contract.ContractVersion
		content string
		want    *contract.ObjectReference
		wantErr error
		msg     string
	}{
		{name: "v1beta2 apiGroup reference", version: contract.V1Beta2, content: v1beta2Ref,
			want: &contract.ObjectReference{APIGroup: "infrastructure.cluster.x-k8s.io", Kind: "DockerMachineTemplate", Name: "cp"}},
		{name: "v1beta1 apiVersion reference", version: contract.V1Beta1, content: v1beta1Ref,
			want: &contract.ObjectReference{APIGroup: "infrastructure.cluster.x-k8s.io",
				APIVersion: "infrastructure.cluster.x-k8s.io/v1beta1", Kind: "DockerMachineTemplate", Name: "cp"}},
		{name: "v1beta1 core-group apiVersion", version: contract.V1Beta1,
			content: `{"spec":{"machineTemplate":{"infrastructureRef":{"apiVersion":"v1","kind":"ConfigMap","name":"x"}}}}`,
			want:    &contract.ObjectReference{APIVersion: "v1", Kind: "ConfigMap", Name: "x"}},

		{name: "v1beta2 reads its own path only", version: contract.V1Beta2, content: v1beta1Ref,
			wantErr: contract.ErrFieldNotFound,
			msg:     "field spec.machineTemplate.spec.infrastructureRef of KubeadmControlPlane default/m1 not found"},
		{name: "v1beta1 reads its own path only", version: contract.V1Beta1, content: v1beta2Ref,
			wantErr: contract.ErrFieldNotFound,
			msg:     "field spec.machineTemplate.infrastructureRef of KubeadmControlPlane default/m1 not found"},
		{name: "v1beta2 not an object", version: contract.V1Beta2,
			content: `{"spec":{"machineTemplate":{"spec":{"infrastructureRef":"cp"}}}}`, wantErr: contract.ErrFieldMistyped,
			msg: "field spec.machineTemplate.spec.infrastructureRef of KubeadmControlPlane default/m1: expected object, got string"},
		{name: "v1beta2 without apiGroup", version: contract.V1Beta2,
			content: `{"spec":{"machineTemplate":{"spec":{"infrastructureRef":{"apiVersion":"g/v1","kind":"K","name":"n"}}}}}`,
			wantErr: contract.ErrFieldMistyped,
			msg:     "field spec.machineTemplate.spec.infrastructureRef.apiGroup of KubeadmControlPlane default/m1: required string is missing"},
		{name: "v1beta2 kind not a string", version: contract.V1Beta2,
			content: `{"spec":{"machineTemplate":{"spec":{"infrastructureRef":{"apiGroup":"g","kind":1,"name":"n"}}}}}`,
			wantErr: contract.ErrFieldMistyped,
			msg:     "field spec.machineTemplate.spec.infrastructureRef.kind of KubeadmControlPlane default/m1: expected string, got integer"},
		{name: "v1beta1 without name", version: contract.V1Beta1,
			content: `{"spec":{"machineTemplate":{"infrastructureRef":{"apiVersion":"g/v1","kind":"K"}}}}`,
			wantErr: contract.ErrFieldMistyped,
			msg:     "field spec.machineTemplate.infrastructureRef.name of KubeadmControlPlane default/m1: required string is missing"},
		{name: "v1beta1 unparseable apiVersion", version: contract.V1Beta1,
			content: `{"spec":{"machineTemplate":{"infrastructureRef":{"apiVersion":"a/b/c","kind":"K","name":"n"}}}}`,
			wantErr: contract.ErrFieldMistyped,
			msg:     `field spec.machineTemplate.infrastructureRef.apiVersion of KubeadmControlPlane default/m1: expected group/version string, got "a/b/c"`},
		{name: "v1beta1 machineTemplate not an object", version: contract.V1Beta1,
			content: `{"spec":{"machineTemplate":[]}}`, wantErr: contract.ErrFieldMistyped,
			msg: "field spec.machineTemplate.infrastructureRef of KubeadmControlPlane default/m1: expected object at spec.machineTemplate, got array"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := cp.MachineTemplateInfrastructureRef(tc.version).Get(fromJSON(t, "KubeadmControlPlane", tc.content))
			if tc.wantErr != nil {
				require.ErrorIs(t, err, tc.wantErr)
				require.EqualError(t, err, tc.msg)
				return
			}
			require.NoError(t, err)
			require.Empty(t, cmp.Diff(tc.want, got))
		})
	}
}

func TestControlPlaneInfrastructureRef_SetThenGetRoundTripsInBothContracts(t *testing.T) {
	ref := contract.ObjectReference{APIGroup: "infrastructure.cluster.x-k8s.io",
		APIVersion: "infrastructure.cluster.x-k8s.io/v1beta1", Kind: "DockerMachineTemplate", Name: "cp"}
	for _, v := range bothContracts {
		t.Run(string(v), func(t *testing.T) {
			f := cp.MachineTemplateInfrastructureRef(v)
			u := fromJSON(t, "KubeadmControlPlane", `{}`)
			require.NoError(t, f.Set(u, ref))
			got, err := f.Get(u)
			require.NoError(t, err)
			want := ref
			if v == contract.V1Beta2 {
				want.APIVersion = "" // v1beta2 references carry no version
			}
			require.Empty(t, cmp.Diff(&want, got))
			require.Equal(t, schema.GroupKind{Group: "infrastructure.cluster.x-k8s.io", Kind: "DockerMachineTemplate"}, got.GroupKind())
		})
	}
}
