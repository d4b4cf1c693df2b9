/*
Copyright 2026 The Capstan Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package v1beta2_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
)

// The tests below send objects written as upstream users write them (YAML that relies on
// upstream's defaulting webhooks) to the real API server, which runs the core's
// MutatingAdmissionPolicies (contracts/config/admission), and read back what was stored.

const (
	minSizeAnnotation = "cluster.x-k8s.io/cluster-api-autoscaler-node-group-min-size"
	maxSizeAnnotation = "cluster.x-k8s.io/cluster-api-autoscaler-node-group-max-size"
)

// machineTemplateYAML is an upstream-style Machine template: no labels, a version without "v".
const machineTemplateYAML = `
  template:
    spec:
      clusterName: c1
      version: 1.37.2
      bootstrap:
        dataSecretName: bootstrap-data
      infrastructureRef:
        apiGroup: infrastructure.cluster.x-k8s.io
        kind: DevMachineTemplate
        name: workers
`

// withTemplate is an upstream-style object of kind with the given metadata lines (indented by
// two spaces), spec.clusterName c1 and machineTemplateYAML.
func withTemplate(kind, metadata string) string {
	return "apiVersion: cluster.x-k8s.io/v1beta2\nkind: " + kind + "\nmetadata:\n" + metadata + "\nspec:\n  clusterName: c1" + machineTemplateYAML
}

// upstreamMachine is an upstream-style Machine named name: no labels, a version without "v".
func upstreamMachine(name string) string {
	return `
apiVersion: cluster.x-k8s.io/v1beta2
kind: Machine
metadata:
  name: ` + name + `
spec:
  clusterName: c1
  version: 1.37.2
  bootstrap:
    dataSecretName: bootstrap-data
  infrastructureRef:
    apiGroup: infrastructure.cluster.x-k8s.io
    kind: DevMachine
    name: ` + name + "\n"
}

// create sends doc (YAML of one object, without namespace) to the API server in ns and reads
// what was stored into into.
func create(t *testing.T, ns, doc string, into client.Object) {
	t.Helper()
	u := &unstructured.Unstructured{}
	require.NoError(t, yaml.Unmarshal([]byte(doc), &u.Object))
	u.SetNamespace(ns)
	require.NoError(t, env.Client.Create(context.Background(), u))
	require.NoError(t, env.Client.Get(context.Background(), client.ObjectKeyFromObject(u), into))
}

// A MachineDeployment or MachineSet without a selector selects its own objects by the cluster-name
// label and a label of its own name, as upstream's webhooks default it (the rollout strategy of a
// MachineDeployment is a CRD default, see TestMachineDeployment_DefaultsRollout*).
func TestDefaulting_WithoutSelectorGetsClusterAndOwnNameLabels(t *testing.T) {
	ns := env.CreateNamespace(t, "defaults")
	for _, tc := range []struct {
		kind, nameLabel string
		obj             client.Object
		parts           func(client.Object) (clusterv1.LabelSelector, clusterv1.MachineTemplateSpec, *int32)
	}{
		{"MachineDeployment", clusterv1.MachineDeploymentNameLabel, &clusterv1.MachineDeployment{},
			func(o client.Object) (clusterv1.LabelSelector, clusterv1.MachineTemplateSpec, *int32) {
				md := o.(*clusterv1.MachineDeployment)
				return md.Spec.Selector, md.Spec.Template, md.Spec.Replicas
			}},
		{"MachineSet", clusterv1.MachineSetNameLabel, &clusterv1.MachineSet{},
			func(o client.Object) (clusterv1.LabelSelector, clusterv1.MachineTemplateSpec, *int32) {
				ms := o.(*clusterv1.MachineSet)
				return ms.Spec.Selector, ms.Spec.Template, ms.Spec.Replicas
			}},
	} {
		t.Run(tc.kind, func(t *testing.T) {
			create(t, ns, withTemplate(tc.kind, "  name: workers-0"), tc.obj)
			selector, template, replicas := tc.parts(tc.obj)
			want := map[string]string{clusterv1.ClusterNameLabel: "c1", tc.nameLabel: "workers-0"}
			require.Equal(t, want, selector.MatchLabels)
			require.Equal(t, want, template.Labels)
			require.Equal(t, "c1", tc.obj.GetLabels()[clusterv1.ClusterNameLabel])
			require.Equal(t, ptr.To[int32](1), replicas)
			require.Equal(t, "v1.37.2", template.Spec.Version)
		})
	}
}

func TestDefaulting_MachineDeploymentWithSelectorGetsOnlyTheClusterNameLabel(t *testing.T) {
	md := &clusterv1.MachineDeployment{}
	create(t, env.CreateNamespace(t, "defaults"), `
apiVersion: cluster.x-k8s.io/v1beta2
kind: MachineDeployment
metadata:
  name: md-0
spec:
  clusterName: c1
  replicas: 3
  selector:
    matchLabels:
      pool: a
  template:
    metadata:
      labels:
        pool: a
    spec:
      clusterName: c1
      bootstrap:
        dataSecretName: bootstrap-data
      infrastructureRef:
        apiGroup: infrastructure.cluster.x-k8s.io
        kind: DevMachineTemplate
        name: workers
`, md)

	want := map[string]string{clusterv1.ClusterNameLabel: "c1", "pool": "a"}
	require.Equal(t, want, md.Spec.Selector.MatchLabels)
	require.Equal(t, want, md.Spec.Template.Labels)
	require.Equal(t, ptr.To[int32](3), md.Spec.Replicas, "replicas that are set are kept")
	require.Empty(t, md.Spec.Template.Spec.Version)
}

// A name that is no label value cannot be the deployment-name label: the selector stays empty
// (the controller then selects by a hash of the name) and the object is still accepted.
func TestDefaulting_MachineDeploymentWithALongNameKeepsAnEmptySelector(t *testing.T) {
	name := "md-" + strings.Repeat("x", 70)
	md := &clusterv1.MachineDeployment{}
	create(t, env.CreateNamespace(t, "defaults"), withTemplate("MachineDeployment", "  name: "+name), md)

	require.True(t, md.Spec.Selector.IsEmpty(), "selector %+v", md.Spec.Selector)
	require.Equal(t, map[string]string{clusterv1.ClusterNameLabel: "c1"}, md.Spec.Template.Labels)
}

// With both cluster-autoscaler annotations, unset replicas become the minimum size on create and,
// on update, the old replicas brought within [min, max], as upstream's webhook does.
func TestDefaulting_ReplicasFollowTheAutoscalerAnnotations(t *testing.T) {
	ctx := context.Background()
	md := &clusterv1.MachineDeployment{}
	create(t, env.CreateNamespace(t, "defaults"), withTemplate("MachineDeployment", `  name: md-0
  annotations:
    `+minSizeAnnotation+`: "2"
    `+maxSizeAnnotation+`: "5"`), md)
	require.Equal(t, ptr.To[int32](2), md.Spec.Replicas, "a new MachineDeployment starts at the minimum size")

	for _, tt := range []struct{ old, want int32 }{{7, 5}, {3, 3}, {1, 2}} {
		md.Spec.Replicas = ptr.To(tt.old)
		require.NoError(t, env.Client.Update(ctx, md))
		md.Spec.Replicas = nil // what `kubectl apply` of a manifest without replicas sends
		require.NoError(t, env.Client.Update(ctx, md))
		require.Equal(t, ptr.To(tt.want), md.Spec.Replicas, "old replicas %d", tt.old)
	}
}

func TestDefaulting_MachinePoolGetsLabelsReplicasDeletionTimeoutAndVersion(t *testing.T) {
	mp := &clusterv1.MachinePool{}
	create(t, env.CreateNamespace(t, "defaults"), withTemplate("MachinePool", "  name: mp-0"), mp)

	require.Equal(t, "c1", mp.Labels[clusterv1.ClusterNameLabel])
	require.Equal(t, map[string]string{clusterv1.ClusterNameLabel: "c1"}, mp.Spec.Template.Labels)
	require.Equal(t, ptr.To[int32](1), mp.Spec.Replicas)
	require.Equal(t, ptr.To[int32](10), mp.Spec.Template.Spec.Deletion.NodeDeletionTimeoutSeconds)
	require.Equal(t, "v1.37.2", mp.Spec.Template.Spec.Version)
}

func TestDefaulting_MachineGetsTheClusterNameLabelAndAVersionPrefix(t *testing.T) {
	ctx := context.Background()
	m := &clusterv1.Machine{}
	create(t, env.CreateNamespace(t, "defaults"), upstreamMachine("m-0"), m)
	require.Equal(t, "c1", m.Labels[clusterv1.ClusterNameLabel])
	require.Equal(t, "v1.37.2", m.Spec.Version)
	require.Nil(t, m.Spec.Deletion.NodeDeletionTimeoutSeconds, "the Machine controller applies the 10s default itself")

	// A label removed by an update comes back: every write is defaulted.
	delete(m.Labels, clusterv1.ClusterNameLabel)
	require.NoError(t, env.Client.Update(ctx, m))
	require.Equal(t, "c1", m.Labels[clusterv1.ClusterNameLabel])
}

// A topology Cluster written as upstream's quick start writes it (version without "v") is stored
// with the "v", as upstream's Cluster webhook defaults it; on update too.
func TestDefaulting_ClusterTopologyVersionGetsAVersionPrefix(t *testing.T) {
	ctx := context.Background()
	c := &clusterv1.Cluster{}
	create(t, env.CreateNamespace(t, "defaults"), `
apiVersion: cluster.x-k8s.io/v1beta2
kind: Cluster
metadata:
  name: c1
spec:
  topology:
    classRef:
      name: quick-start
    version: 1.37.2
    controlPlane:
      replicas: 1
`, c)
	require.Equal(t, "v1.37.2", c.Spec.Topology.Version)

	c.Spec.Topology.Version = "1.38.0-rc.1"
	require.NoError(t, env.Client.Update(ctx, c))
	require.Equal(t, "v1.38.0-rc.1", c.Spec.Topology.Version)

	// A Cluster without a topology passes the policy untouched.
	plain := &clusterv1.Cluster{}
	create(t, c.Namespace, `
apiVersion: cluster.x-k8s.io/v1beta2
kind: Cluster
metadata:
  name: plain
spec:
  infrastructureRef:
    apiGroup: infrastructure.cluster.x-k8s.io
    kind: DevCluster
    name: plain
`, plain)
	require.False(t, plain.Spec.Topology.IsDefined())
}

func TestDefaulting_MachineHealthCheckGetsTheClusterNameLabel(t *testing.T) {
	mhc := &clusterv1.MachineHealthCheck{}
	create(t, env.CreateNamespace(t, "defaults"), `
apiVersion: cluster.x-k8s.io/v1beta2
kind: MachineHealthCheck
metadata:
  name: mhc-0
spec:
  clusterName: c1
  selector:
    matchLabels:
      pool: a
`, mhc)
	require.Equal(t, "c1", mhc.Labels[clusterv1.ClusterNameLabel])
	require.Equal(t, ptr.To(clusterv1.DefaultNodeStartupTimeoutSeconds), mhc.Spec.Checks.NodeStartupTimeoutSeconds)
}

// A version that is not a version gets no "v" and the CRD's own message, and an object missing
// what the policies read is refused by the CRD's validation, not by a policy error.
func TestDefaulting_InvalidObjectsGetTheSchemasMessagesNotPolicyErrors(t *testing.T) {
	ns := env.CreateNamespace(t, "defaults")
	tests := []struct {
		name, doc    string
		wantMessages []string
	}{
		{
			name: "VersionThatIsNoVersion",
			doc: `
apiVersion: cluster.x-k8s.io/v1beta2
kind: Machine
metadata:
  name: m-latest
spec:
  clusterName: c1
  version: latest
  bootstrap:
    dataSecretName: bootstrap-data
  infrastructureRef:
    apiGroup: infrastructure.cluster.x-k8s.io
    kind: DevMachine
    name: m-0
`,
			wantMessages: []string{`version "latest" is not a Kubernetes version`},
		},
		{
			name: "MachineDeploymentWithoutClusterNameAndTemplate",
			doc: `
apiVersion: cluster.x-k8s.io/v1beta2
kind: MachineDeployment
metadata:
  name: md-empty
spec:
  replicas: 1
`,
			wantMessages: []string{"spec.clusterName: Required value", "spec.template: Required value"},
		},
		{
			name: "MachinePoolWithoutSpec",
			doc: `
apiVersion: cluster.x-k8s.io/v1beta2
kind: MachinePool
metadata:
  name: mp-empty
`,
			wantMessages: []string{"spec: Required value"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u := &unstructured.Unstructured{}
			require.NoError(t, yaml.Unmarshal([]byte(tt.doc), &u.Object))
			u.SetNamespace(ns)
			err := env.Client.Create(context.Background(), u)
			require.Error(t, err)
			for _, msg := range tt.wantMessages {
				require.ErrorContains(t, err, msg)
			}
			require.NotContains(t, err.Error(), "policy", "a policy must tolerate what the schema refuses")
		})
	}
}

// With generateName the API server picks the name after admission, so the policy cannot write
// it into a label: the selector stays empty (the controller then selects what it created by the
// name it finds) instead of upstream's deployment-name label with an empty value.
func TestDefaulting_MachineDeploymentWithGenerateNameKeepsAnEmptySelector(t *testing.T) {
	md := &clusterv1.MachineDeployment{}
	create(t, env.CreateNamespace(t, "defaults"), withTemplate("MachineDeployment", "  generateName: md-"), md)
	require.True(t, md.Spec.Selector.IsEmpty(), "selector %+v", md.Spec.Selector)
	require.Equal(t, map[string]string{clusterv1.ClusterNameLabel: "c1"}, md.Spec.Template.Labels)
}
