package rollout_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"capstan.dev/core/internal/capstanctl/rollout"
)

func TestParseRef_AcceptsKindsAsKubectlDoes(t *testing.T) {
	for arg, want := range map[string]rollout.Kind{
		"machinedeployment/a": rollout.MachineDeployment, "MachineDeployment/a": rollout.MachineDeployment,
		"machinedeployments/a": rollout.MachineDeployment, "md/a": rollout.MachineDeployment,
		"kubeadmcontrolplane/a": rollout.KubeadmControlPlane, "KubeadmControlPlane/a": rollout.KubeadmControlPlane,
		"kcp/a": rollout.KubeadmControlPlane,
	} {
		r, err := rollout.ParseRef(arg, "ns")
		require.NoError(t, err, arg)
		require.Equal(t, rollout.Ref{Kind: want, Namespace: "ns", Name: "a"}, r, arg)
	}
}

func TestParseRef_RefusesOtherArgumentsNamingWhatIsAllowed(t *testing.T) {
	for arg, want := range map[string]string{
		"a":            `"a" is not in kind/name form`,
		"md/":          `"md/" must be one kind and one name`,
		"/a":           `"/a" must be one kind and one name`,
		"md/a/b":       `"md/a/b" must be one kind and one name`,
		"machineset/a": `unknown kind "machineset" in "machineset/a": rollout works on`,
	} {
		_, err := rollout.ParseRef(arg, "ns")
		require.ErrorContains(t, err, want, arg)
		require.ErrorContains(t, err, rollout.Allowed, arg)
	}
}
