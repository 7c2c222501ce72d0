package author

import (
	"bytes"
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

const (
	modulePath = "github.com/deloreis/deloreis"
	worldPath  = modulePath + "/world"
)

// TestOnlyAuthorCompiles holds the seam of DESIGN.md section 2: outside
// package world itself and tests, only package author compiles a world.
// It reads every package of the module as `go list` sees it (its Go
// files, whatever their build constraints) and, in each file's syntax,
// every reference to world.Compile: a call or a function value, through
// the import's own name, an alias or a dot import.
func TestOnlyAuthorCompiles(t *testing.T) {
	cmd := exec.Command("go", "list", "-e", "-json", modulePath+"/...")
	cmd.Dir = ".."
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var offenders []string
	pkgs := 0
	dec := json.NewDecoder(bytes.NewReader(out))
	for dec.More() {
		var p struct {
			ImportPath, Dir                                 string
			GoFiles, CgoFiles, IgnoredGoFiles, IgnoredOther []string
		}
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		pkgs++
		if p.ImportPath == modulePath+"/author" || p.ImportPath == worldPath {
			continue
		}
		for _, name := range append(append(append([]string(nil), p.GoFiles...), p.CgoFiles...), p.IgnoredGoFiles...) {
			if strings.HasSuffix(name, "_test.go") {
				continue
			}
			path := filepath.Join(p.Dir, name)
			fset := token.NewFileSet()
			f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			for _, pos := range compileRefs(f) {
				offenders = append(offenders, fset.Position(pos).String())
			}
		}
	}
	if pkgs < 30 {
		t.Fatalf("go list found %d packages", pkgs)
	}
	if len(offenders) > 0 {
		t.Fatalf("world.Compile is used outside author: %v", offenders)
	}
}

// compileRefs finds every reference to world.Compile in a file.
func compileRefs(f *ast.File) []token.Pos {
	names, dot := map[string]bool{}, false
	for _, imp := range f.Imports {
		if p, _ := strconv.Unquote(imp.Path.Value); p != worldPath {
			continue
		}
		switch {
		case imp.Name == nil:
			names["world"] = true
		case imp.Name.Name == ".":
			dot = true
		case imp.Name.Name != "_":
			names[imp.Name.Name] = true
		}
	}
	var out []token.Pos
	var visit func(n ast.Node) bool
	visit = func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.SelectorExpr:
			if id, ok := x.X.(*ast.Ident); ok && names[id.Name] && x.Sel.Name == "Compile" {
				out = append(out, x.Pos())
			}
			// Only the operand: a selector's name is never the dot
			// import's Compile.
			ast.Inspect(x.X, visit)
			return false
		case *ast.Ident:
			if dot && x.Name == "Compile" {
				out = append(out, x.Pos())
			}
		case *ast.ImportSpec:
			return false
		}
		return true
	}
	ast.Inspect(f, visit)
	return out
}

// TestCompileRefs: the check finds world.Compile through every spelling
// a file can use, and nothing in comments, strings or other packages —
// where the substring grep it replaces was fooled both ways.
func TestCompileRefs(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		refs      int
	}{
		{"a call", `import "github.com/deloreis/deloreis/world"
func f() { world.Compile(world.Input{}) }`, 1},
		{"an alias", `import w "github.com/deloreis/deloreis/world"
func f() { w.Compile(w.Input{}) }`, 1},
		{"a function value", `import "github.com/deloreis/deloreis/world"
var compile = world.Compile`, 1},
		{"a spaced call", `import "github.com/deloreis/deloreis/world"
func f() { world. Compile (world.Input{}) }`, 1},
		{"a dot import", `import . "github.com/deloreis/deloreis/world"
func f() { Compile(Input{}) }`, 1},
		{"inside a selector's operand", `import "github.com/deloreis/deloreis/world"
type g func(world.Input) (*world.World, error)
func f() { _ = g(world.Compile).String }`, 1},
		{"a dot import beside another package's Compile", `import . "github.com/deloreis/deloreis/world"
import "regexp"
var r = regexp.Compile
var c = Compile`, 1},
		{"a comment and a string", `import "github.com/deloreis/deloreis/world"
// world.Compile(in) is author's
var s = "world.Compile("
var _ world.Input`, 0},
		{"another package's Compile", `import world "regexp"
var r = world.MustCompile("x")
func f() { world.Compile("x") }`, 0},
		{"a blank import", `import _ "github.com/deloreis/deloreis/world"
func f() { Compile() }`, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, err := parser.ParseFile(token.NewFileSet(), "x.go", "package x\n"+tc.src, 0)
			if err != nil {
				t.Fatal(err)
			}
			if got := len(compileRefs(f)); got != tc.refs {
				t.Fatalf("%d references, want %d", got, tc.refs)
			}
		})
	}
}
