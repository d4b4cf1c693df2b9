package contract_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"capstan.dev/contracts/contract"
)

// status.addresses has the same path and shape in both contract versions.
func TestInfraMachineAddresses_KeepsProviderOrderAndNamesBadElements(t *testing.T) {
	cases := []struct {
		name    string
		content string
		want    []contract.MachineAddress
		wantErr error
		msg     string
	}{
		{name: "provider order kept",
			content: `{"status":{"addresses":[{"type":"InternalIP","address":"10.0.0.2"},{"type":"Hostname","address":"m1"},{"type":"ExternalIP","address":"1.2.3.4","extra":1}]}}`,
			want: []contract.MachineAddress{
				{Type: "InternalIP", Address: "10.0.0.2"}, {Type: "Hostname", Address: "m1"}, {Type: "ExternalIP", Address: "1.2.3.4"},
			}},
		{name: "empty list", content: `{"status":{"addresses":[]}}`, want: []contract.MachineAddress{}},
		{name: "missing", content: `{"status":{}}`, wantErr: contract.ErrFieldNotFound,
			msg: "field status.addresses of DockerMachine default/m1 not found"},
		{name: "not a list", content: `{"status":{"addresses":{"type":"Hostname"}}}`, wantErr: contract.ErrFieldMistyped,
			msg: "field status.addresses of DockerMachine default/m1: expected array, got object"},
		{name: "element not an object", content: `{"status":{"addresses":["10.0.0.1"]}}`, wantErr: contract.ErrFieldMistyped,
			msg: "field status.addresses[0] of DockerMachine default/m1: expected object, got string"},
		{name: "element without type", content: `{"status":{"addresses":[{"type":"Hostname","address":"m1"},{"address":"10.0.0.1"}]}}`,
			wantErr: contract.ErrFieldMistyped,
			msg:     "field status.addresses[1].type of DockerMachine default/m1: required string is missing"},
		{name: "address not a string", content: `{"status":{"addresses":[{"type":"InternalIP","address":10}]}}`,
			wantErr: contract.ErrFieldMistyped,
			msg:     "field status.addresses[0].address of DockerMachine default/m1: expected string, got integer"},
		{name: "status a list", content: `{"status":[]}`, wantErr: contract.ErrFieldMistyped,
			msg: "field status.addresses of DockerMachine default/m1: expected object at status, got array"},
	}
	require.Equal(t, "status.addresses", im.Addresses().String())
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := im.Addresses().Get(fromJSON(t, "DockerMachine", tc.content))
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

func TestInfraMachineAddresses_SetThenGetRoundTrips(t *testing.T) {
	want := []contract.MachineAddress{{Type: "InternalIP", Address: "10.0.0.1"}, {Type: "Hostname", Address: "m1"}}
	u := fromJSON(t, "DockerMachine", `{}`)
	require.NoError(t, im.Addresses().Set(u, want))
	got, err := im.Addresses().Get(u)
	require.NoError(t, err)
	require.Empty(t, cmp.Diff(want, got))
}
