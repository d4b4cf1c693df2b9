package docscheck

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"unicode"
)

// ProviderModules are the module directories, relative to the repository root, whose
// condition reasons users meet: the three providers and contracts, which holds the core
// API types and the shared reconciler pieces (e.g. the Paused condition).
var ProviderModules = []string{"contracts", "core", "bootstrap-kubeadm", "infrastructure-docker"}

// ExcludedDirs are skipped with everything below them. The conformance kit's example
// provider shows provider authors the contract inside the kit's own tests; no Capstan
// manager runs it, so a reason it declared would never reach a user. (It declares none
// today: it reuses the core's.)
var ExcludedDirs = []string{"contracts/conformance/example"}

// Reason is one string constant whose name ends in "Reason".
type Reason struct {
	Name  string // the constant's name
	Value string // its string value, resolved through other constants
	Pos   string // file:line, relative to the repository root
}

// sourceFile is one parsed non-test, non-generated Go file of the provider modules.
type sourceFile struct {
	dir  string // package directory relative to the root, slash-separated
	file *ast.File
	// imports maps the names the file refers to packages by to their import paths.
	imports map[string]string
}

// sources parses the Go files of the provider modules under root that are compiled into
// the managers: _test.go files, generated files (the "Code generated ... DO NOT EDIT."
// header), testdata, hidden and underscore directories, nested modules and ExcludedDirs
// are left out. It also returns the module path → directory map of the modules.
func sources(root string, fset *token.FileSet) ([]sourceFile, map[string]string, error) {
	modules := map[string]string{}
	var out []sourceFile
	for _, m := range ProviderModules {
		data, err := os.ReadFile(filepath.Join(root, m, "go.mod"))
		if err != nil {
			return nil, nil, err
		}
		p := modulePath(data)
		if p == "" {
			return nil, nil, fmt.Errorf("%s/go.mod names no module", m)
		}
		modules[p] = m
		err = filepath.WalkDir(filepath.Join(root, m), func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			rel, err := filepath.Rel(root, p)
			if err != nil {
				return err
			}
			rel = filepath.ToSlash(rel)
			if d.IsDir() {
				if rel == m {
					return nil
				}
				if skipDir(rel, d.Name()) {
					return filepath.SkipDir
				}
				if _, err := os.Stat(filepath.Join(p, "go.mod")); err == nil {
					return filepath.SkipDir // a nested module is not part of this one
				}
				return nil
			}
			if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") {
				return nil
			}
			f, err := parser.ParseFile(fset, p, nil, parser.ParseComments)
			if err != nil {
				return err
			}
			if ast.IsGenerated(f) {
				return nil
			}
			out = append(out, sourceFile{dir: path.Dir(rel), file: f, imports: importNames(f)})
			return nil
		})
		if err != nil {
			return nil, nil, err
		}
	}
	return out, modules, nil
}

func skipDir(rel, base string) bool {
	if base == "testdata" || base == "vendor" || strings.HasPrefix(base, ".") || strings.HasPrefix(base, "_") {
		return true
	}
	for _, x := range ExcludedDirs {
		if rel == x {
			return true
		}
	}
	return false
}

// importNames maps each import's name in the file (its explicit name, else the last
// element of its path) to its path.
func importNames(f *ast.File) map[string]string {
	out := map[string]string{}
	for _, im := range f.Imports {
		p, err := strconv.Unquote(im.Path.Value)
		if err != nil {
			continue
		}
		name := path.Base(p)
		if im.Name != nil {
			name = im.Name.Name
		}
		out[name] = p
	}
	return out
}

// modulePath returns the path on go.mod's module line.
func modulePath(gomod []byte) string {
	for _, line := range strings.Split(string(gomod), "\n") {
		f := strings.Fields(line)
		if len(f) >= 2 && f[0] == "module" {
			if p, err := strconv.Unquote(f[1]); err == nil {
				return p
			}
			return f[1]
		}
	}
	return ""
}

// constDecl is a constant before its value is resolved.
type constDecl struct {
	src  *sourceFile
	name string
	expr ast.Expr
	pos  string
}

// collector resolves constants across the packages of the provider modules.
type collector struct {
	modules map[string]string     // module path -> directory relative to the root
	consts  map[string]*constDecl // dir + "." + name
	values  map[string]string     // resolved, same keys
	busy    map[string]bool       // cycle guard
}

// Reasons returns every string constant, exported or not, whose name ends in "Reason"
// in the sources of the provider modules under root (see sources), with its value.
// Constants defined by other constants (the usual `MachineReadyReason = ReadyReason`,
// or `infrav1.X = clusterv1.ReadyReason` across modules) are resolved. A constant whose
// value cannot be resolved is an error, so that none is skipped silently.
func Reasons(root string) ([]Reason, error) {
	return constants(root, func(name string) bool { return strings.HasSuffix(name, "Reason") })
}

// EventReasons returns every string constant whose name is "Reason" followed by an upper-case
// letter (ReasonSuccessfulCreate): the reasons of the Events the provider modules record, each
// controller's in its events.go. Values are resolved as in Reasons.
func EventReasons(root string) ([]Reason, error) {
	return constants(root, func(name string) bool {
		rest, ok := strings.CutPrefix(name, "Reason")
		return ok && rest != "" && unicode.IsUpper(rune(rest[0]))
	})
}

// constants returns the string constants of the provider modules whose names keep accepts,
// resolved, sorted by value then position.
func constants(root string, keep func(name string) bool) ([]Reason, error) {
	fset := token.NewFileSet()
	files, modules, err := sources(root, fset)
	if err != nil {
		return nil, err
	}
	c := &collector{modules: modules, consts: map[string]*constDecl{}, values: map[string]string{}, busy: map[string]bool{}}
	for i := range files {
		c.addFile(fset, root, &files[i])
	}
	var out []Reason
	for key, d := range c.consts {
		if !keep(d.name) {
			continue
		}
		v, err := c.resolve(key)
		if err != nil {
			return nil, err
		}
		out = append(out, Reason{Name: d.name, Value: v, Pos: d.pos})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Value != out[j].Value {
			return out[i].Value < out[j].Value
		}
		return out[i].Pos < out[j].Pos
	})
	return out, nil
}

func (c *collector) addFile(fset *token.FileSet, root string, src *sourceFile) {
	for _, decl := range src.file.Decls {
		g, ok := decl.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		// Within a const block, a spec without values repeats the previous one's.
		var last []ast.Expr
		for _, s := range g.Specs {
			vs := s.(*ast.ValueSpec)
			if len(vs.Values) > 0 {
				last = vs.Values
			}
			for i, n := range vs.Names {
				if n.Name == "_" || i >= len(last) {
					continue
				}
				c.consts[src.dir+"."+n.Name] = &constDecl{src: src, name: n.Name, expr: last[i], pos: position(fset, root, n.Pos())}
			}
		}
	}
}

// position is file:line of pos, the file relative to root.
func position(fset *token.FileSet, root string, pos token.Pos) string {
	p := fset.Position(pos)
	if rel, err := filepath.Rel(root, p.Filename); err == nil {
		return fmt.Sprintf("%s:%d", filepath.ToSlash(rel), p.Line)
	}
	return fmt.Sprintf("%s:%d", p.Filename, p.Line)
}

func (c *collector) resolve(key string) (string, error) {
	if v, ok := c.values[key]; ok {
		return v, nil
	}
	d, ok := c.consts[key]
	if !ok {
		return "", fmt.Errorf("constant %s not found in the provider modules", key)
	}
	if c.busy[key] {
		return "", fmt.Errorf("%s: constant %s refers to itself", d.pos, d.name)
	}
	c.busy[key] = true
	defer delete(c.busy, key)
	v, err := c.eval(d, d.expr)
	if err != nil {
		return "", fmt.Errorf("%s: constant %s: %w", d.pos, d.name, err)
	}
	c.values[key] = v
	return v, nil
}

// eval computes a constant string expression: string literals, other constants of the
// provider modules, concatenation, parentheses and conversions to a string type.
func (c *collector) eval(d *constDecl, e ast.Expr) (string, error) {
	switch x := e.(type) {
	case *ast.BasicLit:
		if x.Kind != token.STRING {
			return "", fmt.Errorf("%s is not a string", x.Value)
		}
		return strconv.Unquote(x.Value)
	case *ast.ParenExpr:
		return c.eval(d, x.X)
	case *ast.BinaryExpr:
		if x.Op != token.ADD {
			return "", fmt.Errorf("operator %s in a string constant", x.Op)
		}
		a, err := c.eval(d, x.X)
		if err != nil {
			return "", err
		}
		b, err := c.eval(d, x.Y)
		if err != nil {
			return "", err
		}
		return a + b, nil
	case *ast.CallExpr: // a conversion such as ReasonType("X")
		if len(x.Args) != 1 {
			return "", fmt.Errorf("a call is not a string constant")
		}
		return c.eval(d, x.Args[0])
	case *ast.Ident:
		return c.resolve(d.src.dir + "." + x.Name)
	case *ast.SelectorExpr:
		pkg, ok := x.X.(*ast.Ident)
		if !ok {
			return "", fmt.Errorf("unsupported selector expression")
		}
		imp, ok := d.src.imports[pkg.Name]
		if !ok {
			return "", fmt.Errorf("%s is not an imported package", pkg.Name)
		}
		for mod, dir := range c.modules {
			if imp == mod || strings.HasPrefix(imp, mod+"/") {
				return c.resolve(path.Join(dir, strings.TrimPrefix(imp, mod)) + "." + x.Sel.Name)
			}
		}
		return "", fmt.Errorf("%s.%s: package %s is outside the provider modules", pkg.Name, x.Sel.Name, imp)
	}
	return "", fmt.Errorf("unsupported expression %T", e)
}
