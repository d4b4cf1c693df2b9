package conformance

import (
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"capstan.dev/contracts/conformance/internal/recorder"
	"capstan.dev/contracts/envtest"
)

// A CRD under a plural the core does not GET: the kit fails CRD, says which name
// it wants and which CRD it found instead, and checks nothing else.
func TestInfrastructureMachine_StopsAfterCRDWhenTheCRDIsMissing(t *testing.T) {
	scheme, err := envtest.DefaultScheme()
	require.NoError(t, err)
	crd := exampleCRD(t, "ExampleMachine")
	crd.Name = "examplemachinez.infrastructure.example.capstan.dev"
	c := fake.NewClientBuilder().WithScheme(scheme).WithObjects(crd).Build()

	rec := recorder.Record(t, func(r *recorder.Recorder) {
		InfrastructureMachine(r, Input{Client: c, GVK: machineGVK, Namespace: "ns",
			NewObject: func(string, string) *unstructured.Unstructured { return nil }})
	})
	require.Equal(t, []string{"CRD"}, rec.FailedTests())
	require.Len(t, rec.Outcomes(), 1, "nothing else ran")
	require.Contains(t, rec.Messages("CRD"), "there is no CRD named examplemachines.infrastructure.example.capstan.dev, "+
		"but CRD examplemachinez.infrastructure.example.capstan.dev serves ExampleMachine.infrastructure.example.capstan.dev")
}

// Skipping CRD does not let a missing CRD pass: the run fails as a whole.
func TestInfrastructureMachine_MissingCRDFailsEvenWhenSkipped(t *testing.T) {
	scheme, err := envtest.DefaultScheme()
	require.NoError(t, err)
	c := fake.NewClientBuilder().WithScheme(scheme).Build()
	rec := recorder.Record(t, func(r *recorder.Recorder) {
		InfrastructureMachine(r, Input{Client: c, GVK: machineGVK, Namespace: "ns", Skip: map[Check]string{CheckCRD: "later"},
			NewObject: func(string, string) *unstructured.Unstructured { return nil }})
	})
	require.Equal(t, []string{"CRD"}, rec.SkippedTests())
	require.True(t, rec.Own().Failed, "the run fails as a whole")
	require.Contains(t, rec.Own().Messages[0], "there is no CRD named examplemachines.infrastructure.example.capstan.dev: is it installed")
}

func TestInfrastructureMachine_RefusesIncompleteInput(t *testing.T) {
	scheme, err := envtest.DefaultScheme()
	require.NoError(t, err)
	c := fake.NewClientBuilder().WithScheme(scheme).Build()
	for want, in := range map[string]Input{
		"Input.Client is nil":           {GVK: machineGVK},
		"needs group, version and kind": {Client: c, GVK: schema.GroupVersionKind{Kind: "FooMachine"}},
		"Input.NewObject is nil":        {Client: c, GVK: machineGVK},
		"does not know cluster.x-k8s.io/v1beta2 Cluster": {Client: fake.NewClientBuilder().Build(), GVK: machineGVK,
			NewObject: func(string, string) *unstructured.Unstructured { return nil }},
	} {
		rec := recorder.Record(t, func(r *recorder.Recorder) { InfrastructureMachine(r, in) })
		require.Empty(t, rec.Outcomes(), "no check runs")
		require.True(t, rec.Own().Failed)
		require.Contains(t, rec.Own().Messages[0], want)
	}
}
