package desired

import (
	"bytes"
	"fmt"
	"text/template"

	"k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/apimachinery/pkg/util/validation"
)

// The naming templates upstream uses when a class leaves naming.template empty.
const (
	DefaultInfrastructureClusterNaming = "{{ .cluster.name }}-{{ .random }}"
	DefaultControlPlaneNaming          = "{{ .cluster.name }}-{{ .random }}"
	DefaultMachineDeploymentNaming     = "{{ .cluster.name }}-{{ .machineDeployment.topologyName }}-{{ .random }}"
	DefaultMachinePoolNaming           = "{{ .cluster.name }}-{{ .machinePool.topologyName }}-{{ .random }}"
)

// randomSuffixLength is the length of upstream's random name parts (lowercase, no vowels).
const randomSuffixLength = 5

// RandomSuffix returns 5 random lowercase alphanumeric characters without vowels, as
// upstream's generated names use.
func RandomSuffix() string { return rand.String(randomSuffixLength) }

// nameData is what a naming template may use: .cluster.name, .random and, for a worker,
// .machineDeployment.topologyName or .machinePool.topologyName (workerKey).
func nameData(clusterName, workerKey, topologyName, random string) map[string]any {
	d := map[string]any{"cluster": map[string]any{"name": clusterName}, "random": random}
	if topologyName != "" {
		d[workerKey] = map[string]any{"topologyName": topologyName}
	}
	return d
}

// RenderMachinePoolName renders a MachinePool class's naming template (DefaultMachinePoolNaming
// when tmpl is empty), as RenderName does for MachineDeployments.
func RenderMachinePoolName(tmpl, clusterName, mpTopologyName string, random func() string) (string, error) {
	return renderName(tmpl, DefaultMachinePoolNaming, nameData(clusterName, "machinePool", mpTopologyName, random()), random)
}

// RenderName renders a naming template (the default when tmpl is empty). A key the template
// uses but the data lacks is an error. A name longer than 63 characters is cut to 58 and given
// 5 random characters, as upstream does, so that it stays a valid label value.
func RenderName(tmpl, def, clusterName, mdTopologyName string, random func() string) (string, error) {
	return renderName(tmpl, def, nameData(clusterName, "machineDeployment", mdTopologyName, random()), random)
}

func renderName(tmpl, def string, data map[string]any, random func() string) (string, error) {
	if tmpl == "" {
		tmpl = def
	}
	t, err := template.New("name").Option("missingkey=error").Parse(tmpl)
	if err != nil {
		return "", fmt.Errorf("parsing naming template %q: %w", tmpl, err)
	}
	var b bytes.Buffer
	if err := t.Execute(&b, data); err != nil {
		return "", fmt.Errorf("rendering naming template %q: %w", tmpl, err)
	}
	name := b.String()
	if len(name) > validation.DNS1123LabelMaxLength {
		name = name[:validation.DNS1123LabelMaxLength-randomSuffixLength] + random()
	}
	if errs := validation.IsDNS1123Subdomain(name); len(errs) > 0 {
		return "", fmt.Errorf("naming template %q renders %q, which is not a valid object name: %s", tmpl, name, errs[0])
	}
	return name, nil
}

// TemplateCopyName names a copy of a class template, or an object generated from one for a
// worker: "<cluster>-" (control plane) or "<cluster>-<topologyName>-" (a MachineDeployment's
// copies, a MachinePool's BootstrapConfig and InfraMachinePool) followed by 5 random
// characters. A changed copy is created under a new such name (template rotation).
func TemplateCopyName(clusterName, workerTopologyName string, random func() string) string {
	prefix := clusterName + "-"
	if workerTopologyName != "" {
		prefix += workerTopologyName + "-"
	}
	const maxPrefix = validation.DNS1123SubdomainMaxLength - randomSuffixLength
	if len(prefix) > maxPrefix {
		prefix = prefix[:maxPrefix]
	}
	return prefix + random()
}
