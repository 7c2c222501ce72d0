package deloreis

// The layers of DESIGN.md §2 and ARCHITECTURE.md, held by the import graph
// as `go list` reads it (non-test files): a seam no test holds drifts.

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
)

const module = "github.com/deloreis/deloreis"

// The floors, by package path relative to the module.
var (
	// useCases are the application layer: every operation a user can
	// reach, as Go methods over Go types.
	useCases = []string{"author", "dke/service", "dke/claims", "dke/eval"}
	// adapters shape the use cases for a surface.
	adapters = []string{"internal/cli", "worker", "mcpserve", "casebook", "desk"}
	// core is below the use cases.
	core = []string{"jcs", "objects", "lorestore", "datalog", "world", "project", "dli", "fault",
		"dke/syntax", "dke/check", "dke/diag", "dke/keywords", "dke/reference", "dke/keys", "base"}
)

// pkg is what the test reads of a package.
type pkg struct {
	ImportPath string
	Imports    []string // of its non-test files
}

// listPackages is every package of the module with its imports.
func listPackages(t *testing.T) map[string][]string {
	t.Helper()
	out, err := exec.Command("go", "list", "-json", "./...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	pkgs := map[string][]string{}
	for dec.More() {
		var p pkg
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		rel := strings.TrimPrefix(strings.TrimPrefix(p.ImportPath, module), "/")
		pkgs[rel] = p.Imports
	}
	if len(pkgs) < 30 {
		t.Fatalf("go list found %d packages", len(pkgs))
	}
	return pkgs
}

// in reports whether rel is one of the packages of a floor, or below one
// of them ("lorestore" holds lorestore/odb).
func in(rel string, floor []string) bool {
	for _, f := range floor {
		if rel == f || strings.HasPrefix(rel, f+"/") {
			return true
		}
	}
	return false
}

// ours is an import of the module as a path relative to it, or "".
func ours(imp string) string {
	if imp == module {
		return "."
	}
	rel, ok := strings.CutPrefix(imp, module+"/")
	if !ok {
		return ""
	}
	return rel
}

// TestLayers holds the import rules of issue 31:
//   - the use cases import no adapter (worker, mcpserve) and no go-sdk;
//   - no adapter imports lorestore, world, datalog or go-git;
//   - only the use-case layer joins world and lorestore;
//   - above lorestore nothing names go-git (its plumbing.Hash included):
//     a commit is named by lorestore.Hash;
//   - nothing in the core or the use cases imports a package from the
//     command line's neighbourhood (internal/);
//   - the core imports no use case and no adapter.
func TestLayers(t *testing.T) {
	pkgs := listPackages(t)
	var problems []string
	bad := func(format string, args ...any) {
		problems = append(problems, sprintf(format, args...))
	}
	for rel, imps := range pkgs {
		var joinsWorld, joinsStore bool
		for _, imp := range imps {
			o := ours(imp)
			gosdk := strings.HasPrefix(imp, "github.com/modelcontextprotocol/go-sdk")
			gogit := strings.HasPrefix(imp, "github.com/go-git/")
			joinsWorld = joinsWorld || o == "world"
			joinsStore = joinsStore || o == "lorestore" || strings.HasPrefix(o, "lorestore/")
			switch {
			case in(rel, useCases) && (in(o, []string{"worker", "mcpserve"}) || gosdk):
				bad("use case %s imports %s", rel, imp)
			case in(rel, adapters) && (in(o, []string{"lorestore", "world", "datalog"}) || gogit):
				bad("adapter %s imports %s", rel, imp)
			case gogit && !in(rel, []string{"lorestore"}):
				bad("%s, above lorestore, imports go-git's %s", rel, imp)
			case (in(rel, core) || in(rel, useCases)) && in(o, []string{"internal"}):
				bad("%s imports %s, beside the command line", rel, imp)
			case in(rel, core) && (in(o, useCases) || in(o, adapters)):
				bad("core %s imports %s, above it", rel, imp)
			}
		}
		if joinsWorld && joinsStore && !in(rel, useCases) {
			bad("%s joins world and lorestore, which only the use cases do", rel)
		}
	}
	sort.Strings(problems)
	for _, p := range problems {
		t.Error(p)
	}
}

// TestFloorsExist: every package the rules name exists, so a rule cannot
// hold vacuously over a package that moved.
func TestFloorsExist(t *testing.T) {
	pkgs := listPackages(t)
	for _, floor := range [][]string{useCases, adapters, core} {
		for _, p := range floor {
			if _, ok := pkgs[p]; !ok && !slices.ContainsFunc(keys(pkgs), func(k string) bool { return strings.HasPrefix(k, p+"/") }) {
				t.Errorf("the layer rules name %s, which is no package of the module", p)
			}
		}
	}
}

func keys(m map[string][]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

func sprintf(format string, args ...any) string { return fmt.Sprintf(format, args...) }

// TestArchitectureMap: ARCHITECTURE.md, the newcomer's map, names only
// packages that exist (every `path/` in it), names every floor the rules
// hold, and stays short (two pages).
func TestArchitectureMap(t *testing.T) {
	data, err := os.ReadFile("ARCHITECTURE.md")
	if err != nil {
		t.Fatal(err)
	}
	pkgs := listPackages(t)
	named := map[string]bool{}
	for _, m := range regexp.MustCompile("`([a-z0-9_/.-]+)/`").FindAllStringSubmatch(string(data), -1) {
		p := m[1]
		named[p] = true
		if _, ok := pkgs[p]; !ok && !slices.ContainsFunc(keys(pkgs), func(k string) bool { return strings.HasPrefix(k, p+"/") }) {
			t.Errorf("ARCHITECTURE.md names %s/, which is no package of the module", p)
		}
	}
	for _, floor := range [][]string{useCases, adapters, core} {
		for _, p := range floor {
			if !named[p] {
				t.Errorf("ARCHITECTURE.md does not name %s/, a package of the layer rules", p)
			}
		}
	}
	if n := strings.Count(string(data), "\n"); n > 120 {
		t.Errorf("ARCHITECTURE.md runs %d lines; the map is two pages at most", n)
	}
}
