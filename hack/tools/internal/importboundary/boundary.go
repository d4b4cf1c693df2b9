// Package importboundary enforces Capstan's one architectural rule that the compiler
// cannot: providers share nothing but Kubernetes objects, so no provider module may
// import another provider module, and the shared contracts module may import none of
// them. It asks the go command for each module's full dependency list (including
// test imports) and reports every package that crosses a boundary.
package importboundary

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
)

// Module is one Go module in the workspace.
type Module struct {
	// Path is the module path, e.g. capstan.dev/core.
	Path string
	// Dir is the module's directory, relative to the workspace root.
	Dir string
}

// Violation is one forbidden import edge, found through the dependency list of
// Module (it may be indirect).
type Violation struct {
	Module   string // the module whose dependencies were listed
	Imported string // the forbidden package
	Owner    string // the module that package belongs to
}

func (v Violation) String() string {
	return fmt.Sprintf("%s depends on %s (module %s): providers may import only capstan.dev/contracts", v.Module, v.Imported, v.Owner)
}

// Check lists the dependencies of every module in providers and shared and returns
// the violations: a provider depending on another provider, or a shared module
// depending on any provider. root is the workspace root (where go.work lives).
func Check(ctx context.Context, root string, providers, shared []Module) ([]Violation, error) {
	var out []Violation
	check := func(m Module, forbidden []Module) error {
		deps, err := listDeps(ctx, root, m)
		if err != nil {
			return err
		}
		for _, dep := range deps {
			for _, f := range forbidden {
				if dep == f.Path || strings.HasPrefix(dep, f.Path+"/") {
					out = append(out, Violation{Module: m.Path, Imported: dep, Owner: f.Path})
				}
			}
		}
		return nil
	}
	for _, p := range providers {
		var others []Module
		for _, o := range providers {
			if o.Path != p.Path {
				others = append(others, o)
			}
		}
		if err := check(p, others); err != nil {
			return nil, err
		}
	}
	for _, s := range shared {
		if err := check(s, providers); err != nil {
			return nil, err
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Module != out[j].Module {
			return out[i].Module < out[j].Module
		}
		return out[i].Imported < out[j].Imported
	})
	return out, nil
}

// listDeps returns the import paths of every package the module's packages and
// tests depend on, transitively.
func listDeps(ctx context.Context, root string, m Module) ([]string, error) {
	cmd := exec.CommandContext(ctx, "go", "list", "-deps", "-test", "-f", "{{.ImportPath}}", "./...")
	cmd.Dir = filepath.Join(root, m.Dir)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list -deps in %s: %w: %s", cmd.Dir, err, strings.TrimSpace(stderr.String()))
	}
	var deps []string
	seen := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(stdout))
	for sc.Scan() {
		// Test variants print as "pkg [pkg.test]"; the package path is what matters.
		dep, _, _ := strings.Cut(sc.Text(), " ")
		if dep != "" && !seen[dep] {
			seen[dep] = true
			deps = append(deps, dep)
		}
	}
	return deps, sc.Err()
}
