package machineset

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"hash/fnv"
	"strings"
	"text/template"

	"k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/apimachinery/pkg/util/validation"
)

const (
	// maxMachineNameLength keeps Machine names (and so the names of their InfraMachines and
	// BootstrapConfigs, which providers often turn into host names) within a DNS label.
	maxMachineNameLength = 63
	// randomSuffixLength is the length of {{ .random }}.
	randomSuffixLength = 5
	// defaultMachineNameTemplate is used when spec.machineNaming.template is empty.
	defaultMachineNameTemplate = "{{ .machineSet.name }}-{{ .random }}"
)

// LabelValue returns s when it is a valid label value, else a short stable hash of it, so that
// long object names can still be put in labels (set-name, deployment-name).
//
// It is shared by the MachineSet and MachineDeployment controllers; it belongs in contracts/ once
// another package needs it.
func LabelValue(s string) string {
	if len(validation.IsValidLabelValue(s)) == 0 {
		return s
	}
	h := fnv.New32a()
	_, _ = h.Write([]byte(s))
	return fmt.Sprintf("hash_%s_z", base64.RawURLEncoding.EncodeToString(h.Sum(nil)))
}

// machineName renders spec.machineNaming.template (or the default) for a new Machine. Names
// longer than 63 characters are cut to 58 and get a random suffix, so they stay unique.
func machineName(tmpl, clusterName, machineSetName string) (string, error) {
	if tmpl == "" {
		tmpl = defaultMachineNameTemplate
	}
	t, err := template.New("machineName").Option("missingkey=error").Parse(tmpl)
	if err != nil {
		return "", fmt.Errorf("parsing spec.machineNaming.template %q: %w", tmpl, err)
	}
	var buf bytes.Buffer
	data := map[string]any{
		"cluster":    map[string]any{"name": clusterName},
		"machineSet": map[string]any{"name": machineSetName},
		"random":     rand.String(randomSuffixLength),
	}
	if err := t.Execute(&buf, data); err != nil {
		return "", fmt.Errorf("rendering spec.machineNaming.template %q: %w", tmpl, err)
	}
	name := buf.String()
	if len(name) > maxMachineNameLength {
		name = strings.TrimRight(name[:maxMachineNameLength-randomSuffixLength], "-.") + rand.String(randomSuffixLength)
	}
	if errs := validation.IsDNS1123Subdomain(name); len(errs) > 0 {
		return "", fmt.Errorf("spec.machineNaming.template %q renders %q, which is not a valid name: %s",
			tmpl, name, strings.Join(errs, "; "))
	}
	return name, nil
}
