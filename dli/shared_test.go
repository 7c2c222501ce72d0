// This file holds how the tests find the data shared beside the
// repository (../shared relative to the repository root), and a guard that
// no test of this package can skip or read an absolute path: a test that
// cannot find what it checks fails.

package dli

import (
	"go/ast"
	goparser "go/parser"
	gotoken "go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// repoRoot returns the repository root: the nearest directory at or above
// the working directory that holds go.mod.
func repoRoot(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		up := filepath.Dir(dir)
		if up == dir {
			t.Fatal("no go.mod at or above the working directory: cannot find the repository root")
		}
		dir = up
	}
}

// sharedFile reads a file of the shared data, named relative to ../shared
// beside the repository root. It fails the test when the file is absent:
// the tests need ../shared (see the README).
func sharedFile(t testing.TB, rel string) []byte {
	t.Helper()
	path := filepath.Join(repoRoot(t), "..", "shared", filepath.FromSlash(rel))
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("the tests need ../shared beside the repository root: %v", err)
	}
	return b
}

// TestNoSkipOrAbsolutePath checks every test file of the package: no call
// of Skip, Skipf or SkipNow, and no string literal that is an absolute
// path, so no test passes vacuously on a machine laid out differently.
func TestNoSkipOrAbsolutePath(t *testing.T) {
	files, err := filepath.Glob("*_test.go")
	if err != nil || len(files) == 0 {
		t.Fatalf("no test files: %v", err)
	}
	fset := gotoken.NewFileSet()
	for _, name := range files {
		if name == "fmtcmd_test.go" {
			continue // moves to the command layer with `fmt` (issue 8, item 10); not this package's to change
		}
		f, err := goparser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch x := n.(type) {
			case *ast.SelectorExpr:
				if s := x.Sel.Name; s == "Skip" || s == "Skipf" || s == "SkipNow" {
					t.Errorf("%s: a test may not skip (%s)", fset.Position(x.Pos()), s)
				}
			case *ast.BasicLit:
				if x.Kind != gotoken.STRING {
					break
				}
				if v, err := strconv.Unquote(x.Value); err == nil && strings.HasPrefix(v, "/") && len(v) > 1 &&
					!strings.ContainsAny(v, " \n") && strings.Count(v, "/") > 1 {
					t.Errorf("%s: absolute path %q: read shared data through sharedFile", fset.Position(x.Pos()), v)
				}
			}
			return true
		})
	}
}
