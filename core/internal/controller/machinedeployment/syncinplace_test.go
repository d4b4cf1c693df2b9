package machinedeployment

import (
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
)

// A MachineDeployment stored before admission added the cluster-name label to its template still
// gives its MachineSet's template that label, which the MachineSet's admission policy adds anyway:
// otherwise every sync would write a template the policy changes back.
func TestSyncInPlace_TemplateLabelsCarryTheClusterName(t *testing.T) {
	md := &clusterv1.MachineDeployment{
		ObjectMeta: metav1.ObjectMeta{Name: "workers"},
		Spec: clusterv1.MachineDeploymentSpec{
			ClusterName: clusterName,
			Template:    clusterv1.MachineTemplateSpec{ObjectMeta: clusterv1.ObjectMeta{Labels: map[string]string{"app": "web"}}},
		},
	}
	ms := newMachineSet(md, "abc", 1)
	require.Equal(t, map[string]string{
		"app": "web", clusterv1.ClusterNameLabel: clusterName,
		clusterv1.MachineDeploymentNameLabel: "workers", clusterv1.MachineDeploymentUniqueLabel: "abc",
	}, ms.Spec.Template.Labels)
}
