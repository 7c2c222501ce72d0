// TestREADME keeps the README true to the command line: its first lines,
// the install line, what the tests need, demo --keep, the exit-code rule,
// and a row for every command of the tree.

package cli

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

func TestREADME(t *testing.T) {
	data, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(data)
	lines := strings.Split(readme, "\n")
	if len(lines) < 4 || !strings.HasPrefix(strings.TrimSpace(lines[2]), "go run ./cmd/deloreis demo") ||
		!strings.HasPrefix(strings.TrimSpace(lines[3]), "make test") {
		t.Errorf("the README's first two command lines are not `go run ./cmd/deloreis demo` and `make test`")
	}
	for _, want := range []string{
		"CGO_ENABLED=0 go install ./cmd/deloreis", "../shared", "demo --keep DIR", "### Exit status",
		"| 0 | success", "| 1 | findings", "| 2 | usage error",
	} {
		if !strings.Contains(readme, want) {
			t.Errorf("the README does not say %q", want)
		}
	}
	for _, p := range commandPaths() {
		if !strings.Contains(readme, "| `"+p) && !strings.Contains(readme, ", `"+p) && !strings.Contains(readme, "`"+p+" ") {
			t.Errorf("the README's command table has no row for %q", p)
		}
	}
}

// TestGentleCardQuotesTheSession: every request and response the gentle
// card quotes is a line of the spec golden session the tests replay, so
// the card cannot drift from what serve answers.
func TestGentleCardQuotesTheSession(t *testing.T) {
	card, err := os.ReadFile(filepath.Join("..", "..", "docs", "cards", "gentle-card.md"))
	if err != nil {
		t.Fatal(err)
	}
	var session []string
	for _, f := range []string{"testdata/serve/spec-session.jsonl", "testdata/serve/spec-session.golden"} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		session = append(session, strings.Split(string(b), "\n")...)
	}
	quoted := 0
	for _, line := range strings.Split(string(card), "\n") {
		if !strings.HasPrefix(line, "{") {
			continue
		}
		quoted++
		if !slices.Contains(session, line) {
			t.Errorf("the card quotes a line the session does not hold:\n%s", line)
		}
	}
	if quoted < 8 {
		t.Fatalf("the card quotes %d session lines, want at least 8", quoted)
	}
}

// TestSkillNamesServedOps: every op SKILL.md and the cards name is served
// (an agent following them uses only what exists).
func TestSkillNamesServedOps(t *testing.T) {
	served := map[string]bool{}
	for _, op := range surface {
		served[op] = true
	}
	opName := regexp.MustCompile("`((?:author|dli)\\.[a-z_.]+)")
	for _, f := range []string{"skills/deloreis/SKILL.md", "docs/cards/gentle-card.md", "docs/cards/expert-card.md"} {
		b, err := os.ReadFile(filepath.Join("..", "..", f))
		if err != nil {
			t.Fatal(err)
		}
		names := opName.FindAllStringSubmatch(string(b), -1)
		if len(names) == 0 {
			t.Errorf("%s names no op", f)
		}
		for _, m := range names {
			if !served[strings.TrimSuffix(m[1], ".")] {
				t.Errorf("%s names %s, which is not served", f, m[1])
			}
		}
	}
}

// TestREADMENamesEveryToolTest: every test that needs an installed tool
// — one that calls testenv.NeedTool, directly or through a function of
// its package — is named in the README's list, so the list cannot lose
// one (DL-0430). The call graph is read from the syntax of every test
// file of the module.
func TestREADMENamesEveryToolTest(t *testing.T) {
	data, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	tests := toolTests(t, "../..")
	if len(tests) < 7 {
		t.Fatalf("found %d tests that need a tool: %v", len(tests), tests)
	}
	for _, name := range tests {
		if !strings.Contains(string(data), "`"+name+"`") {
			t.Errorf("the README does not name %s, which needs an installed tool", name)
		}
	}
}

// toolTests lists the Test functions under root that reach
// testenv.NeedTool through calls within their package (by name).
func toolTests(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	for _, fns := range testCallGraph(t, root) {
		for name := range needToolReachers(fns) {
			if strings.HasPrefix(name, "Test") {
				out = append(out, name)
			}
		}
	}
	slices.Sort(out)
	return out
}

// testCallGraph reads every test file under root and answers, by folder
// and then by function name, the names each function calls.
func testCallGraph(t *testing.T, root string) map[string]map[string]map[string]bool {
	t.Helper()
	byDir := map[string]map[string]map[string]bool{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			n := d.Name()
			if p != root && (strings.HasPrefix(n, ".") || n == "testdata" || n == "third_party" || n == "node_modules" || p == filepath.Join(root, "internal", "testenv")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), p, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		dir := filepath.Dir(p)
		if byDir[dir] == nil {
			byDir[dir] = map[string]map[string]bool{}
		}
		for _, decl := range f.Decls {
			fd, ok := decl.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			byDir[dir][fd.Name.Name] = callNames(fd.Body)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return byDir
}

// callNames is the set of names body calls: a function's, a method's or
// a package member's, and testenv.NeedTool whole.
func callNames(body *ast.BlockStmt) map[string]bool {
	calls := map[string]bool{}
	ast.Inspect(body, func(n ast.Node) bool {
		c, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		switch f := c.Fun.(type) {
		case *ast.Ident:
			calls[f.Name] = true
		case *ast.SelectorExpr:
			if id, ok := f.X.(*ast.Ident); ok && id.Name == "testenv" && f.Sel.Name == "NeedTool" {
				calls["testenv.NeedTool"] = true
			} else {
				calls[f.Sel.Name] = true
			}
		}
		return true
	})
	return calls
}

// needToolReachers is the set of names in fns (a package's functions and
// the names each calls) that reach testenv.NeedTool, and that name itself.
func needToolReachers(fns map[string]map[string]bool) map[string]bool {
	needs := map[string]bool{"testenv.NeedTool": true}
	for changed := true; changed; {
		changed = false
		for name, calls := range fns {
			if needs[name] {
				continue
			}
			for c := range calls {
				if needs[c] {
					needs[name], changed = true, true
					break
				}
			}
		}
	}
	return needs
}
