package integration

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	clusterv1beta1 "capstan.dev/contracts/api/core/v1beta1"
	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
)

// upstreamClusterClassV1Beta1 is a ClusterClass as upstream's v1beta1 quick-start writes one
// (refs under `ref`, a MachineHealthCheck-shaped health check, a MachineDeployment strategy,
// durations, a schema with v1beta1's booleans, a patch whose value comes from a variable).
const upstreamClusterClassV1Beta1 = `
apiVersion: cluster.x-k8s.io/v1beta1
kind: ClusterClass
metadata: {name: quick-start}
spec:
  infrastructure:
    ref: {apiVersion: infrastructure.cluster.x-k8s.io/v1beta2, kind: GenericInfrastructureClusterTemplate, name: quick-start-cluster}
  infrastructureNamingStrategy: {template: "{{ .cluster.name }}-infra-{{ .random }}"}
  controlPlane:
    ref: {apiVersion: controlplane.cluster.x-k8s.io/v1beta2, kind: GenericControlPlaneTemplate, name: quick-start-control-plane}
    machineInfrastructure:
      ref: {apiVersion: infrastructure.cluster.x-k8s.io/v1beta2, kind: GenericInfrastructureMachineTemplate, name: quick-start-control-plane}
    machineHealthCheck:
      unhealthyConditions: [{type: Ready, status: Unknown, timeout: 300s}]
      maxUnhealthy: 40%
    nodeDrainTimeout: 1500ms
  workers:
    machineDeployments:
    - class: default-worker
      template:
        metadata: {labels: {tier: worker}}
        bootstrap:
          ref: {apiVersion: bootstrap.cluster.x-k8s.io/v1beta2, kind: GenericBootstrapConfigTemplate, name: quick-start-md-default-worker-bootstraptemplate}
        infrastructure:
          ref: {apiVersion: infrastructure.cluster.x-k8s.io/v1beta2, kind: GenericInfrastructureMachineTemplate, name: quick-start-default-worker-machinetemplate}
      machineHealthCheck:
        unhealthyConditions: [{type: Ready, status: "False", timeout: 300s}]
        nodeStartupTimeout: 10m
      strategy:
        type: RollingUpdate
        rollingUpdate: {maxSurge: 1, deletePolicy: Oldest}
        remediation: {maxInFlight: 2}
      namingStrategy: {template: "{{ .cluster.name }}-{{ .machineDeployment.topologyName }}-{{ .random }}"}
  variables:
  - name: imageRepository
    required: false
    schema:
      openAPIV3Schema: {type: string, default: "", example: registry.k8s.io}
  - name: podSecurityStandard
    required: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          enabled: {type: boolean, default: true}
          exemptions: {type: array, uniqueItems: true, items: {type: string}}
  patches:
  - name: imageRepository
    enabledIf: '{{ ne .imageRepository "" }}'
    definitions:
    - selector:
        apiVersion: controlplane.cluster.x-k8s.io/v1beta2
        kind: GenericControlPlaneTemplate
        matchResources: {controlPlane: true}
      jsonPatches:
      - op: add
        path: /spec/template/spec/imageRepository
        valueFrom: {variable: imageRepository}
`

// upstreamTopologyClusterV1Beta1 is a Cluster with a v1beta1 topology, as upstream's
// development flavor renders one, plus the v1beta1-only fields v1beta2 has no home for.
const upstreamTopologyClusterV1Beta1 = `
apiVersion: cluster.x-k8s.io/v1beta1
kind: Cluster
metadata: {name: dev}
spec:
  clusterNetwork:
    pods: {cidrBlocks: ["192.168.0.0/16"]}
  topology:
    class: quick-start
    version: v1.37.2
    rolloutAfter: "2026-01-02T03:04:05Z"
    controlPlane:
      replicas: 1
      machineHealthCheck: {enable: true}
      nodeDeletionTimeout: 2500ms
    workers:
      machineDeployments:
      - class: default-worker
        name: md-0
        replicas: 2
        failureDomain: fd1
        strategy:
          rollingUpdate: {deletePolicy: Newest}
          remediation: {maxInFlight: 1}
        machineHealthCheck: {unhealthyRange: "[1-3]"}
        variables:
          overrides: [{name: imageRepository, value: registry.local}]
    variables:
    - {name: imageRepository, value: "", definitionFrom: inline}
    - name: podSecurityStandard
      value: {enabled: false}
`

// TestConversion_V1Beta1ClusterClassAndTopologyRoundTripThroughTheWebhook creates an
// upstream-style v1beta1 ClusterClass and topology Cluster through the API (converted by the
// core's webhook), reads them at v1beta2 with every field where v1beta2 keeps it, reads them at
// v1beta1 unchanged, and after v1beta2 writes still finds what only v1beta1 can say.
func TestConversion_V1Beta1ClusterClassAndTopologyRoundTripThroughTheWebhook(t *testing.T) {
	ctx := context.Background()
	stop, _ := startCoreWithWebhook(t, time.Hour)
	defer stop()
	ns := env.CreateNamespace(t, "clusterclass-v1beta1")
	old, err := client.New(env.Config, client.Options{Scheme: conversionScheme(t)})
	require.NoError(t, err)

	cc := &clusterv1beta1.ClusterClass{}
	require.NoError(t, yaml.UnmarshalStrict([]byte(upstreamClusterClassV1Beta1), cc))
	cc.Namespace = ns
	written := cc.Spec.DeepCopy()
	require.NoError(t, old.Create(ctx, cc))

	hubCC := &clusterv1.ClusterClass{}
	require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(cc), hubCC))
	requireClusterClassAtV1Beta2(t, hubCC)

	gotCC := &clusterv1beta1.ClusterClass{}
	require.NoError(t, old.Get(ctx, client.ObjectKeyFromObject(cc), gotCC))
	require.Equal(t, *written, gotCC.Spec, "a v1beta1 ClusterClass reads back as written")

	// A v1beta2 writer adds a variable: v1beta1 shows it and keeps what v1beta2 rounds (1.5s).
	hubCC.Spec.Variables = append(hubCC.Spec.Variables, clusterv1.ClusterClassVariable{Name: "etcdImageTag", Required: ptr.To(false),
		Schema: clusterv1.VariableSchema{OpenAPIV3Schema: clusterv1.JSONSchemaProps{Type: "string"}}})
	require.NoError(t, env.Client.Update(ctx, hubCC))
	require.NoError(t, old.Get(ctx, client.ObjectKeyFromObject(cc), gotCC))
	require.Len(t, gotCC.Spec.Variables, 3)
	require.Equal(t, "etcdImageTag", gotCC.Spec.Variables[2].Name)
	require.Equal(t, "1.5s", gotCC.Spec.ControlPlane.NodeDrainTimeout.Duration.String())
	require.Equal(t, written.Workers, gotCC.Spec.Workers)

	c := &clusterv1beta1.Cluster{}
	require.NoError(t, yaml.UnmarshalStrict([]byte(upstreamTopologyClusterV1Beta1), c))
	c.Namespace = ns
	writtenTopology := c.Spec.Topology.DeepCopy()
	require.NoError(t, old.Create(ctx, c))

	hc := &clusterv1.Cluster{}
	require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(c), hc))
	requireTopologyAtV1Beta2(t, hc.Spec.Topology)

	gotC := &clusterv1beta1.Cluster{}
	require.NoError(t, old.Get(ctx, client.ObjectKeyFromObject(c), gotC))
	require.Equal(t, writtenTopology, gotC.Spec.Topology, "a v1beta1 topology reads back as written")

	// A v1beta2 writer scales md-0: v1beta1 shows it, and rolloutAfter, definitionFrom and the
	// sub-second timeout (no v1beta2 home) are still there.
	// The Cluster controller writes the Cluster too (finalizer, status): retry on conflicts.
	require.NoError(t, retry.RetryOnConflict(retry.DefaultRetry, func() error {
		if err := env.Client.Get(ctx, client.ObjectKeyFromObject(c), hc); err != nil {
			return err
		}
		hc.Spec.Topology.Workers.MachineDeployments[0].Replicas = ptr.To[int32](3)
		return env.Client.Update(ctx, hc)
	}))
	require.NoError(t, old.Get(ctx, client.ObjectKeyFromObject(c), gotC))
	want := writtenTopology.DeepCopy()
	want.Workers.MachineDeployments[0].Replicas = ptr.To[int32](3)
	require.Equal(t, want, gotC.Spec.Topology)
}

func requireClusterClassAtV1Beta2(t *testing.T, cc *clusterv1.ClusterClass) {
	t.Helper()
	s := cc.Spec
	require.Equal(t, clusterv1.ClusterClassTemplateReference{APIVersion: "infrastructure.cluster.x-k8s.io/v1beta2", Kind: "GenericInfrastructureClusterTemplate",
		Name: "quick-start-cluster"}, s.Infrastructure.TemplateRef)
	require.Equal(t, "{{ .cluster.name }}-infra-{{ .random }}", s.Infrastructure.Naming.Template)
	require.Equal(t, "GenericControlPlaneTemplate", s.ControlPlane.TemplateRef.Kind)
	require.Equal(t, "quick-start-control-plane", s.ControlPlane.MachineInfrastructure.TemplateRef.Name)
	require.Equal(t, ptr.To[int32](300), s.ControlPlane.HealthCheck.Checks.UnhealthyNodeConditions[0].TimeoutSeconds)
	require.Equal(t, ptr.To(intstr.FromString("40%")), s.ControlPlane.HealthCheck.Remediation.TriggerIf.UnhealthyLessThanOrEqualTo)
	require.Equal(t, ptr.To[int32](1), s.ControlPlane.Deletion.NodeDrainTimeoutSeconds)

	md := s.Workers.MachineDeployments[0]
	require.Equal(t, "worker", md.Metadata.Labels["tier"])
	require.Equal(t, "GenericBootstrapConfigTemplate", md.Bootstrap.TemplateRef.Kind)
	require.Equal(t, "quick-start-default-worker-machinetemplate", md.Infrastructure.TemplateRef.Name)
	require.Equal(t, ptr.To[int32](600), md.HealthCheck.Checks.NodeStartupTimeoutSeconds)
	require.Equal(t, ptr.To(intstr.FromInt32(2)), md.HealthCheck.Remediation.MaxInFlight)
	require.Equal(t, clusterv1.MachineDeploymentRolloutStrategyType("RollingUpdate"), md.Rollout.Strategy.Type)
	require.Equal(t, ptr.To(intstr.FromInt32(1)), md.Rollout.Strategy.RollingUpdate.MaxSurge)
	require.Equal(t, clusterv1.MachineSetDeletionOrder("Oldest"), md.Deletion.Order)
	require.Equal(t, "{{ .cluster.name }}-{{ .machineDeployment.topologyName }}-{{ .random }}", md.Naming.Template)

	require.Len(t, s.Variables, 2)
	require.Equal(t, ptr.To(false), s.Variables[0].Required)
	require.Equal(t, ptr.To(true), s.Variables[1].Required)
	exemptions := s.Variables[1].Schema.OpenAPIV3Schema.Properties["exemptions"]
	require.Equal(t, ptr.To(true), exemptions.UniqueItems)
	require.Nil(t, s.Variables[1].Schema.OpenAPIV3Schema.XPreserveUnknownFields, "false in v1beta1 is unset in v1beta2")

	p := s.Patches[0]
	require.Equal(t, `{{ ne .imageRepository "" }}`, p.EnabledIf)
	require.Equal(t, ptr.To(true), p.Definitions[0].Selector.MatchResources.ControlPlane)
	require.Nil(t, p.Definitions[0].Selector.MatchResources.InfrastructureCluster)
	require.Equal(t, "imageRepository", p.Definitions[0].JSONPatches[0].ValueFrom.Variable)
}

func requireTopologyAtV1Beta2(t *testing.T, topo clusterv1.Topology) {
	t.Helper()
	require.Equal(t, clusterv1.ClusterClassRef{Name: "quick-start"}, topo.ClassRef)
	require.Equal(t, "v1.37.2", topo.Version)
	require.Equal(t, ptr.To[int32](1), topo.ControlPlane.Replicas)
	require.Equal(t, ptr.To(true), topo.ControlPlane.HealthCheck.Enabled)
	require.Equal(t, ptr.To[int32](2), topo.ControlPlane.Deletion.NodeDeletionTimeoutSeconds)

	md := topo.Workers.MachineDeployments[0]
	require.Equal(t, "default-worker", md.Class)
	require.Equal(t, "md-0", md.Name)
	require.Equal(t, ptr.To[int32](2), md.Replicas)
	require.Equal(t, "fd1", md.FailureDomain)
	require.Equal(t, clusterv1.MachineSetDeletionOrder("Newest"), md.Deletion.Order)
	require.Equal(t, ptr.To(intstr.FromInt32(1)), md.HealthCheck.Remediation.MaxInFlight)
	require.Equal(t, "[1-3]", md.HealthCheck.Remediation.TriggerIf.UnhealthyInRange)
	require.Equal(t, "imageRepository", md.Variables.Overrides[0].Name)
	require.JSONEq(t, `"registry.local"`, string(md.Variables.Overrides[0].Value.Raw))

	require.Len(t, topo.Variables, 2)
	require.JSONEq(t, `{"enabled":false}`, string(topo.Variables[1].Value.Raw))
}
