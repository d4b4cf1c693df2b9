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
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	infrav1 "capstan.dev/infrastructure-docker/api/v1beta2"
)

// TestAdmission_RejectsInvalidObjects sends one invalid object per admission rule to the real
// apiserver and checks that it is refused with the rule's own message, so that users get an
// actionable error without any webhook running.
func TestAdmission_RejectsInvalidObjects(t *testing.T) {
	tests := []struct {
		name string
		obj  func(t *testing.T, ns string) client.Object
		// wantMessages must all appear in the apiserver's error.
		wantMessages []string
	}{
		{
			name: "ExtraMountWithRelativeContainerPath",
			obj: func(_ *testing.T, ns string) client.Object {
				dm := newDockerMachine(ns)
				dm.Spec.ExtraMounts = []infrav1.Mount{{ContainerPath: "opt/data", HostPath: "/srv/data"}}
				return dm
			},
			wantMessages: []string{`spec.extraMounts[0].containerPath: Invalid value: "opt/data": containerPath "opt/data" is relative: write an absolute path inside the container, e.g. /opt/data`},
		},
		{
			name: "ExtraMountOverVar",
			obj: func(_ *testing.T, ns string) client.Object {
				dm := newDockerMachine(ns)
				dm.Spec.ExtraMounts = []infrav1.Mount{{ContainerPath: "/var"}}
				return dm
			},
			wantMessages: []string{`containerPath "/var" is reserved: the provider mounts the node volume at /var`},
		},
		{
			name: "ExtraMountWithRelativeHostPath",
			obj: func(_ *testing.T, ns string) client.Object {
				dmt := newDockerMachineTemplate(ns)
				dmt.Spec.Template.Spec.ExtraMounts = []infrav1.Mount{{ContainerPath: "/opt/data", HostPath: "data"}}
				return dmt
			},
			wantMessages: []string{`spec.template.spec.extraMounts[0].hostPath`, `hostPath "data" is relative: write an absolute path on the Docker host`},
		},
		{
			name: "ExtraMountContainerPathTwice",
			obj: func(_ *testing.T, ns string) client.Object {
				dm := newDockerMachine(ns)
				dm.Spec.ExtraMounts = []infrav1.Mount{{ContainerPath: "/opt/a"}, {ContainerPath: "/opt/a", HostPath: "/srv/a"}}
				return dm
			},
			wantMessages: []string{"spec.extraMounts[1]: Duplicate value", `"containerPath":"/opt/a"`},
		},
		{
			name: "BootstrapTimeoutNegative",
			obj: func(t *testing.T, ns string) client.Object {
				return env.WithField(t, newDockerMachine(ns), "-5m", "spec", "bootstrapTimeout")
			},
			wantMessages: []string{`spec.bootstrapTimeout: Invalid value: "-5m": bootstrapTimeout "-5m" is not a positive duration: write a Go duration such as 90s, 5m or 1h30m`},
		},
		{
			name: "BootstrapTimeoutZero",
			obj: func(_ *testing.T, ns string) client.Object {
				dm := newDockerMachine(ns)
				dm.Spec.BootstrapTimeout = &metav1.Duration{}
				return dm
			},
			wantMessages: []string{`bootstrapTimeout "0s" is not a positive duration`},
		},
		{
			name: "BootstrapTimeoutNotADuration",
			obj: func(t *testing.T, ns string) client.Object {
				return env.WithField(t, newDockerMachineTemplate(ns), "five minutes", "spec", "template", "spec", "bootstrapTimeout")
			},
			wantMessages: []string{`spec.template.spec.bootstrapTimeout`, `bootstrapTimeout "five minutes" is not a positive duration`},
		},
		{
			name: "TemplateWithProviderID",
			obj: func(_ *testing.T, ns string) client.Object {
				dmt := newDockerMachineTemplate(ns)
				dmt.Spec.Template.Spec.ProviderID = "docker:////x"
				return dmt
			},
			wantMessages: []string{"spec.template.spec: Invalid value", "providerID must not be set in a template"},
		},
		{
			name: "PreLoadImageTwice",
			obj: func(_ *testing.T, ns string) client.Object {
				dm := newDockerMachine(ns)
				dm.Spec.PreLoadImages = []string{"app:v1", "app:v1"}
				return dm
			},
			wantMessages: []string{"spec.preLoadImages[1]: Duplicate value"},
		},
		{
			name: "PoolExtraMountWithRelativeContainerPath",
			obj: func(_ *testing.T, ns string) client.Object {
				dmp := newDockerMachinePool(ns)
				dmp.Spec.Template.ExtraMounts = []infrav1.Mount{{ContainerPath: "opt/data"}}
				return dmp
			},
			wantMessages: []string{`spec.template.extraMounts[0].containerPath: Invalid value: "opt/data": containerPath "opt/data" is relative`},
		},
		{
			name: "PoolTemplateExtraMountOverVar",
			obj: func(_ *testing.T, ns string) client.Object {
				dmpt := newDockerMachinePoolTemplate(ns)
				dmpt.Spec.Template.Spec.Template.ExtraMounts = []infrav1.Mount{{ContainerPath: "/var/"}}
				return dmpt
			},
			wantMessages: []string{`spec.template.spec.template.extraMounts[0].containerPath`, `containerPath "/var/" is reserved`},
		},
		{
			name: "PoolPreLoadImageTwice",
			obj: func(_ *testing.T, ns string) client.Object {
				dmp := newDockerMachinePool(ns)
				dmp.Spec.Template.PreLoadImages = []string{"app:v1", "app:v1"}
				return dmp
			},
			wantMessages: []string{"spec.template.preLoadImages[1]: Duplicate value"},
		},
		{
			name: "PoolTemplateWithProviderIDList",
			obj: func(_ *testing.T, ns string) client.Object {
				dmpt := newDockerMachinePoolTemplate(ns)
				dmpt.Spec.Template.Spec.ProviderIDList = []string{"docker:////x"}
				return dmpt
			},
			wantMessages: []string{"spec.template.spec: Invalid value", "providerIDList must not be set in a template"},
		},
		{
			name: "PoolTemplateWithProviderID",
			obj: func(_ *testing.T, ns string) client.Object {
				dmpt := newDockerMachinePoolTemplate(ns)
				dmpt.Spec.Template.Spec.ProviderID = "docker:////pool"
				return dmpt
			},
			wantMessages: []string{"spec.template.spec: Invalid value", "providerID must not be set in a template"},
		},
		{
			name: "PoolProviderIDListEntryEmpty",
			obj: func(_ *testing.T, ns string) client.Object {
				dmp := newDockerMachinePool(ns)
				dmp.Spec.ProviderIDList = []string{"docker:////a", ""}
				return dmp
			},
			wantMessages: []string{"spec.providerIDList[1]: Invalid value"},
		},
		{
			name: "LoadBalancerRepositoryWithTag",
			obj: func(_ *testing.T, ns string) client.Object {
				dc := newDockerCluster(ns)
				dc.Spec.LoadBalancer.ImageRepository = "capstan/haproxy:latest"
				return dc
			},
			wantMessages: []string{`spec.loadBalancer.imageRepository`, `imageRepository "capstan/haproxy:latest" must be a registry and/or repository path without image name, tag or digest`},
		},
		{
			name: "LoadBalancerRepositoryWithDigest",
			obj: func(_ *testing.T, ns string) client.Object {
				dc := newDockerCluster(ns)
				dc.Spec.LoadBalancer.ImageRepository = "kindest@sha256:0123"
				return dc
			},
			wantMessages: []string{`imageRepository "kindest@sha256:0123" must be a registry and/or repository path`},
		},
		{
			name: "LoadBalancerTagMalformed",
			obj: func(_ *testing.T, ns string) client.Object {
				dct := newDockerClusterTemplate(ns)
				dct.Spec.Template.Spec.LoadBalancer.ImageTag = "-latest"
				return dct
			},
			wantMessages: []string{"spec.template.spec.loadBalancer.imageTag: Invalid value", `imageTag "-latest" is not a valid tag: start with a letter, digit or underscore`},
		},
		{
			name: "LoadBalancerEmpty",
			obj: func(t *testing.T, ns string) client.Object {
				return env.WithField(t, newDockerCluster(ns), map[string]any{}, "spec", "loadBalancer")
			},
			wantMessages: []string{"spec.loadBalancer: Invalid value", "loadBalancer must not be empty: set imageRepository or imageTag"},
		},
		{
			name: "MachineTemplateEmpty",
			obj: func(t *testing.T, ns string) client.Object {
				return env.WithField(t, newDockerMachineTemplate(ns), map[string]any{}, "spec", "template")
			},
			wantMessages: []string{"spec.template: Invalid value", "template must not be empty: write spec (spec: {} takes every default)"},
		},
		{
			name: "ClusterTemplateEmpty",
			obj: func(t *testing.T, ns string) client.Object {
				return env.WithField(t, newDockerClusterTemplate(ns), map[string]any{}, "spec", "template")
			},
			wantMessages: []string{"spec.template: Invalid value", "template must not be empty"},
		},
		{
			name: "MachinePoolTemplateEmpty",
			obj: func(t *testing.T, ns string) client.Object {
				return env.WithField(t, newDockerMachinePoolTemplate(ns), map[string]any{}, "spec", "template")
			},
			wantMessages: []string{"spec.template: Invalid value", "template must not be empty"},
		},
		{
			name: "ControlPlaneEndpointPortOutOfRange",
			obj: func(_ *testing.T, ns string) client.Object {
				dc := newDockerCluster(ns)
				dc.Spec.ControlPlaneEndpoint = clusterv1.APIEndpoint{Host: "127.0.0.1", Port: 70000}
				return dc
			},
			wantMessages: []string{"spec.controlPlaneEndpoint.port: Invalid value: 70000"},
		},
		{
			name: "FailureDomainNameTwice",
			obj: func(_ *testing.T, ns string) client.Object {
				dc := newDockerCluster(ns)
				dc.Spec.FailureDomains = []clusterv1.FailureDomain{{Name: "a"}, {Name: "a"}}
				return dc
			},
			wantMessages: []string{"spec.failureDomains[1]: Duplicate value"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env.RequireInvalid(t, tt.obj(t, env.CreateNamespace(t, "admission")), tt.wantMessages...)
		})
	}
}
