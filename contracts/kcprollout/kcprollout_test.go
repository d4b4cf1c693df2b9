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

package kcprollout

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
)

func TestSelectMachineForScaleDown(t *testing.T) {
	base := time.Date(2026, 12, 3, 8, 0, 0, 0, time.UTC)
	machine := func(name, fd string, ageHours int, opts ...string) *clusterv1.Machine {
		m := &clusterv1.Machine{ObjectMeta: metav1.ObjectMeta{Name: name, CreationTimestamp: metav1.NewTime(base.Add(-time.Duration(ageHours) * time.Hour))},
			Spec: clusterv1.MachineSpec{FailureDomain: fd, Version: "v1.37.2"}}
		for _, o := range opts {
			switch o {
			case "annotated":
				m.Annotations = map[string]string{clusterv1.DeleteMachineAnnotation: ""}
			case "outdated":
				m.Spec.Version = "v1.37.1"
			}
		}
		return m
	}
	isOutdated := func(m *clusterv1.Machine) bool { return m.Spec.Version != "v1.37.2" }
	fds := []string{"a", "b", "c"}
	for _, tc := range []struct {
		name     string
		machines []*clusterv1.Machine
		fds      []string
		want     string
	}{
		{"oldest in the failure domain with the most Machines",
			[]*clusterv1.Machine{machine("m1", "a", 9), machine("m2", "b", 3), machine("m3", "b", 2), machine("m4", "c", 1)}, fds, "m2"},
		{"the delete-machine annotation goes first, whatever its domain and age",
			[]*clusterv1.Machine{machine("m1", "a", 9), machine("m2", "b", 3), machine("m3", "b", 2), machine("m4", "c", 1, "annotated")}, fds, "m4"},
		{"then outdated Machines",
			[]*clusterv1.Machine{machine("m1", "a", 9), machine("m2", "b", 3), machine("m3", "b", 2), machine("m4", "c", 1, "outdated")}, fds, "m4"},
		{"an outdated annotated Machine before an annotated one",
			[]*clusterv1.Machine{machine("m1", "a", 9, "annotated"), machine("m2", "b", 3, "annotated", "outdated"), machine("m3", "c", 2)}, fds, "m2"},
		{"among outdated Machines, the domain with the most Machines",
			[]*clusterv1.Machine{machine("m1", "a", 9, "outdated"), machine("m2", "b", 3, "outdated"), machine("m3", "b", 2), machine("m4", "c", 1)}, fds, "m2"},
		{"a Machine outside the known failure domains first",
			[]*clusterv1.Machine{machine("m1", "a", 9), machine("m2", "a", 3), machine("m3", "gone", 2), machine("m4", "c", 1)}, fds, "m3"},
		{"no failure domains: the oldest",
			[]*clusterv1.Machine{machine("m1", "", 1), machine("m2", "", 3), machine("m3", "", 2)}, nil, "m2"},
		{"same age: by name",
			[]*clusterv1.Machine{machine("m2", "", 1), machine("m1", "", 1)}, nil, "m1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, SelectForScaleDown(tc.machines, isOutdated, tc.fds).Name)
		})
	}
}

func TestInfraTemplateDiffers(t *testing.T) {
	infra := func(annotations map[string]string) *unstructured.Unstructured {
		u := &unstructured.Unstructured{}
		u.SetKind("DevMachine")
		u.SetName("cp-abcde")
		u.SetAnnotations(annotations)
		return u
	}
	ref := clusterv1.ContractVersionedObjectReference{APIGroup: "infrastructure.cluster.x-k8s.io", Kind: "DevMachineTemplate", Name: "cp"}
	cloned := func(name, gk string) map[string]string {
		return map[string]string{clusterv1.TemplateClonedFromNameAnnotation: name, clusterv1.TemplateClonedFromGroupKindAnnotation: gk}
	}
	require.Empty(t, InfraTemplateDiffers(ref, infra(cloned("cp", "DevMachineTemplate.infrastructure.cluster.x-k8s.io"))))
	require.Equal(t, "DevMachine cp-abcde was cloned from DevMachineTemplate.infrastructure.cluster.x-k8s.io cp-old, spec.machineTemplate.spec.infrastructureRef is DevMachineTemplate.infrastructure.cluster.x-k8s.io cp",
		InfraTemplateDiffers(ref, infra(cloned("cp-old", "DevMachineTemplate.infrastructure.cluster.x-k8s.io"))))
	require.NotEmpty(t, InfraTemplateDiffers(ref, infra(cloned("cp", "OtherMachineTemplate.infrastructure.cluster.x-k8s.io"))))
	require.Empty(t, InfraTemplateDiffers(ref, infra(nil)), "an InfraMachine without the cloned-from annotations is not judged")
	require.Empty(t, InfraTemplateDiffers(ref, nil), "an InfraMachine that cannot be read never starts a rollout")
}

func TestCertificatesExpiring(t *testing.T) {
	now := time.Date(2026, 12, 3, 8, 0, 0, 0, time.UTC)
	days := int32(30)
	machine := func(annotation string) *clusterv1.Machine {
		m := &clusterv1.Machine{}
		if annotation != "" {
			m.Annotations = map[string]string{clusterv1.MachineCertificatesExpiryDateAnnotation: annotation}
		}
		return m
	}
	require.Equal(t, "certificates expire at 2026-12-20T08:00:00Z (Machine annotation machine.cluster.x-k8s.io/certificates-expiry), within spec.rollout.before.certificatesExpiryDays 30",
		CertificatesExpiring(days, machine("2026-12-20T08:00:00Z"), nil, now))
	require.Empty(t, CertificatesExpiring(days, machine("2027-06-01T00:00:00Z"), nil, now))
	require.Empty(t, CertificatesExpiring(days, machine("next week"), nil, now), "an unreadable date replaces nothing")
	require.Empty(t, CertificatesExpiring(days, machine(""), nil, now), "no known expiry")

	cfg := map[string]string{clusterv1.MachineCertificatesExpiryDateAnnotation: "2026-12-10T00:00:00Z"}
	require.Contains(t, CertificatesExpiring(days, machine(""), cfg, now), "(KubeadmConfig annotation")
	require.Empty(t, CertificatesExpiring(days, machine("2027-06-01T00:00:00Z"), cfg, now), "the Machine's annotation wins")

	m := machine("")
	m.Status.CertificatesExpiryDate = metav1.NewTime(now.Add(24 * time.Hour))
	require.Contains(t, CertificatesExpiring(days, m, nil, now), "(status.certificatesExpiryDate)")

	days = 0
	require.Empty(t, CertificatesExpiring(days, machine("2026-12-04T08:00:00Z"), nil, now), "not configured")
}

func TestDecide(t *testing.T) {
	for _, tc := range []struct {
		name                       string
		current, desired, maxSurge int
		outdated                   bool
		want                       Action
	}{
		{"surge first", 3, 3, 1, true, ScaleUp},
		{"then remove an outdated one", 4, 3, 1, true, ScaleDown},
		{"without surge, remove first", 3, 3, 0, true, ScaleDown},
		{"then add", 2, 3, 0, false, ScaleUp},
		{"scale down", 5, 3, 1, false, ScaleDown},
		{"done", 3, 3, 1, false, None},
	} {
		require.Equal(t, tc.want, Decide(tc.current, tc.desired, tc.maxSurge, tc.outdated), tc.name)
	}
}

func TestRoleConfig(t *testing.T) {
	spec := map[string]any{
		"clusterConfiguration": map[string]any{"certificatesDir": "/pki"},
		"initConfiguration":    map[string]any{"nodeRegistration": map[string]any{"name": "a"}},
		"joinConfiguration":    map[string]any{"nodeRegistration": map[string]any{"name": "b"}},
	}
	init := RoleConfig(spec, true)
	require.NotContains(t, init, "joinConfiguration")
	require.Contains(t, init, "initConfiguration")
	require.True(t, IsInitConfig(init))

	join := RoleConfig(spec, false)
	require.NotContains(t, join, "initConfiguration")
	require.Equal(t, map[string]any{}, join["joinConfiguration"].(map[string]any)["controlPlane"])
	require.False(t, IsInitConfig(join))
	require.Equal(t, map[string]any{"certificatesDir": "/pki"}, join["clusterConfiguration"], "clusterConfiguration stays in both")
	require.NotContains(t, spec["joinConfiguration"], "controlPlane", "the KubeadmControlPlane's spec is not changed")
}

func TestConfigDiff(t *testing.T) {
	want := map[string]any{
		"clusterConfiguration": map[string]any{"apiServer": map[string]any{"extraArgs": []any{"a"}}},
		"joinConfiguration":    map[string]any{"controlPlane": map[string]any{}},
	}
	have := map[string]any{
		"clusterConfiguration": map[string]any{"apiServer": map[string]any{"extraArgs": []any{"a"}}, "scheduler": map[string]any{}},
		"joinConfiguration":    map[string]any{"controlPlane": map[string]any{}, "discovery": map[string]any{"bootstrapToken": map[string]any{"token": "x"}}},
		"format":               "cloud-config",
	}
	require.Empty(t, ConfigDiff(want, have), "the join discovery, an empty object and the default format are not differences")

	have["clusterConfiguration"].(map[string]any)["apiServer"] = map[string]any{"extraArgs": []any{"b"}}
	have["preKubeadmCommands"] = []any{"echo"}
	paths := ConfigDiff(want, have)
	require.Equal(t, []string{"clusterConfiguration.apiServer.extraArgs", "preKubeadmCommands"}, paths)
	require.Equal(t, "KubeadmConfig cp-1 differs in spec.kubeadmConfigSpec.clusterConfiguration.apiServer.extraArgs, spec.kubeadmConfigSpec.preKubeadmCommands",
		ConfigDiffMessage("cp-1", paths))
	require.Equal(t, "KubeadmConfig cp-1 differs in spec.kubeadmConfigSpec.a, spec.kubeadmConfigSpec.b, spec.kubeadmConfigSpec.c and 1 more",
		ConfigDiffMessage("cp-1", []string{"a", "b", "c", "d"}))
}
