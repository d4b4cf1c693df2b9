package cloudinit

import (
	"bytes"
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// JinjaHeader is the line that makes cloud-init render the rest of the document as a Jinja
// template of its instance data before reading it. Upstream's kubeadm bootstrap provider starts
// every cloud-config it writes with it, followed by Header.
const JinjaHeader = "## template: jinja"

// jinjaHeader matches the header as cloud-init recognises it: spaces optional, any case.
var jinjaHeader = regexp.MustCompile(`(?i)^##\s*template:\s*jinja$`)

// InstanceData is what cloud-init's instance data holds for one node container, the values of
// the Jinja variables a "## template: jinja" document may use. An empty field has no value: a
// variable that stands for it is an error, never an empty string.
type InstanceData struct {
	// Hostname is the node's hostname. In a node container it is the container's name, which is
	// also its workload Node's name.
	Hostname string
	// InstanceID identifies the instance; upstream CAPD's instance is the container, so it is
	// the container's name too.
	InstanceID string
}

// variables maps the instance-data variable names a node container gives meaning to, in
// cloud-init's Jinja spelling (hyphens of the datasource's keys read as underscores), to their
// values. cloud-init offers the standardized v1 keys both under v1 and at the top level, and the
// datasource's meta-data under ds.meta_data; NoCloud and EC2 meta-data both carry the hostname.
func (d InstanceData) variables() map[string]string {
	return map[string]string{
		"ds.meta_data.hostname":       d.Hostname,
		"ds.meta_data.local_hostname": d.Hostname,
		"ds.meta_data.instance_id":    d.InstanceID,
		"v1.local_hostname":           d.Hostname,
		"v1.instance_id":              d.InstanceID,
		"local_hostname":              d.Hostname,
		"instance_id":                 d.InstanceID,
	}
}

// jinjaVariable is the one expression form rendered: a dotted name alone between the
// delimiters, with optional spaces.
var jinjaVariable = regexp.MustCompile(`^\s*([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)\s*$`)

// renderJinja renders a document whose first line is JinjaHeader the way cloud-init would for
// inst, as far as the provider can: each {{ variable }} is replaced by its value. Jinja
// statements ({% %}), comments ({# #}), filters, whitespace control and any other expression
// are refused with the line they are on rather than guessed at. The header line is blanked, not
// removed, so that every line of the result keeps its number in the original document (values
// hold no line breaks).
func renderJinja(data []byte, inst InstanceData) ([]byte, error) {
	_, body, _ := bytes.Cut(data, []byte("\n"))
	vars := inst.variables()
	out := make([]byte, 0, len(data))
	out = append(out, '\n')
	offset := len(data) - len(body) // of body in data, for line numbers
	for i := 0; i < len(body); {
		j := bytes.IndexByte(body[i:], '{')
		if j < 0 || i+j+1 >= len(body) {
			out = append(out, body[i:]...)
			break
		}
		start := i + j
		line := 1 + lineBreaks(data[:offset+start])
		switch body[start+1] {
		case '%', '#':
			return nil, &Error{Line: line, Msg: fmt.Sprintf(
				"%q: Jinja statements and comments are not supported in bootstrap data the Docker provider renders, only instance-data variables such as {{ ds.meta_data.hostname }}; if the text is meant literally, write it in a document without the %q header",
				"{"+string(body[start+1]), JinjaHeader)}
		case '{':
		default:
			out = append(out, body[i:start+1]...)
			i = start + 1
			continue
		}
		end := bytes.Index(body[start+2:], []byte("}}"))
		if end < 0 {
			return nil, &Error{Line: line, Msg: "a Jinja expression opened with \"{{\" is never closed with \"}}\""}
		}
		expr := string(body[start+2 : start+2+end])
		value, err := jinjaValue(expr, vars)
		if err != nil {
			return nil, &Error{Line: line, Msg: err.Error()}
		}
		out = append(out, body[i:start]...)
		out = append(out, value...)
		i = start + 2 + end + 2
	}
	return out, nil
}

// jinjaValue is the value of the expression between "{{" and "}}".
func jinjaValue(expr string, vars map[string]string) (string, error) {
	m := jinjaVariable.FindStringSubmatch(expr)
	if m == nil || strings.ContainsRune(expr, '\n') {
		return "", fmt.Errorf("the Jinja expression %q is not supported: the Docker provider renders only instance-data variables, as in {{ ds.meta_data.hostname }} (known: %s)",
			"{{"+expr+"}}", knownVariables(vars))
	}
	value, ok := vars[m[1]]
	if !ok || value == "" {
		return "", fmt.Errorf("the Jinja variable %q has no value in a Docker node container (known: %s): use one of those, or write the value into the bootstrap configuration",
			m[1], knownVariables(vars))
	}
	return value, nil
}

func knownVariables(vars map[string]string) string {
	var names []string
	for name, value := range vars {
		if value != "" {
			names = append(names, name)
		}
	}
	if len(names) == 0 {
		return "none: the provider passed no instance data"
	}
	slices.Sort(names)
	return strings.Join(names, ", ")
}

// lineBreaks counts the line breaks in b as YAML does ("\r\n", a lone "\r" and "\n"), so that
// the renderer's line numbers agree with the YAML decoder's.
func lineBreaks(b []byte) int {
	return bytes.Count(b, []byte("\n")) + bytes.Count(b, []byte("\r")) - bytes.Count(b, []byte("\r\n"))
}
