package integration

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"
)

// upstreamStyleV1Beta1 are objects as upstream's v1beta1 templates and book snippets write
// them (the Docker quick-start's Cluster, MachineDeployment and MachineHealthCheck, a bare
// MachineSet, MachinePool and Machine): only what a user sets, nothing a webhook would default.
// Refs name v1beta1 provider kinds whose CRDs need not exist: conversion only reads the group.
const upstreamStyleV1Beta1 = `
apiVersion: cluster.x-k8s.io/v1beta1
kind: Cluster
metadata: {name: quick}
spec:
  clusterNetwork:
    services: {cidrBlocks: ["10.128.0.0/12"]}
    pods: {cidrBlocks: ["192.168.0.0/16"]}
    serviceDomain: cluster.local
  controlPlaneRef: {apiVersion: controlplane.cluster.x-k8s.io/v1beta1, kind: KubeadmControlPlane, name: quick-control-plane}
  infrastructureRef: {apiVersion: infrastructure.cluster.x-k8s.io/v1beta1, kind: DockerCluster, name: quick}
---
apiVersion: cluster.x-k8s.io/v1beta1
kind: Cluster
metadata: {name: network-only-pods}
spec:
  clusterNetwork:
    pods: {cidrBlocks: ["192.168.0.0/16"]}
  infrastructureRef: {apiVersion: infrastructure.cluster.x-k8s.io/v1beta1, kind: DockerCluster, name: network-only-pods}
---
# As a client built on upstream's v1beta1 Go types sends a Cluster: APIEndpoint's host and port
# and NetworkRanges' cidrBlocks have no omitempty there, so an unset endpoint goes out as zeros
# and an empty slice as [].
apiVersion: cluster.x-k8s.io/v1beta1
kind: Cluster
metadata: {name: go-client}
spec:
  controlPlaneEndpoint: {host: "", port: 0}
  clusterNetwork:
    services: {cidrBlocks: []}
  infrastructureRef: {apiVersion: infrastructure.cluster.x-k8s.io/v1beta1, kind: DockerCluster, name: go-client}
---
apiVersion: cluster.x-k8s.io/v1beta1
kind: MachineDeployment
metadata: {name: quick-md-0}
spec:
  clusterName: quick
  replicas: 1
  selector: {matchLabels: null}
  template:
    spec:
      clusterName: quick
      version: v1.37.2
      bootstrap:
        configRef: {apiVersion: bootstrap.cluster.x-k8s.io/v1beta1, kind: KubeadmConfigTemplate, name: quick-md-0}
      infrastructureRef: {apiVersion: infrastructure.cluster.x-k8s.io/v1beta1, kind: DockerMachineTemplate, name: quick-md-0}
---
apiVersion: cluster.x-k8s.io/v1beta1
kind: MachineDeployment
metadata: {name: quick-md-strategy}
spec:
  clusterName: quick
  replicas: 2
  minReadySeconds: 0
  strategy:
    type: RollingUpdate
    rollingUpdate: {maxSurge: 1, maxUnavailable: 0, deletePolicy: Oldest}
  selector:
    matchLabels: {cluster.x-k8s.io/cluster-name: quick}
  template:
    metadata:
      labels: {cluster.x-k8s.io/cluster-name: quick}
    spec:
      clusterName: quick
      version: v1.37.2
      nodeDrainTimeout: 0s
      bootstrap:
        configRef: {apiVersion: bootstrap.cluster.x-k8s.io/v1beta1, kind: KubeadmConfigTemplate, name: quick-md-0}
      infrastructureRef: {apiVersion: infrastructure.cluster.x-k8s.io/v1beta1, kind: DockerMachineTemplate, name: quick-md-0}
---
apiVersion: cluster.x-k8s.io/v1beta1
kind: MachineHealthCheck
metadata: {name: quick-mhc-md-0}
spec:
  clusterName: quick
  maxUnhealthy: 100%
  selector:
    matchLabels: {cluster.x-k8s.io/deployment-name: quick-md-0}
  unhealthyConditions:
  - {type: Ready, status: Unknown, timeout: 300s}
  - {type: Ready, status: "False", timeout: 300s}
---
apiVersion: cluster.x-k8s.io/v1beta1
kind: MachineSet
metadata: {name: quick-ms}
spec:
  clusterName: quick
  replicas: 1
  selector: {matchLabels: null}
  template:
    spec:
      clusterName: quick
      bootstrap: {dataSecretName: quick-ms-bootstrap}
      infrastructureRef: {apiVersion: infrastructure.cluster.x-k8s.io/v1beta1, kind: DockerMachineTemplate, name: quick-md-0}
---
apiVersion: cluster.x-k8s.io/v1beta1
kind: MachinePool
metadata: {name: quick-mp-0}
spec:
  clusterName: quick
  replicas: 2
  template:
    spec:
      clusterName: quick
      version: v1.37.2
      bootstrap:
        configRef: {apiVersion: bootstrap.cluster.x-k8s.io/v1beta1, kind: KubeadmConfig, name: quick-mp-0}
      infrastructureRef: {apiVersion: infrastructure.cluster.x-k8s.io/v1beta1, kind: DockerMachinePool, name: quick-mp-0}
---
apiVersion: cluster.x-k8s.io/v1beta1
kind: Machine
metadata: {name: quick-m}
spec:
  clusterName: quick
  bootstrap: {dataSecretName: quick-m-bootstrap}
  infrastructureRef: {apiVersion: infrastructure.cluster.x-k8s.io/v1beta1, kind: DockerMachine, name: quick-m}
`

// TestConversion_UpstreamStyleV1Beta1ObjectsAreAccepted creates each upstream-style v1beta1
// object through the conversion webhook and the v1beta2 admission (schema, CEL and the
// defaulting policies, which see the object converted): what upstream accepts must not be
// refused for a value the conversion made up (an empty struct, a zero where v1beta1 said
// nothing). Each is then read back at both versions.
func TestConversion_UpstreamStyleV1Beta1ObjectsAreAccepted(t *testing.T) {
	ctx := context.Background()
	stop, _ := startCoreWithWebhook(t, time.Hour)
	defer stop()
	ns := env.CreateNamespace(t, "upstream-style")
	for _, doc := range strings.Split(upstreamStyleV1Beta1, "\n---\n") {
		o := &unstructured.Unstructured{}
		require.NoError(t, yaml.Unmarshal([]byte(doc), &o.Object))
		o.SetNamespace(ns)
		what := o.GetKind() + " " + o.GetName()
		require.NoError(t, env.Client.Create(ctx, o), what)

		back := &unstructured.Unstructured{}
		back.SetGroupVersionKind(o.GroupVersionKind())
		require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(o), back), what+" at v1beta1")
		v2 := &unstructured.Unstructured{}
		v2.SetGroupVersionKind(o.GroupVersionKind().GroupKind().WithVersion("v1beta2"))
		require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(o), v2), what+" at v1beta2")
		if o.GetName() == "quick-md-0" {
			// The defaulting policies saw the object converted to v1beta2 and their result came back.
			labels, _, _ := unstructured.NestedStringMap(v2.Object, "spec", "selector", "matchLabels")
			require.Equal(t, "quick", labels["cluster.x-k8s.io/cluster-name"], "the selector got the cluster-name label: %v", v2.Object["spec"])
		}
		if o.GetName() == "go-client" {
			// Stored as v1beta2 says "unset", so v1beta2 writes of it validate; read back as written.
			_, hasEndpoint, _ := unstructured.NestedFieldNoCopy(v2.Object, "spec", "controlPlaneEndpoint")
			_, hasServices, _ := unstructured.NestedFieldNoCopy(v2.Object, "spec", "clusterNetwork", "services")
			require.False(t, hasEndpoint || hasServices, "v1beta2 holds no empty endpoint or ranges: %v", v2.Object["spec"])
			require.Equal(t, o.Object["spec"], back.Object["spec"], "v1beta1 reads back what it wrote")
		}
	}
}
