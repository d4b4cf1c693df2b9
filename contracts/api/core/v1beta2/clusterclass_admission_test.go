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
	"testing"

	"github.com/stretchr/testify/require"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
)

func templateRef(kind, name string) clusterv1.ClusterClassTemplateReference {
	return clusterv1.ClusterClassTemplateReference{APIVersion: "infrastructure.cluster.x-k8s.io/v1beta2", Kind: kind, Name: name}
}

// newClusterClass is a class using every part of the API once: a control plane with machine
// infrastructure and a health check, one MachineDeployment and one MachinePool class, a variable
// with a schema and an inline patch reading it.
func newClusterClass(ns string) *clusterv1.ClusterClass {
	return &clusterv1.ClusterClass{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "quick-start"},
		Spec: clusterv1.ClusterClassSpec{
			Infrastructure: clusterv1.InfrastructureClass{TemplateRef: templateRef("DevClusterTemplate", "infra")},
			ControlPlane: clusterv1.ControlPlaneClass{
				TemplateRef: clusterv1.ClusterClassTemplateReference{
					APIVersion: "controlplane.cluster.x-k8s.io/v1beta2", Kind: "KubeadmControlPlaneTemplate", Name: "cp"},
				MachineInfrastructure: clusterv1.ControlPlaneClassMachineInfrastructureTemplate{
					TemplateRef: templateRef("DevMachineTemplate", "cp-machines")},
				HealthCheck: clusterv1.ControlPlaneClassHealthCheck{Checks: clusterv1.HealthCheckChecks{NodeStartupTimeoutSeconds: ptr.To[int32](300)}},
				Naming:      clusterv1.NamingSpec{Template: "{{ .cluster.name }}-cp-{{ .random }}"},
			},
			Workers: clusterv1.WorkersClass{
				MachineDeployments: []clusterv1.MachineDeploymentClass{{
					Class: "default-worker",
					Bootstrap: clusterv1.WorkerClassBootstrapTemplate{TemplateRef: clusterv1.ClusterClassTemplateReference{
						APIVersion: "bootstrap.cluster.x-k8s.io/v1beta2", Kind: "KubeadmConfigTemplate", Name: "workers"}},
					Infrastructure: clusterv1.WorkerClassInfrastructureTemplate{TemplateRef: templateRef("DevMachineTemplate", "workers")},
					Deletion:       clusterv1.MachineDeploymentClassMachineDeletionSpec{Order: "Oldest"},
				}},
				MachinePools: []clusterv1.MachinePoolClass{{
					Class: "default-pool",
					Bootstrap: clusterv1.WorkerClassBootstrapTemplate{TemplateRef: clusterv1.ClusterClassTemplateReference{
						APIVersion: "bootstrap.cluster.x-k8s.io/v1beta2", Kind: "KubeadmConfigTemplate", Name: "pool"}},
					Infrastructure: clusterv1.WorkerClassInfrastructureTemplate{TemplateRef: templateRef("DevMachinePoolTemplate", "pool")},
				}},
			},
			Variables: []clusterv1.ClusterClassVariable{{
				Name: "imageRepository", Required: ptr.To(true),
				Schema: clusterv1.VariableSchema{OpenAPIV3Schema: clusterv1.JSONSchemaProps{
					Type: "string", Default: &apiextensionsv1.JSON{Raw: []byte(`"registry.k8s.io"`)}}},
			}},
			Patches: []clusterv1.ClusterClassPatch{{
				Name: "imageRepository",
				Definitions: []clusterv1.PatchDefinition{{
					Selector: clusterv1.PatchSelector{
						APIVersion: "controlplane.cluster.x-k8s.io/v1beta2", Kind: "KubeadmControlPlaneTemplate",
						MatchResources: clusterv1.PatchSelectorMatch{ControlPlane: ptr.To(true)}},
					JSONPatches: []clusterv1.JSONPatch{{
						Op: "add", Path: "/spec/template/spec/kubeadmConfigSpec/clusterConfiguration/imageRepository",
						ValueFrom: &clusterv1.JSONPatchValue{Variable: "imageRepository"}}},
				}},
			}},
			KubernetesVersions: []string{"v1.36.4", "v1.37.2"},
		},
	}
}

func newTopologyCluster(ns string) *clusterv1.Cluster {
	return &clusterv1.Cluster{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: clusterName},
		Spec: clusterv1.ClusterSpec{Topology: clusterv1.Topology{
			ClassRef: clusterv1.ClusterClassRef{Name: "quick-start"},
			Version:  "v1.37.2",
			ControlPlane: clusterv1.ControlPlaneTopology{Replicas: ptr.To[int32](1),
				HealthCheck: clusterv1.ControlPlaneTopologyHealthCheck{Enabled: ptr.To(false)}},
			Workers: clusterv1.WorkersTopology{MachineDeployments: []clusterv1.MachineDeploymentTopology{
				{Class: "default-worker", Name: "md-0", Replicas: ptr.To[int32](2)}}},
			Variables: []clusterv1.ClusterVariable{{Name: "imageRepository", Value: apiextensionsv1.JSON{Raw: []byte(`"example.org"`)}}},
		}},
	}
}

// TestAdmission_ClusterClassAndTopologyAreStoredAsSent: a full class and a topology Cluster are
// accepted and round-trip unchanged, so no field is pruned or renamed.
func TestAdmission_ClusterClassAndTopologyAreStoredAsSent(t *testing.T) {
	ns := env.CreateNamespace(t, "cc")
	env.RequireStoredAsSent(t, newClusterClass(ns), func(o client.Object) any { return o.(*clusterv1.ClusterClass).Spec })
	env.RequireStoredAsSent(t, newTopologyCluster(ns), func(o client.Object) any { return o.(*clusterv1.Cluster).Spec })
}

// TestAdmission_RejectsInvalidClusterClasses: each CEL rule and bound of the class refuses a bad
// value with its field path and message.
func TestAdmission_RejectsInvalidClusterClasses(t *testing.T) {
	tests := []struct {
		name         string
		mutate       func(cc *clusterv1.ClusterClass)
		wantMessages []string
	}{
		{"MissingInfrastructureTemplateRef", func(cc *clusterv1.ClusterClass) {
			cc.Spec.Infrastructure.TemplateRef = clusterv1.ClusterClassTemplateReference{}
		}, []string{"spec.infrastructure", "Required value"}},
		{"DuplicateMachineDeploymentClass", func(cc *clusterv1.ClusterClass) {
			cc.Spec.Workers.MachineDeployments = append(cc.Spec.Workers.MachineDeployments, cc.Spec.Workers.MachineDeployments[0])
		}, []string{"spec.workers.machineDeployments[1]", "Duplicate value", `"default-worker"`}},
		{"MachinePoolClassNameNotADNSName", func(cc *clusterv1.ClusterClass) {
			cc.Spec.Workers.MachinePools[0].Class = "Default_Pool"
		}, []string{"spec.workers.machinePools[0].class", `class "Default_Pool" is not a valid class name`}},
		{"DuplicateVariable", func(cc *clusterv1.ClusterClass) {
			cc.Spec.Variables = append(cc.Spec.Variables, cc.Spec.Variables[0])
		}, []string{"spec.variables[1]", "Duplicate value"}},
		{"VariableNamedBuiltin", func(cc *clusterv1.ClusterClass) { cc.Spec.Variables[0].Name = "builtin" },
			[]string{"spec.variables[0].name", `variable name "builtin" is reserved`}},
		{"VariableNameWithADot", func(cc *clusterv1.ClusterClass) { cc.Spec.Variables[0].Name = "image.repository" },
			[]string{"spec.variables[0].name", `contains a dot`, `"image-repository"`}},
		{"VariableWithoutRequired", func(cc *clusterv1.ClusterClass) { cc.Spec.Variables[0].Required = nil },
			[]string{"spec.variables[0].required", "Required value"}},
		{"VariableSchemaTypeUnknown", func(cc *clusterv1.ClusterClass) { cc.Spec.Variables[0].Schema.OpenAPIV3Schema.Type = "map" },
			[]string{"spec.variables[0].schema.openAPIV3Schema.type", "Unsupported value"}},
		{"PatchWithBothDefinitionsAndExternal", func(cc *clusterv1.ClusterClass) {
			cc.Spec.Patches[0].External = &clusterv1.ExternalPatchDefinition{GeneratePatchesExtension: "gen"}
		}, []string{"spec.patches[0]", "exactly one of definitions"}},
		{"PatchPathOutsideSpec", func(cc *clusterv1.ClusterClass) {
			cc.Spec.Patches[0].Definitions[0].JSONPatches[0].Path = "/metadata/labels"
		}, []string{"spec.patches[0].definitions[0].jsonPatches[0].path", "should match"}},
		{"PatchPathWithAnIndexOtherThanZero", func(cc *clusterv1.ClusterClass) {
			cc.Spec.Patches[0].Definitions[0].JSONPatches[0].Path = "/spec/template/spec/files/2"
		}, []string{"spec.patches[0].definitions[0].jsonPatches[0].path", "should match"}},
		{"ValueFromWithVariableAndTemplate", func(cc *clusterv1.ClusterClass) {
			cc.Spec.Patches[0].Definitions[0].JSONPatches[0].ValueFrom.Template = "{{ .imageRepository }}"
		}, []string{"spec.patches[0].definitions[0].jsonPatches[0].valueFrom", "must have at most 1 item"}},
		{"SelectorMatchingNothing", func(cc *clusterv1.ClusterClass) {
			cc.Spec.Patches[0].Definitions[0].Selector.MatchResources = clusterv1.PatchSelectorMatch{}
		}, []string{"spec.patches[0].definitions[0].selector.matchResources"}},
		{"SelectorClassNamePatternWithAStarInTheMiddle", func(cc *clusterv1.ClusterClass) {
			cc.Spec.Patches[0].Definitions[0].Selector.MatchResources.MachineDeploymentClass =
				&clusterv1.PatchSelectorMatchClasses{Names: []string{"default-*-worker"}}
		}, []string{"machineDeploymentClass.names[0]", "should match"}},
		{"ControlPlaneHealthCheckWithoutMachineInfrastructure", func(cc *clusterv1.ClusterClass) {
			cc.Spec.ControlPlane.MachineInfrastructure = clusterv1.ControlPlaneClassMachineInfrastructureTemplate{}
		}, []string{"spec.controlPlane.healthCheck", "needs controlPlane.machineInfrastructure"}},
		{"KubernetesVersionNotSemver", func(cc *clusterv1.ClusterClass) { cc.Spec.KubernetesVersions = []string{"1.37"} },
			[]string{"spec.kubernetesVersions[0]"}},
		{"KubernetesVersionsWithAGap", func(cc *clusterv1.ClusterClass) {
			cc.Spec.KubernetesVersions = []string{"v1.34.1", "v1.36.2", "v1.37.2"}
		},
			[]string{"spec.kubernetesVersions", "at least one version of every minor version between the first and the last"}},
		{"KubernetesVersionsOutOfOrder", func(cc *clusterv1.ClusterClass) {
			cc.Spec.KubernetesVersions = []string{"v1.36.2", "v1.36.0", "v1.37.2"}
		},
			[]string{"spec.kubernetesVersions", "must be strictly increasing, oldest first"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cc := newClusterClass(env.CreateNamespace(t, "cc"))
			tt.mutate(cc)
			env.RequireInvalid(t, cc, tt.wantMessages...)
		})
	}
}

// TestAdmission_AcceptsClusterClassesAtTheEdgeOfEachRule: the values just inside the rules above.
func TestAdmission_AcceptsClusterClassesAtTheEdgeOfEachRule(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(cc *clusterv1.ClusterClass)
	}{
		{"AddPrependsAndAppends", func(cc *clusterv1.ClusterClass) {
			p := cc.Spec.Patches[0].Definitions[0].JSONPatches[0]
			p0, pEnd := p, p
			p0.Path, pEnd.Path = "/spec/template/spec/files/0", "/spec/template/spec/files/-"
			cc.Spec.Patches[0].Definitions[0].JSONPatches = []clusterv1.JSONPatch{p0, pEnd}
		}},
		{"RemoveWithoutValue", func(cc *clusterv1.ClusterClass) {
			cc.Spec.Patches[0].Definitions[0].JSONPatches = []clusterv1.JSONPatch{{Op: "remove", Path: "/spec/template/spec/files"}}
		}},
		{"ClassNamePatterns", func(cc *clusterv1.ClusterClass) {
			cc.Spec.Patches[0].Definitions[0].Selector.MatchResources.MachineDeploymentClass =
				&clusterv1.PatchSelectorMatchClasses{Names: []string{"*", "default-*", "*-worker", "default-worker"}}
		}},
		{"GenerateUpgradePlanExtension", func(cc *clusterv1.ClusterClass) {
			cc.Spec.Upgrade.External.GenerateUpgradePlanExtension = "upgrade-plans.example"
		}},
		{"ExternalPatch", func(cc *clusterv1.ClusterClass) {
			cc.Spec.Patches[0].Definitions = nil
			cc.Spec.Patches[0].External = &clusterv1.ExternalPatchDefinition{ValidateTopologyExtension: "validate"}
		}},
		{"ControlPlaneWithoutMachines", func(cc *clusterv1.ClusterClass) {
			cc.Spec.ControlPlane.MachineInfrastructure = clusterv1.ControlPlaneClassMachineInfrastructureTemplate{}
			cc.Spec.ControlPlane.HealthCheck = clusterv1.ControlPlaneClassHealthCheck{}
		}},
		{"KubernetesVersionsWithSeveralPatchesAndTheVPrefixMixed", func(cc *clusterv1.ClusterClass) {
			cc.Spec.KubernetesVersions = []string{"v1.34.1", "1.35.0", "v1.35.3", "v1.36.2", "1.37.2"}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cc := newClusterClass(env.CreateNamespace(t, "cc"))
			tt.mutate(cc)
			require.NoError(t, env.Client.Create(context.Background(), cc))
		})
	}
}

// TestAdmission_RejectsInvalidTopologies: the Cluster side of the topology API.
func TestAdmission_RejectsInvalidTopologies(t *testing.T) {
	tests := []struct {
		name         string
		mutate       func(c *clusterv1.Cluster)
		wantMessages []string
	}{
		{"NeitherTopologyNorRefs", func(c *clusterv1.Cluster) {
			c.Spec.Topology = clusterv1.Topology{}
			c.Spec.ClusterNetwork.ServiceDomain = "cluster.local"
		}, []string{"spec says nothing that builds the cluster: set topology", "infrastructureRef and controlPlaneRef"}},
		{"WithoutClassRef", func(c *clusterv1.Cluster) { c.Spec.Topology.ClassRef = clusterv1.ClusterClassRef{} },
			[]string{"spec.topology.classRef", "Required value"}},
		{"ClassRefNameNotAName", func(c *clusterv1.Cluster) { c.Spec.Topology.ClassRef.Name = "Quick_Start" },
			[]string{"spec.topology.classRef.name", `classRef.name "Quick_Start" is not an object name`}},
		{"VersionNotSemver", func(c *clusterv1.Cluster) { c.Spec.Topology.Version = "1.37" },
			[]string{"spec.topology.version", `version "1.37" is not a semantic version`}},
		{"WithoutVersion", func(c *clusterv1.Cluster) { c.Spec.Topology.Version = "" },
			[]string{"spec.topology.version", "Required value"}},
		{"DuplicateMachineDeploymentName", func(c *clusterv1.Cluster) {
			mds := &c.Spec.Topology.Workers.MachineDeployments
			*mds = append(*mds, (*mds)[0])
		}, []string{"spec.topology.workers.machineDeployments[1]", "Duplicate value"}},
		{"MachineDeploymentNameNotAName", func(c *clusterv1.Cluster) {
			c.Spec.Topology.Workers.MachineDeployments[0].Name = "MD 0"
		}, []string{"spec.topology.workers.machineDeployments[0].name", `name "MD 0" is not a valid topology name`}},
		{"DuplicateVariable", func(c *clusterv1.Cluster) {
			c.Spec.Topology.Variables = append(c.Spec.Topology.Variables, c.Spec.Topology.Variables[0])
		}, []string{"spec.topology.variables[1]", "Duplicate value"}},
		{"NegativeReplicas", func(c *clusterv1.Cluster) { c.Spec.Topology.ControlPlane.Replicas = ptr.To[int32](-1) },
			[]string{"spec.topology.controlPlane.replicas"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newTopologyCluster(env.CreateNamespace(t, "topology"))
			tt.mutate(c)
			env.RequireInvalid(t, c, tt.wantMessages...)
		})
	}
}

// TestAdmission_TopologyIsFixedAtCreation: a topology Cluster stays one (it may still get refs, as
// the topology controller sets them), and a Cluster built from refs cannot become one.
func TestAdmission_TopologyIsFixedAtCreation(t *testing.T) {
	ctx := context.Background()
	ns := env.CreateNamespace(t, "topology")
	c := newTopologyCluster(ns)
	c.Spec.Topology.Version = "1.37.2" // upstream's webhook adds the v; both forms are semver
	require.NoError(t, env.Client.Create(ctx, c))
	c.Spec.InfrastructureRef = infraRef("DevCluster", "generated")
	require.NoError(t, env.Client.Update(ctx, c), "the topology controller sets the refs of a topology Cluster")

	c.Spec.Topology = clusterv1.Topology{}
	err := env.Client.Update(ctx, c)
	require.True(t, apierrors.IsInvalid(err), "want Invalid, got %v", err)
	require.Contains(t, err.Error(), "spec.topology: Invalid value")
	require.Contains(t, err.Error(), "spec.topology cannot be removed from an existing Cluster")

	plain := newCluster(ns)
	plain.Name = "plain"
	require.NoError(t, env.Client.Create(ctx, plain))
	plain.Spec.Topology = newTopologyCluster(ns).Spec.Topology
	err = env.Client.Update(ctx, plain)
	require.True(t, apierrors.IsInvalid(err), "want Invalid, got %v", err)
	require.Contains(t, err.Error(), "spec.topology cannot be added to an existing Cluster")
}

// TestAdmission_ClassUpdatesKeepTheirTemplateKinds: as upstream's ClusterClass webhook, an update
// may point a class at other templates of the same kind and API group, but not change the kind or
// group of the infrastructure, control plane, control plane machine or a surviving worker class's
// infrastructure template, nor add or remove the control plane's machine infrastructure.
func TestAdmission_ClassUpdatesKeepTheirTemplateKinds(t *testing.T) {
	ctx := context.Background()
	ns := env.CreateNamespace(t, "cc")
	cc := newClusterClass(ns)
	require.NoError(t, env.Client.Create(ctx, cc))
	tests := []struct {
		name   string
		mutate func(cc *clusterv1.ClusterClass)
		want   []string // nil: accepted
	}{
		{"OtherTemplatesOfTheSameKinds", func(cc *clusterv1.ClusterClass) {
			cc.Spec.Infrastructure.TemplateRef.Name = "infra-v2"
			cc.Spec.ControlPlane.MachineInfrastructure.TemplateRef.Name = "cp-machines-v2"
			cc.Spec.Workers.MachineDeployments[0].Infrastructure.TemplateRef.Name = "workers-v2"
			cc.Spec.Workers.MachineDeployments[0].Infrastructure.TemplateRef.APIVersion = "infrastructure.cluster.x-k8s.io/v1beta1"
		}, nil},
		{"InfrastructureKind", func(cc *clusterv1.ClusterClass) { cc.Spec.Infrastructure.TemplateRef.Kind = "DockerClusterTemplate" },
			[]string{"spec.infrastructure.templateRef", "the template kind and API group cannot change (it was DevClusterTemplate of infrastructure.cluster.x-k8s.io)"}},
		{"ControlPlaneGroup", func(cc *clusterv1.ClusterClass) {
			cc.Spec.ControlPlane.TemplateRef.APIVersion = "controlplane.example.com/v1beta2"
		}, []string{"spec.controlPlane.templateRef", "it was KubeadmControlPlaneTemplate of controlplane.cluster.x-k8s.io"}},
		{"ControlPlaneMachineKind", func(cc *clusterv1.ClusterClass) {
			cc.Spec.ControlPlane.MachineInfrastructure.TemplateRef.Kind = "DockerMachineTemplate"
		}, []string{"spec.controlPlane.machineInfrastructure.templateRef", "it was DevMachineTemplate"}},
		{"ControlPlaneMachinesRemoved", func(cc *clusterv1.ClusterClass) {
			cc.Spec.ControlPlane.MachineInfrastructure = clusterv1.ControlPlaneClassMachineInfrastructureTemplate{}
			cc.Spec.ControlPlane.HealthCheck = clusterv1.ControlPlaneClassHealthCheck{}
		}, []string{"spec.controlPlane.machineInfrastructure", "cannot be added or removed"}},
		{"WorkerClassInfrastructureKind", func(cc *clusterv1.ClusterClass) {
			cc.Spec.Workers.MachineDeployments[0].Infrastructure.TemplateRef.Kind = "DockerMachineTemplate"
		}, []string{"spec.workers.machineDeployments[0].infrastructure.templateRef", "it was DevMachineTemplate"}},
		{"WorkerClassReplacedUnderAnotherName", func(cc *clusterv1.ClusterClass) {
			cc.Spec.Workers.MachineDeployments[0].Class = "docker-worker"
			cc.Spec.Workers.MachineDeployments[0].Infrastructure.TemplateRef.Kind = "DockerMachineTemplate"
		}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cur := &clusterv1.ClusterClass{}
			require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(cc), cur))
			tt.mutate(cur)
			err := env.Client.Update(ctx, cur, client.DryRunAll)
			if tt.want == nil {
				require.NoError(t, err)
				return
			}
			require.True(t, apierrors.IsInvalid(err), "want Invalid, got %v", err)
			for _, msg := range tt.want {
				require.Contains(t, err.Error(), msg)
			}
		})
	}
}
