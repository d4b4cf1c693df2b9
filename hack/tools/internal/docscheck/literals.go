package docscheck

import (
	"fmt"
	"go/ast"
	"go/token"
	"sort"
	"strconv"
)

// conditionsPackage is the package whose True, False and Unknown build conditions.
const conditionsPackage = "capstan.dev/contracts/conditions"

// LiteralReason is a condition reason written as a string literal where a condition is
// built, rather than as a constant that Reasons finds.
type LiteralReason struct {
	Value string // the literal's value
	Pos   string // file:line, relative to the repository root
}

// LiteralReasons finds condition reasons written as string literals in the sources of
// the provider modules under root (see sources): the reason argument of
// conditions.True, conditions.False and conditions.Unknown, and the Reason field of a
// Condition composite literal (metav1.Condition{Reason: "X"}), when it is or contains a
// string literal. Reasons that reach a condition through a variable or a struct field
// are not followed: those must come from constants, which Reasons collects.
func LiteralReasons(root string) ([]LiteralReason, error) {
	fset := token.NewFileSet()
	files, _, err := sources(root, fset)
	if err != nil {
		return nil, err
	}
	var out []LiteralReason
	for _, src := range files {
		ast.Inspect(src.file, func(n ast.Node) bool {
			var e ast.Expr
			switch x := n.(type) {
			case *ast.CallExpr:
				if isConditionsBuilder(src, x) && len(x.Args) >= 2 {
					e = x.Args[1]
				}
			case *ast.CompositeLit:
				if isConditionType(x.Type) {
					for _, el := range x.Elts {
						if kv, ok := el.(*ast.KeyValueExpr); ok {
							if k, ok := kv.Key.(*ast.Ident); ok && k.Name == "Reason" {
								e = kv.Value
							}
						}
					}
				}
			}
			if e == nil {
				return true
			}
			for _, lit := range stringLiterals(e) {
				v, err := strconv.Unquote(lit.Value)
				if err != nil {
					v = lit.Value
				}
				out = append(out, LiteralReason{Value: v, Pos: position(fset, root, lit.Pos())})
			}
			return true
		})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Pos < out[j].Pos })
	return out, nil
}

// isConditionsBuilder reports whether call is conditions.True, False or Unknown of
// conditionsPackage, under whatever name the file imports it.
func isConditionsBuilder(src sourceFile, call *ast.CallExpr) bool {
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	pkg, ok := sel.X.(*ast.Ident)
	if !ok || src.imports[pkg.Name] != conditionsPackage {
		return false
	}
	switch sel.Sel.Name {
	case "True", "False", "Unknown":
		return true
	}
	return false
}

// isConditionType reports whether a composite literal's type is named Condition
// (metav1.Condition, or Condition inside the package that declares it).
func isConditionType(t ast.Expr) bool {
	switch x := t.(type) {
	case *ast.SelectorExpr:
		return x.Sel.Name == "Condition"
	case *ast.Ident:
		return x.Name == "Condition"
	}
	return false
}

// stringLiterals lists the string literals e is built of, through concatenations,
// parentheses and conversions.
func stringLiterals(e ast.Expr) []*ast.BasicLit {
	switch x := e.(type) {
	case *ast.BasicLit:
		if x.Kind == token.STRING {
			return []*ast.BasicLit{x}
		}
	case *ast.ParenExpr:
		return stringLiterals(x.X)
	case *ast.BinaryExpr:
		return append(stringLiterals(x.X), stringLiterals(x.Y)...)
	case *ast.CallExpr:
		if len(x.Args) == 1 {
			return stringLiterals(x.Args[0])
		}
	}
	return nil
}

func (l LiteralReason) String() string { return fmt.Sprintf("%s: %q", l.Pos, l.Value) }
