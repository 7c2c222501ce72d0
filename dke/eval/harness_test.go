// The golden harness: a case is a sequence of compiles and runs over one
// store (testdata/runs/*.dke); its golden file quotes each source and
// shows its transcript, then the claims the store holds at the end.
// go test ./dke/eval -run TestGolden -update rewrites the golden files.

package eval

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/deloreis/deloreis/dke/check"
	"github.com/deloreis/deloreis/dke/claims"
	"github.com/deloreis/deloreis/dke/keywords"
	"github.com/deloreis/deloreis/dke/syntax"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// step is one compile or run of a case.
type step struct {
	compile string // module name; "" for a run
	lang    keywords.Lang
	budget  int
	src     string
}

// world is a store with its compiled modules, as the service would keep
// them.
type world struct {
	store *claims.Mem
	mods  *MapModules
	env   *check.MapEnv
}

func newWorld() *world {
	return &world{store: claims.NewMem(), mods: NewMapModules(), env: check.NewMapEnv()}
}

// do checks and runs a step; a source that does not check fails the test,
// since evaluation only ever sees checked trees.
func (w *world) do(t testing.TB, s step) *Result {
	t.Helper()
	if s.compile != "" && strings.TrimSpace(s.src) == "" {
		// A reload: the stored module's body runs again, nothing is checked
		// or installed anew.
		f, ok := w.mods.Module(s.compile)
		if !ok {
			t.Fatalf("reload of %s, which is not stored", s.compile)
		}
		return Run(f, Options{Store: w.store, Modules: w.mods, Module: s.compile, Budget: s.budget})
	}
	mode := check.Run
	if s.compile != "" {
		mode = check.Compile
	}
	f, info, errs := check.Source(s.compile, s.src, s.lang, check.Options{Module: s.compile, Mode: mode, Env: w.env})
	if len(errs) > 0 {
		t.Fatalf("source does not check:\n%s\n%v", s.src, errs)
	}
	if s.compile != "" {
		w.env.Put(info)
		w.mods.Put(s.compile, f)
	}
	return Run(f, Options{Store: w.store, Modules: w.mods, Module: s.compile, Budget: s.budget})
}

// dump lists every claim of the store, by kind and cell, oldest first.
func (w *world) dump() string {
	snap, _ := w.store.Snapshot()
	var b strings.Builder
	for _, k := range snap.Kinds() {
		for _, c := range snap.Cells(k) {
			for _, cl := range snap.Claims(c) {
				fmt.Fprintf(&b, "%s = %s from %q @%d\n", c, cl.Value.Literal("True", "False"), cl.Source, cl.At)
			}
		}
	}
	return b.String()
}

// parseCase reads a case file: steps headed `-- run LANG [budget=N] --` or
// `-- compile NAME LANG --`; lines before the first header are comments.
func parseCase(t testing.TB, text string) []step {
	t.Helper()
	var steps []step
	var cur *step
	for _, line := range strings.SplitAfter(text, "\n") {
		trim := strings.TrimSpace(line)
		if strings.HasPrefix(trim, "-- ") && strings.HasSuffix(trim, " --") {
			f := strings.Fields(strings.TrimSuffix(strings.TrimPrefix(trim, "-- "), " --"))
			s := step{}
			switch {
			case len(f) >= 2 && f[0] == "run":
				s.lang = mustLang(t, f[1])
				f = f[2:]
			case len(f) >= 3 && f[0] == "compile":
				s.compile, s.lang = f[1], mustLang(t, f[2])
				f = f[3:]
			default:
				t.Fatalf("bad step header %q", trim)
			}
			for _, opt := range f {
				n, err := strconv.Atoi(strings.TrimPrefix(opt, "budget="))
				if err != nil || !strings.HasPrefix(opt, "budget=") {
					t.Fatalf("bad option %q", opt)
				}
				s.budget = n
			}
			steps = append(steps, s)
			cur = &steps[len(steps)-1]
			continue
		}
		if cur != nil {
			cur.src += line
		}
	}
	return steps
}

func mustLang(t testing.TB, tag string) keywords.Lang {
	l, err := keywords.ParseLang(tag)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// render runs a case and renders its golden text.
func render(t *testing.T, steps []step) (string, []*Result) {
	w := newWorld()
	var b strings.Builder
	var rs []*Result
	for _, s := range steps {
		if s.compile != "" {
			fmt.Fprintf(&b, "== compile %s %s\n", s.compile, s.lang)
		} else {
			fmt.Fprintf(&b, "== run %s\n", s.lang)
		}
		if strings.TrimSpace(s.src) != "" {
			for _, l := range strings.Split(strings.TrimRight(s.src, "\n"), "\n") {
				b.WriteString(strings.TrimRight("  | "+l, " ") + "\n")
			}
		}
		r := w.do(t, s)
		rs = append(rs, r)
		b.WriteString(r.Transcript())
	}
	b.WriteString("== store\n")
	b.WriteString(w.dump())
	return b.String(), rs
}

func TestGolden(t *testing.T) {
	cases, err := filepath.Glob("testdata/runs/*.dke")
	if err != nil || len(cases) == 0 {
		t.Fatalf("no cases: %v", err)
	}
	for _, path := range cases {
		name := strings.TrimSuffix(filepath.Base(path), ".dke")
		t.Run(name, func(t *testing.T) {
			text, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			got, _ := render(t, parseCase(t, string(text)))
			again, _ := render(t, parseCase(t, string(text)))
			if got != again {
				t.Fatalf("two renders of the same case differ:\n%s\n---\n%s", got, again)
			}
			golden := strings.TrimSuffix(path, ".dke") + ".golden"
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if got != string(want) {
				t.Errorf("%s differs from the golden file:\n--- got\n%s\n--- want\n%s", name, got, want)
			}
		})
	}
}

// checked checks a program against the world, failing the test on a
// diagnostic.
func checked(t *testing.T, w *world, src string) *syntax.File {
	t.Helper()
	f, _, errs := check.Source("", src, keywords.Eng, check.Options{Mode: check.Run, Env: w.env})
	if len(errs) > 0 {
		t.Fatalf("source does not check:\n%s\n%v", src, errs)
	}
	return f
}
