// Package template owns the cluster templates capstanctl generates from: the
// embedded templates/cluster-template[-<flavor>].yaml files and the variable syntax
// upstream clusterctl uses in them, ${VAR}, ${VAR:=default} and ${VAR:-default}
// (both forms use the default when the variable is unset or empty).
//
// A value comes, in this order, from an explicitly set flag, an environment
// variable, the template's inline default, and finally the flag's own default (so a
// template can choose a different default than the CLI, e.g. a flavor with no
// workers). A variable left without a value is an error that names every missing
// variable at once, so a user fixes them in one go.
//
// The package renders text only: it never talks to a cluster and knows no Go type
// of the objects it renders (providers' kinds are just text in the templates).
package template

import (
	"bufio"
	"bytes"
	"embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"regexp"
	"slices"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

//go:embed templates/*.yaml
var templates embed.FS

const (
	filePrefix = "cluster-template"
	fileSuffix = ".yaml"
)

// DefaultFlavor names the template without a flavor suffix in messages.
const DefaultFlavor = ""

// Flavors lists the embedded flavors, sorted; the default flavor is "".
func Flavors() []string {
	entries, err := fs.ReadDir(templates, "templates")
	if err != nil {
		panic(fmt.Sprintf("capstanctl templates are not embedded: %v", err)) // a build defect
	}
	var out []string
	for _, e := range entries {
		name := e.Name()
		if !strings.HasPrefix(name, filePrefix) || !strings.HasSuffix(name, fileSuffix) {
			continue
		}
		flavor := strings.TrimSuffix(strings.TrimPrefix(name, filePrefix), fileSuffix)
		out = append(out, strings.TrimPrefix(flavor, "-"))
	}
	sort.Strings(out)
	return out
}

// Load returns the raw template of a flavor ("" for the default one). An unknown
// flavor is an error listing the available ones.
func Load(flavor string) ([]byte, error) {
	name := filePrefix + fileSuffix
	if flavor != DefaultFlavor {
		name = filePrefix + "-" + flavor + fileSuffix
	}
	raw, err := templates.ReadFile("templates/" + name)
	if errors.Is(err, fs.ErrNotExist) || strings.ContainsAny(flavor, "/\\") {
		return nil, fmt.Errorf("unknown flavor %q: available flavors are %s", flavor, describeFlavors())
	}
	if err != nil {
		return nil, fmt.Errorf("reading template %s: %w", name, err)
	}
	return raw, nil
}

func describeFlavors() string {
	var names []string
	for _, f := range Flavors() {
		if f == DefaultFlavor {
			names = append(names, `"" (default, omit --flavor)`)
			continue
		}
		names = append(names, fmt.Sprintf("%q", f))
	}
	return strings.Join(names, ", ")
}

// expression matches anything that looks like a variable reference, so that a
// malformed one is reported rather than copied into the output verbatim.
var expression = regexp.MustCompile(`\$\{[^}]*\}`)

// reference parses the inside of ${...}.
var reference = regexp.MustCompile(`^\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:=|:-)(.*))?\}$`)

// Variable is one variable a template references.
type Variable struct {
	Name string `json:"name"`
	// Default is the inline default (${NAME:=default}); nil when the template has none.
	Default *string `json:"default,omitempty"`
}

type ref struct {
	name       string
	hasDefault bool
	def        string
}

func parseRef(expr string) (ref, error) {
	m := reference.FindStringSubmatch(expr)
	if m == nil {
		return ref{}, fmt.Errorf("template expression %s is not ${NAME}, ${NAME:=default} or ${NAME:-default}", expr)
	}
	return ref{name: m[1], hasDefault: m[2] != "", def: m[3]}, nil
}

// Variables lists the variables raw references, sorted by name. A variable that
// has an inline default anywhere in the template reports the first one.
func Variables(raw []byte) ([]Variable, error) {
	byName := map[string]*Variable{}
	for _, expr := range expression.FindAll(raw, -1) {
		r, err := parseRef(string(expr))
		if err != nil {
			return nil, err
		}
		v, ok := byName[r.name]
		if !ok {
			v = &Variable{Name: r.name}
			byName[r.name] = v
		}
		if r.hasDefault && v.Default == nil {
			v.Default = &r.def
		}
	}
	out := make([]Variable, 0, len(byName))
	for _, v := range byName {
		out = append(out, *v)
	}
	slices.SortFunc(out, func(a, b Variable) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

// Values are the sources of variable values, in precedence order.
type Values struct {
	// Flags holds values the user set explicitly on the command line; they win.
	Flags map[string]string
	// Env looks up environment variables (os.LookupEnv); nil means none.
	Env func(string) (string, bool)
	// FlagDefaults are the defaults of flags the user did not set; used only when
	// neither the environment nor the template's inline default gives a value.
	FlagDefaults map[string]string
}

// lookup resolves one reference; ok is false when nothing gives a value.
func (v Values) lookup(r ref) (string, bool) {
	if val, ok := v.Flags[r.name]; ok {
		return val, true
	}
	if v.Env != nil {
		if val, ok := v.Env(r.name); ok && (val != "" || !r.hasDefault) {
			return val, true
		}
	}
	if r.hasDefault {
		return r.def, true
	}
	val, ok := v.FlagDefaults[r.name]
	return val, ok
}

// MissingVariablesError lists the variables that have no value.
type MissingVariablesError struct{ Names []string }

func (e *MissingVariablesError) Error() string {
	return fmt.Sprintf("value(s) for variable(s) %s not set: set them as environment variables "+
		"(e.g. export %s=...) or list the template's variables with --list-variables",
		strings.Join(e.Names, ", "), e.Names[0])
}

// Substitute replaces every variable in raw. Every unresolved variable is
// reported at once in a *MissingVariablesError.
func Substitute(raw []byte, values Values) ([]byte, error) {
	missing := map[string]bool{}
	var parseErr error
	out := expression.ReplaceAllFunc(raw, func(expr []byte) []byte {
		r, err := parseRef(string(expr))
		if err != nil {
			parseErr = errors.Join(parseErr, err)
			return expr
		}
		val, ok := values.lookup(r)
		if !ok {
			missing[r.name] = true
			return expr
		}
		return []byte(val)
	})
	if parseErr != nil {
		return nil, parseErr
	}
	if len(missing) > 0 {
		names := make([]string, 0, len(missing))
		for n := range missing {
			names = append(names, n)
		}
		sort.Strings(names)
		return nil, &MissingVariablesError{Names: names}
	}
	return out, nil
}

// Render is Substitute followed by a check that the result is a stream of
// Kubernetes objects (YAML documents each with apiVersion and kind), so that a
// value that breaks the YAML is reported here rather than by kubectl apply.
func Render(raw []byte, values Values) ([]byte, error) {
	out, err := Substitute(raw, values)
	if err != nil {
		return nil, err
	}
	if _, err := Objects(out); err != nil {
		return nil, fmt.Errorf("the rendered template is not valid YAML (does a variable's value break it?): %w", err)
	}
	return out, nil
}

// Objects decodes a multi-document YAML stream into unstructured objects (numbers
// as int64, as the API machinery reads them), skipping empty documents. Each
// object must have apiVersion and kind.
func Objects(data []byte) ([]*unstructured.Unstructured, error) {
	reader := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	var out []*unstructured.Unstructured
	for i := 1; ; i++ {
		doc, err := reader.Read()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("document %d: %w", i, err)
		}
		js, err := yaml.YAMLToJSON(doc)
		if err != nil {
			return nil, fmt.Errorf("document %d: %w", i, err)
		}
		if t := bytes.TrimSpace(js); len(t) == 0 || bytes.Equal(t, []byte("null")) {
			continue // only comments or blank
		}
		u := &unstructured.Unstructured{}
		if err := u.UnmarshalJSON(js); err != nil {
			return nil, fmt.Errorf("document %d: %w", i, err)
		}
		if u.GetAPIVersion() == "" || u.GetKind() == "" {
			return nil, fmt.Errorf("document %d has no apiVersion or kind", i)
		}
		out = append(out, u)
	}
}
