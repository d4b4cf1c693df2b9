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

package kubeadmcontrolplane

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	controlplanev1 "capstan.dev/bootstrap-kubeadm/api/controlplane/v1beta2"
)

func TestMachineName_FollowsTheTemplateAsUpstream(t *testing.T) {
	kcpNamed := func(name, template string) *controlplanev1.KubeadmControlPlane {
		return &controlplanev1.KubeadmControlPlane{ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec: controlplanev1.KubeadmControlPlaneSpec{MachineNaming: controlplanev1.MachineNamingSpec{Template: template}}}
	}
	tests := []struct {
		name     string
		kcp      *controlplanev1.KubeadmControlPlane
		cluster  string
		pattern  string // the name must match it
		wantErr  string
		wantSize int
	}{
		{name: "DefaultIsTheKCPNameAndFiveRandomCharacters", kcp: kcpNamed("cp", ""), cluster: "c1", pattern: `^cp-[bcdfghjklmnpqrstvwxz2456789]{5}$`},
		{name: "EveryVariable", kcp: kcpNamed("cp", "{{ .cluster.name }}-{{ .kubeadmControlPlane.name }}-x-{{ .random }}"), cluster: "c1", pattern: `^c1-cp-x-[a-z0-9]{5}$`},
		{name: "WithoutSpaces", kcp: kcpNamed("cp", "{{.cluster.name}}.{{.random}}"), cluster: "c1", pattern: `^c1\.[a-z0-9]{5}$`},
		{
			// Longer than 63: cut to 58 and given a random suffix.
			name: "LongNamesAreCutTo58AndARandomSuffix", kcp: kcpNamed(strings.Repeat("k", 60), ""), cluster: "c1",
			pattern: `^k{58}[a-z0-9]{5}$`, wantSize: 63,
		},
		{name: "UnknownVariable", kcp: kcpNamed("cp", "{{ .machine.name }}-{{ .random }}"), cluster: "c1", wantErr: `spec.machineNaming.template "{{ .machine.name }}-{{ .random }}"`},
		{name: "NotATemplate", kcp: kcpNamed("cp", "{{ .random "), cluster: "c1", wantErr: "is not a valid template"},
		{name: "InvalidResult", kcp: kcpNamed("cp", "{{ .cluster.name }}-{{ .random }}"), cluster: "C_1", wantErr: "which is not valid"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := machineName(tt.kcp, tt.cluster)
			if tt.wantErr != "" {
				require.ErrorContains(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			require.Regexp(t, tt.pattern, got)
			if tt.wantSize != 0 {
				require.Len(t, got, tt.wantSize)
			}
		})
	}
}
