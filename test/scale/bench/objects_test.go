package bench

import (
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/labels"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
)

// The harness's MachineDeployments must be complete as written, as Capstan's shipped manifests
// are, so that a plane without Capstan's admission policies (upstream's core) runs them the same.
func TestMachineDeployments_AreCompleteWithoutDefaulting(t *testing.T) {
	small := smallCluster("ns", 2, 4)
	for _, md := range []*clusterv1.MachineDeployment{
		machineDeployment("ns", 7, 3),
		small[len(small)-1].(*clusterv1.MachineDeployment),
	} {
		cluster := md.Spec.ClusterName
		require.Equal(t, cluster, md.Labels[clusterv1.ClusterNameLabel], md.Name)
		require.Equal(t, cluster, md.Spec.Selector.MatchLabels[clusterv1.ClusterNameLabel], md.Name)
		require.True(t, labels.SelectorFromSet(md.Spec.Selector.MatchLabels).Matches(labels.Set(md.Spec.Template.Labels)), md.Name)
		require.Equal(t, cluster, md.Spec.Template.Spec.ClusterName, md.Name)
		require.NotNil(t, md.Spec.Replicas, md.Name)
		strategy := md.Spec.Rollout.Strategy
		require.Equal(t, clusterv1.RollingUpdateMachineDeploymentStrategyType, strategy.Type, md.Name)
		require.Equal(t, "1", strategy.RollingUpdate.MaxSurge.String(), md.Name)
		require.Equal(t, "0", strategy.RollingUpdate.MaxUnavailable.String(), md.Name)
	}
}
