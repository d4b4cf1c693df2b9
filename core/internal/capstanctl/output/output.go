// Package output prints capstanctl's data results as YAML or JSON. It owns the -o
// flag's accepted values and nothing else: commands decide what their data is and
// how their human-readable (default) form looks.
package output

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"sigs.k8s.io/yaml"
)

// Format is a value of the -o flag.
type Format string

const (
	// Text is the human-readable default; each command defines its shape.
	Text Format = ""
	// YAML prints the command's data as YAML.
	YAML Format = "yaml"
	// JSON prints the command's data as indented JSON.
	JSON Format = "json"
)

// Parse accepts "", "yaml" and "json", plus any extra formats a command supports
// (e.g. version's "short"); the error lists what is accepted.
func Parse(s string, extra ...Format) (Format, error) {
	allowed := append([]Format{YAML, JSON}, extra...)
	if s == "" {
		return Text, nil
	}
	for _, f := range allowed {
		if Format(s) == f {
			return f, nil
		}
	}
	names := make([]string, 0, len(allowed))
	for _, f := range allowed {
		names = append(names, string(f))
	}
	return "", fmt.Errorf("unknown output format %q: use -o %s, or omit -o for text", s, strings.Join(names, "|"))
}

// IsData reports whether f prints data (YAML or JSON) rather than text.
func (f Format) IsData() bool { return f == YAML || f == JSON }

// Print writes v as YAML or JSON. Only data formats are accepted.
func Print(w io.Writer, f Format, v any) error {
	switch f {
	case JSON:
		b, err := json.MarshalIndent(v, "", "  ")
		if err != nil {
			return fmt.Errorf("encoding JSON: %w", err)
		}
		_, err = fmt.Fprintf(w, "%s\n", b)
		return err
	case YAML:
		b, err := yaml.Marshal(v)
		if err != nil {
			return fmt.Errorf("encoding YAML: %w", err)
		}
		_, err = w.Write(b)
		return err
	default:
		return fmt.Errorf("output format %q is not a data format", f)
	}
}
