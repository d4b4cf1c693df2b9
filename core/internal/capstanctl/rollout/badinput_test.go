package rollout_test

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestRollout_BadInputIsRefusedNamingWhatIsAllowedAndChangesNothing(t *testing.T) {
	md := machineDeployment(t, "md-0")
	ns := md.Namespace
	version := md.ResourceVersion
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"UnknownKind", []string{"rollout", "restart", "machineset/md-0", "-n", ns}, `unknown kind "machineset" in "machineset/md-0": rollout works on machinedeployment/NAME (md/NAME) or kubeadmcontrolplane/NAME (kcp/NAME)`},
		{"MissingName", []string{"rollout", "pause", "md/", "-n", ns}, `"md/" must be one kind and one name`},
		{"KindAndNameApart", []string{"rollout", "resume", "md", "md-0", "-n", ns}, `capstanctl rollout resume takes one object, got 2 arguments ["md" "md-0"]`},
		{"NameWithoutKind", []string{"rollout", "restart", "md-0", "-n", ns}, `"md-0" is not in kind/name form`},
		{"TwoObjects", []string{"rollout", "restart", "md/md-0", "kcp/cp", "-n", ns}, "takes one object, got 2 arguments"},
		{"NoObject", []string{"rollout", "status", "-n", ns}, "capstanctl rollout status needs the object to roll out: machinedeployment/NAME"},
		{"NotFound", []string{"rollout", "restart", "md/absent", "-n", ns}, "MachineDeployment " + ns + "/absent not found: list them with 'kubectl get machinedeployments -A'"},
		{"NotFoundKCP", []string{"rollout", "status", "kcp/absent", "-n", ns}, "KubeadmControlPlane " + ns + "/absent not found"},
		{"NoSubcommand", []string{"rollout"}, "capstanctl rollout needs a subcommand: [pause restart resume status]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := runOnCluster(t, tt.args...)
			require.Equal(t, 1, r.code, r.stdout)
			require.Contains(t, r.stderr, tt.want)
			require.Empty(t, r.stdout)
			require.Equal(t, version, reread(t, md).ResourceVersion, "nothing changed")
		})
	}
}
