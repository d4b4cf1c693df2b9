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
	"cmp"
	"fmt"
	"strings"
	"text/template"

	utilrand "k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/apimachinery/pkg/util/validation"

	controlplanev1 "capstan.dev/bootstrap-kubeadm/api/controlplane/v1beta2"
)

const (
	// defaultMachineNameTemplate is upstream's default for spec.machineNaming.template.
	defaultMachineNameTemplate = "{{ .kubeadmControlPlane.name }}-{{ .random }}"
	// maxMachineNameLength and trimmedMachineNameLength: a longer generated name is cut and given
	// a random suffix, as upstream.
	maxMachineNameLength     = 63
	trimmedMachineNameLength = 58
	randomLength             = 5
)

// machineName generates the name of a new control plane Machine of kcp in Cluster clusterName
// from spec.machineNaming.template: {{ .cluster.name }}, {{ .kubeadmControlPlane.name }} and
// {{ .random }} (5 characters without vowels). The InfraMachine and KubeadmConfig get the same
// name. The admission rules already refuse a template without {{ .random }} or with characters
// a name cannot hold; what they cannot see (an unknown variable, a long Cluster name) fails here.
func machineName(kcp *controlplanev1.KubeadmControlPlane, clusterName string) (string, error) {
	text := cmp.Or(kcp.Spec.MachineNaming.Template, defaultMachineNameTemplate)
	tmpl, err := template.New("machineNaming").Option("missingkey=error").Parse(text)
	if err != nil {
		return "", fmt.Errorf("spec.machineNaming.template %q is not a valid template: %w", text, err)
	}
	var b strings.Builder
	data := map[string]any{
		"cluster":             map[string]any{"name": clusterName},
		"kubeadmControlPlane": map[string]any{"name": kcp.Name},
		"random":              utilrand.String(randomLength),
	}
	if err := tmpl.Execute(&b, data); err != nil {
		return "", fmt.Errorf("spec.machineNaming.template %q: %w (the variables are .cluster.name, .kubeadmControlPlane.name and .random)", text, err)
	}
	name := b.String()
	if len(name) > maxMachineNameLength {
		name = name[:trimmedMachineNameLength] + utilrand.String(randomLength)
	}
	if errs := validation.IsDNS1123Subdomain(name); len(errs) > 0 {
		return "", fmt.Errorf("spec.machineNaming.template %q gives the Machine name %q, which is not valid: %s", text, name, strings.Join(errs, "; "))
	}
	return name, nil
}
