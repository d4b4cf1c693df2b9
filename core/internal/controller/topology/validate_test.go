package topology

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/conditions"
	"capstan.dev/contracts/envtest"
	"capstan.dev/contracts/testing/crds"
	"capstan.dev/core/internal/topology/variables"
)

// TestTopology_ConditionNamesTheMissingClassThenTheInvalidVariable: a topology Cluster waits for
// its ClusterClass (named in TopologyReconciled), then reports a variable that does not match the
// class's schema, and a version the class does not list, with their field paths, and, once valid,
// the template it cannot read.
func TestTopology_ConditionNamesTheMissingClassThenTheInvalidVariable(t *testing.T) {
	startController(t, nil, nil)
	ctx := t.Context()
	ns := env.CreateNamespace(t, "topology")
	c := &clusterv1.Cluster{
		ObjectMeta: metav1.ObjectMeta{Name: "topo", Namespace: ns},
		Spec: clusterv1.ClusterSpec{Topology: clusterv1.Topology{
			ClassRef: clusterv1.ClusterClassRef{Name: "quick-start"}, Version: "v1.37.2",
			Workers:   clusterv1.WorkersTopology{MachineDeployments: []clusterv1.MachineDeploymentTopology{{Class: "default-worker", Name: "md-0"}}},
			Variables: []clusterv1.ClusterVariable{{Name: "replicas", Value: apiextensionsv1.JSON{Raw: []byte(`"three"`)}}},
		}},
	}
	require.NoError(t, env.Client.Create(ctx, c))
	got := waitCondition(t, c, clusterv1.ClusterTopologyReconciledCondition, metav1.ConditionFalse,
		"ClusterClass "+ns+"/quick-start does not exist: create it, or fix spec.topology.classRef")
	require.Equal(t, clusterv1.ClusterTopologyReconciledClusterClassNotReconciledReason, conditions.Get(got, clusterv1.ClusterTopologyReconciledCondition).Reason)

	var schema clusterv1.JSONSchemaProps
	require.NoError(t, json.Unmarshal([]byte(`{"type":"integer","minimum":1}`), &schema))
	ref := clusterv1.ClusterClassTemplateReference{APIVersion: crds.GenericInfrastructureMachineTemplateGVK.GroupVersion().String(),
		Kind: crds.GenericInfrastructureMachineTemplateGVK.Kind, Name: "t"}
	cc := &clusterv1.ClusterClass{ObjectMeta: metav1.ObjectMeta{Name: "quick-start", Namespace: ns}, Spec: clusterv1.ClusterClassSpec{
		Infrastructure: clusterv1.InfrastructureClass{TemplateRef: ref}, ControlPlane: clusterv1.ControlPlaneClass{TemplateRef: ref},
		Variables:          []clusterv1.ClusterClassVariable{{Name: "replicas", Required: ptr.To(true), Schema: clusterv1.VariableSchema{OpenAPIV3Schema: schema}}},
		KubernetesVersions: []string{"v1.36.4", "v1.37.0"},
	}}
	require.NoError(t, env.Client.Create(ctx, cc))
	waitCondition(t, c, clusterv1.ClusterTopologyReconciledCondition, metav1.ConditionFalse, "ClusterClass "+ns+"/quick-start is not reconciled yet")

	// Play the ClusterClass controller.
	envtest.UpdateStatus(t, env.Client, cc, func() {
		cc.Status.ObservedGeneration = cc.Generation
		cc.Status.Variables = variables.StatusVariables(cc.Spec.Variables)
		conditions.Set(cc, conditions.True(clusterv1.ClusterClassVariablesReadyCondition, clusterv1.ClusterClassVariablesReadyReason, ""))
	})
	got = waitCondition(t, c, clusterv1.ClusterTopologyReconciledCondition, metav1.ConditionFalse,
		`spec.topology.variables[replicas].value: Invalid value: "string"`)
	require.Equal(t, clusterv1.ClusterTopologyReconciledVariablesInvalidReason, conditions.Get(got, clusterv1.ClusterTopologyReconciledCondition).Reason)
	require.Contains(t, conditions.Get(got, clusterv1.ClusterTopologyReconciledCondition).Message, "must be of type integer")
	require.Contains(t, conditions.Get(got, clusterv1.ClusterTopologyReconciledCondition).Message,
		`spec.topology.workers.machineDeployments[md-0].class: Invalid value: "default-worker": ClusterClass quick-start has no such MachineDeployment class`)
	require.Contains(t, conditions.Get(got, clusterv1.ClusterTopologyReconciledCondition).Message,
		`spec.topology.version: Invalid value: "v1.37.2": must be one of ClusterClass quick-start's spec.kubernetesVersions (v1.36.4, v1.37.0)`)

	envtest.Update(t, env.Client, got, func() {
		got.Spec.Topology.Variables[0].Value = apiextensionsv1.JSON{Raw: []byte(`3`)}
		got.Spec.Topology.Workers = clusterv1.WorkersTopology{}
		got.Spec.Topology.Version = "v1.37.0"
	})
	got = waitCondition(t, c, clusterv1.ClusterTopologyReconciledCondition, metav1.ConditionFalse,
		"reading GenericInfrastructureMachineTemplate "+ns+"/t (ClusterClass quick-start spec.infrastructure.templateRef)")
	require.Equal(t, clusterv1.ClusterTopologyReconciledFailedReason, conditions.Get(got, clusterv1.ClusterTopologyReconciledCondition).Reason)
	require.False(t, got.Spec.InfrastructureRef.IsDefined(), "nothing is generated from a class whose templates cannot be read")
}
