package contract_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"capstan.dev/contracts/contract"
)

func TestControlPlaneIsProvisioningAndIsUpgrading_FollowSpecAndStatusVersion(t *testing.T) {
	cases := []struct {
		name                       string
		content                    string
		wantProvisioning, wantUpgr bool
		wantErr                    string
	}{
		{name: "no status.version yet", content: `{"spec":{"version":"v1.37.2"}}`, wantProvisioning: true},
		{name: "stable", content: `{"spec":{"version":"v1.37.2"},"status":{"version":"v1.37.2"}}`},
		{name: "patch upgrade", content: `{"spec":{"version":"v1.37.3"},"status":{"version":"v1.37.2"}}`, wantUpgr: true},
		{name: "minor upgrade without v prefix", content: `{"spec":{"version":"1.38.0"},"status":{"version":"v1.37.2"}}`, wantUpgr: true},
		{name: "generic status version", content: `{"spec":{"version":"v1.38.0"},"status":{"version":"1.38"}}`},
		{name: "build metadata changed", content: `{"spec":{"version":"v1.37.2+build.2"},"status":{"version":"v1.37.2+build.1"}}`, wantUpgr: true},
		{name: "status ahead (downgrade is not an upgrade)", content: `{"spec":{"version":"v1.37.1"},"status":{"version":"v1.37.2"}}`},
		{name: "malformed spec.version", content: `{"spec":{"version":"latest"},"status":{"version":"v1.37.2"}}`,
			wantErr: `spec.version "latest" is not a Kubernetes version`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			obj := fromJSON(t, "KubeadmControlPlane", tc.content)
			provisioning, err := contract.ControlPlane().IsProvisioning(obj)
			require.NoError(t, err)
			require.Equal(t, tc.wantProvisioning, provisioning)
			upgrading, err := contract.ControlPlane().IsUpgrading(obj)
			if tc.wantErr != "" {
				require.ErrorContains(t, err, tc.wantErr)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.wantUpgr, upgrading)
		})
	}
}

func TestControlPlaneIsScaling_ComparesEveryCountWithSpecReplicas(t *testing.T) {
	cases := []struct {
		name    string
		v       contract.ContractVersion
		content string
		want    bool
		wantErr string
	}{
		{name: "no spec.replicas: no machines to scale", v: contract.V1Beta2, content: `{"spec":{}}`},
		{name: "no status yet", v: contract.V1Beta2, content: `{"spec":{"replicas":3}}`, want: true},
		{name: "v1beta2 stable", v: contract.V1Beta2, content: `{"spec":{"replicas":3},"status":{"replicas":3,"upToDateReplicas":3,"availableReplicas":3}}`},
		{name: "v1beta2 scaling up", v: contract.V1Beta2, content: `{"spec":{"replicas":3},"status":{"replicas":2,"upToDateReplicas":2,"availableReplicas":2}}`, want: true},
		{name: "v1beta2 rolling out", v: contract.V1Beta2, content: `{"spec":{"replicas":3},"status":{"replicas":3,"upToDateReplicas":2,"availableReplicas":3}}`, want: true},
		{name: "v1beta2 one not available", v: contract.V1Beta2, content: `{"spec":{"replicas":3},"status":{"replicas":3,"upToDateReplicas":3,"availableReplicas":2}}`, want: true},
		{name: "v1beta2 up-to-date count missing", v: contract.V1Beta2, content: `{"spec":{"replicas":3},"status":{"replicas":3,"availableReplicas":3}}`, want: true},
		{name: "v1beta1 stable", v: contract.V1Beta1, content: `{"spec":{"replicas":1},"status":{"replicas":1,"updatedReplicas":1,"readyReplicas":1,"unavailableReplicas":0}}`},
		{name: "v1beta1 unavailable", v: contract.V1Beta1, content: `{"spec":{"replicas":1},"status":{"replicas":1,"updatedReplicas":1,"readyReplicas":1,"unavailableReplicas":1}}`, want: true},
		{name: "v1beta1 not updated", v: contract.V1Beta1, content: `{"spec":{"replicas":3},"status":{"replicas":3,"updatedReplicas":1,"readyReplicas":3}}`, want: true},
		{name: "mistyped count", v: contract.V1Beta2, content: `{"spec":{"replicas":3},"status":{"replicas":"three"}}`, wantErr: "status.replicas"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := contract.ControlPlane().IsScaling(fromJSON(t, "KubeadmControlPlane", tc.content), tc.v)
			if tc.wantErr != "" {
				require.ErrorContains(t, err, tc.wantErr)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
}
