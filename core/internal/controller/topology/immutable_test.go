package topology

import (
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/envtest"
	"capstan.dev/contracts/testing/crds"
)

// TestTopology_RotatesATemplateWhoseSpecIsImmutable: real providers' machine templates refuse a
// change of spec.template.spec, even in the dry run the controller compares with (a CEL rule
// cannot tell a dry run); the change is rotated into a new copy and the topology reconciled,
// where the refused dry run used to fail every reconcile (a Kubernetes upgrade of upstream's
// quick-start ClusterClass, whose patches put the version into DockerMachineTemplates, stalled).
func TestTopology_RotatesATemplateWhoseSpecIsImmutable(t *testing.T) {
	ns := env.CreateNamespace(t, "topology")
	startController(t, nil, nil)
	quickStartWithWorkers(t, ns, crds.GenericImmutableInfrastructureMachineTemplateGVK)
	c := topologyCluster(ns)
	require.NoError(t, env.Client.Create(t.Context(), c))
	got := waitCondition(t, c, clusterv1.ClusterTopologyReconciledCondition, metav1.ConditionTrue, "")
	oldInfra := machineDeployments(t, got)["md-0"].Spec.Template.Spec.InfrastructureRef.Name
	require.Equal(t, "node:v1", nestedString(t, get(t, crds.GenericImmutableInfrastructureMachineTemplateGVK, ns, oldInfra), "spec", "template", "spec", "image"))

	envtest.Update(t, env.Client, got, func() {
		got.Spec.Topology.Variables = []clusterv1.ClusterVariable{{Name: "image", Value: js(`"node:v2"`)}}
	})
	envtest.WaitFor(t, timeout, "md-0 to reference a new immutable infrastructure template", func() (bool, error) {
		md := machineDeployments(t, got)["md-0"]
		return md != nil && md.Spec.Template.Spec.InfrastructureRef.Name != oldInfra, nil
	})
	newInfra := machineDeployments(t, got)["md-0"].Spec.Template.Spec.InfrastructureRef.Name
	require.Equal(t, "node:v2", nestedString(t, get(t, crds.GenericImmutableInfrastructureMachineTemplateGVK, ns, newInfra), "spec", "template", "spec", "image"))
	waitCondition(t, c, clusterv1.ClusterTopologyReconciledCondition, metav1.ConditionTrue, "")
}
