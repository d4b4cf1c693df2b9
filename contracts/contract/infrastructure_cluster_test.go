package contract_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"

	"capstan.dev/contracts/contract"
)

type endpointCase struct {
	name    string
	content string
	want    *contract.APIEndpoint
	wantErr error
	msg     string // the whole error message, with %s for the kind
}

var endpointCases = []endpointCase{
	{name: "host and port", content: `{"spec":{"controlPlaneEndpoint":{"host":"10.0.0.1","port":6443}}}`,
		want: &contract.APIEndpoint{Host: "10.0.0.1", Port: 6443}},
	{name: "host only: port not filled in yet", content: `{"spec":{"controlPlaneEndpoint":{"host":"lb"}}}`,
		want: &contract.APIEndpoint{Host: "lb"}},
	{name: "empty object", content: `{"spec":{"controlPlaneEndpoint":{}}}`, want: &contract.APIEndpoint{}},
	{name: "null host and port", content: `{"spec":{"controlPlaneEndpoint":{"host":null,"port":null}}}`,
		want: &contract.APIEndpoint{}},
	{name: "unknown sub-fields are ignored", content: `{"spec":{"controlPlaneEndpoint":{"host":"h","port":1,"x":[]}}}`,
		want: &contract.APIEndpoint{Host: "h", Port: 1}},
	{name: "missing", content: `{"spec":{}}`, wantErr: contract.ErrFieldNotFound,
		msg: "field spec.controlPlaneEndpoint of %s default/m1 not found"},
	{name: "null", content: `{"spec":{"controlPlaneEndpoint":null}}`, wantErr: contract.ErrFieldNotFound,
		msg: "field spec.controlPlaneEndpoint of %s default/m1 not found"},
	{name: "not an object", content: `{"spec":{"controlPlaneEndpoint":"10.0.0.1:6443"}}`, wantErr: contract.ErrFieldMistyped,
		msg: "field spec.controlPlaneEndpoint of %s default/m1: expected object, got string"},
	{name: "host not a string", content: `{"spec":{"controlPlaneEndpoint":{"host":1,"port":6443}}}`,
		wantErr: contract.ErrFieldMistyped,
		msg:     "field spec.controlPlaneEndpoint.host of %s default/m1: expected string, got integer"},
	{name: "port not an integer", content: `{"spec":{"controlPlaneEndpoint":{"host":"h","port":"6443"}}}`,
		wantErr: contract.ErrFieldMistyped,
		msg:     "field spec.controlPlaneEndpoint.port of %s default/m1: expected integer, got string"},
	{name: "port beyond int32", content: `{"spec":{"controlPlaneEndpoint":{"host":"h","port":1099511627776}}}`,
		wantErr: contract.ErrFieldMistyped,
		msg:     "field spec.controlPlaneEndpoint.port of %s default/m1: expected int32 integer, got 1099511627776"},
	{name: "spec not an object", content: `{"spec":"x"}`, wantErr: contract.ErrFieldMistyped,
		msg: "field spec.controlPlaneEndpoint of %s default/m1: expected object at spec, got string"},
}

func testEndpoint(t *testing.T, kind string, field contract.EndpointField) {
	t.Helper()
	require.Equal(t, "spec.controlPlaneEndpoint", field.String())
	for _, tc := range endpointCases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := field.Get(fromJSON(t, kind, tc.content))
			if tc.wantErr != nil {
				require.ErrorIs(t, err, tc.wantErr)
				require.EqualError(t, err, sprintf(tc.msg, kind))
				require.Nil(t, got)
				return
			}
			require.NoError(t, err)
			require.Empty(t, cmp.Diff(tc.want, got))
		})
	}
	t.Run("set then get", func(t *testing.T) {
		u := fromJSON(t, kind, `{}`)
		require.NoError(t, field.Set(u, contract.APIEndpoint{Host: "h", Port: 6443}))
		got, err := field.Get(u)
		require.NoError(t, err)
		require.Empty(t, cmp.Diff(&contract.APIEndpoint{Host: "h", Port: 6443}, got))
	})
}

// The endpoint has the same path in both contract versions, hence no version loop.
func TestInfraClusterControlPlaneEndpoint_ReadsHostAndPortAndNamesBadSubFields(t *testing.T) {
	testEndpoint(t, "DockerCluster", ic.ControlPlaneEndpoint())
}

func TestAPIEndpoint_IsValidOnlyWithHostAndPort(t *testing.T) {
	require.True(t, contract.APIEndpoint{Host: "h", Port: 1}.IsValid())
	require.False(t, contract.APIEndpoint{Host: "h"}.IsValid())
	require.False(t, contract.APIEndpoint{Port: 1}.IsValid())
}

func TestInfraClusterFailureDomains_ReadsEitherContractShapeIntoASortedList(t *testing.T) {
	attrs := map[string]string{"zone": "b"}
	cases := []struct {
		name    string
		version contract.ContractVersion
		content string
		want    []contract.FailureDomain
		wantErr error
		msg     string
	}{
		{name: "v1beta2 list, unsorted, optional fields left nil", version: contract.V1Beta2,
			content: `{"status":{"failureDomains":[{"name":"b","controlPlane":true,"attributes":{"zone":"b"}},{"name":"a"},{"name":"c","controlPlane":false}]}}`,
			want: []contract.FailureDomain{
				{Name: "a"},
				{Name: "b", ControlPlane: ptr.To(true), Attributes: attrs},
				{Name: "c", ControlPlane: ptr.To(false)},
			}},
		{name: "v1beta2 empty list", version: contract.V1Beta2, content: `{"status":{"failureDomains":[]}}`,
			want: []contract.FailureDomain{}},
		{name: "v1beta1 map, converted and sorted by name, controlPlane defaulting to false", version: contract.V1Beta1,
			content: `{"status":{"failureDomains":{"b":{"controlPlane":true,"attributes":{"zone":"b"}},"a":{},"c":null}}}`,
			want: []contract.FailureDomain{
				{Name: "a", ControlPlane: ptr.To(false)},
				{Name: "b", ControlPlane: ptr.To(true), Attributes: attrs},
				{Name: "c", ControlPlane: ptr.To(false)},
			}},
		{name: "v1beta1 empty map", version: contract.V1Beta1, content: `{"status":{"failureDomains":{}}}`,
			want: []contract.FailureDomain{}},

		{name: "v1beta2 missing", version: contract.V1Beta2, content: `{"status":{}}`, wantErr: contract.ErrFieldNotFound,
			msg: "field status.failureDomains of DockerCluster default/m1 not found"},
		{name: "v1beta1 missing", version: contract.V1Beta1, content: `{}`, wantErr: contract.ErrFieldNotFound,
			msg: "field status.failureDomains of DockerCluster default/m1 not found"},

		{name: "v1beta2 given the v1beta1 map", version: contract.V1Beta2, content: `{"status":{"failureDomains":{"a":{}}}}`,
			wantErr: contract.ErrFieldMistyped,
			msg:     "field status.failureDomains of DockerCluster default/m1: expected array, got object"},
		{name: "v1beta1 given the v1beta2 list", version: contract.V1Beta1, content: `{"status":{"failureDomains":[{"name":"a"}]}}`,
			wantErr: contract.ErrFieldMistyped,
			msg:     "field status.failureDomains of DockerCluster default/m1: expected object, got array"},
		{name: "v1beta2 element not an object", version: contract.V1Beta2, content: `{"status":{"failureDomains":[{"name":"a"},"b"]}}`,
			wantErr: contract.ErrFieldMistyped,
			msg:     "field status.failureDomains[1] of DockerCluster default/m1: expected object, got string"},
		{name: "v1beta2 element without name", version: contract.V1Beta2, content: `{"status":{"failureDomains":[{"controlPlane":true}]}}`,
			wantErr: contract.ErrFieldMistyped,
			msg:     "field status.failureDomains[0].name of DockerCluster default/m1: required string is missing"},
		{name: "v1beta2 controlPlane not a bool", version: contract.V1Beta2, content: `{"status":{"failureDomains":[{"name":"a","controlPlane":"yes"}]}}`,
			wantErr: contract.ErrFieldMistyped,
			msg:     "field status.failureDomains[0].controlPlane of DockerCluster default/m1: expected bool, got string"},
		{name: "v1beta2 attributes not an object", version: contract.V1Beta2, content: `{"status":{"failureDomains":[{"name":"a","attributes":["x"]}]}}`,
			wantErr: contract.ErrFieldMistyped,
			msg:     "field status.failureDomains[0].attributes of DockerCluster default/m1: expected object, got array"},
		{name: "v1beta2 attribute value not a string", version: contract.V1Beta2, content: `{"status":{"failureDomains":[{"name":"a","attributes":{"zone":1}}]}}`,
			wantErr: contract.ErrFieldMistyped,
			msg:     "field status.failureDomains[0].attributes.zone of DockerCluster default/m1: expected string, got integer"},
		{name: "v1beta1 entry not an object", version: contract.V1Beta1, content: `{"status":{"failureDomains":{"a":"x"}}}`,
			wantErr: contract.ErrFieldMistyped,
			msg:     "field status.failureDomains.a of DockerCluster default/m1: expected object, got string"},
		{name: "v1beta1 controlPlane not a bool", version: contract.V1Beta1, content: `{"status":{"failureDomains":{"a":{"controlPlane":"true"}}}}`,
			wantErr: contract.ErrFieldMistyped,
			msg:     "field status.failureDomains.a.controlPlane of DockerCluster default/m1: expected bool, got string"},
		{name: "v1beta1 attribute value not a string", version: contract.V1Beta1, content: `{"status":{"failureDomains":{"a":{"attributes":{"zone":true}}}}}`,
			wantErr: contract.ErrFieldMistyped,
			msg:     "field status.failureDomains.a.attributes.zone of DockerCluster default/m1: expected string, got bool"},
		{name: "v1beta1 status not an object", version: contract.V1Beta1, content: `{"status":"x"}`,
			wantErr: contract.ErrFieldMistyped,
			msg:     "field status.failureDomains of DockerCluster default/m1: expected object at status, got string"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := ic.FailureDomains(tc.version)
			require.Equal(t, "status.failureDomains", f.String())
			got, err := f.Get(fromJSON(t, "DockerCluster", tc.content))
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

func TestInfraClusterFailureDomains_SetWritesTheShapeOfTheContractVersion(t *testing.T) {
	domains := []contract.FailureDomain{
		{Name: "b", ControlPlane: ptr.To(true), Attributes: map[string]string{"zone": "b"}},
		{Name: "a"},
	}
	cases := map[contract.ContractVersion]struct {
		raw  any
		want []contract.FailureDomain
	}{
		contract.V1Beta2: {
			raw: []any{
				map[string]any{"name": "b", "controlPlane": true, "attributes": map[string]any{"zone": "b"}},
				map[string]any{"name": "a"},
			},
			want: []contract.FailureDomain{domains[1], domains[0]},
		},
		contract.V1Beta1: {
			raw: map[string]any{
				"b": map[string]any{"controlPlane": true, "attributes": map[string]any{"zone": "b"}},
				"a": map[string]any{"controlPlane": false},
			},
			want: []contract.FailureDomain{{Name: "a", ControlPlane: ptr.To(false)}, domains[0]},
		},
	}
	for v, tc := range cases {
		t.Run(string(v), func(t *testing.T) {
			u := fromJSON(t, "DockerCluster", `{}`)
			require.NoError(t, ic.FailureDomains(v).Set(u, domains))
			raw, _, _ := unstructured.NestedFieldNoCopy(u.Object, "status", "failureDomains")
			require.Empty(t, cmp.Diff(tc.raw, raw))
			got, err := ic.FailureDomains(v).Get(u)
			require.NoError(t, err)
			require.Empty(t, cmp.Diff(tc.want, got))
		})
	}
}
