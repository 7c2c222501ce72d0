// Package fuzzseed holds what the fuzz targets of the transports share
// (worker's FuzzParams, mcpserve's FuzzToolArgs): a seed project and a
// seed DKE store, built once per target and copied fresh for every input
// so that an input answers the same alone as within a run; the calls of
// the contract fixtures, their seeds; and the bound on one call's time
// and allocation past which it is a finding. Only tests import it.
package fuzzseed

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/deloreis/deloreis/author"
	"github.com/deloreis/deloreis/dke/service"
	"github.com/deloreis/deloreis/lorestore"
	"github.com/deloreis/deloreis/objects"
	"github.com/deloreis/deloreis/project"
)

// CallLimit is how long one fuzzed call may take before it counts as a
// hang; AllocLimit how much it may allocate, on top of a thousand bytes
// per input byte, before it counts as unbounded.
const (
	CallLimit  = 20 * time.Second
	AllocLimit = 512 << 20
)

// Seeds are the template folders: a project whose storybook document
// holds a few objects (annals declared and empty), and a DKE store with
// the modules inventory and climate compiled and one cell written.
type Seeds struct {
	project, dke string
}

// Build makes the templates under tb's temp folder.
func Build(tb testing.TB) *Seeds {
	tb.Helper()
	root := tb.TempDir()
	s := &Seeds{project: filepath.Join(root, "project"), dke: filepath.Join(root, "dke.lore")}
	if err := buildProject(s.project); err != nil {
		tb.Fatalf("seed project: %v", err)
	}
	if err := buildDKE(s.dke); err != nil {
		tb.Fatalf("seed DKE store: %v", err)
	}
	return s
}

// clock is the commit time of every fuzzed store: ids are the same on
// every run.
func clock() func() time.Time {
	at := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	return func() time.Time { return at }
}

// StoreOptions open every seed store and copy (fixed clock, author, id).
func StoreOptions() lorestore.Options {
	return lorestore.Options{Now: clock(), StoreID: "f0220f0220f0220f0220f0220f022000",
		Author: lorestore.Signature{Name: "Fuzz", Email: "fuzz@deloreis.invalid"}}
}

func buildProject(dir string) error {
	if err := project.Create(dir, []string{"storybook", "annals"}); err != nil {
		return err
	}
	s, err := lorestore.Init(filepath.Join(dir, lorestore.DefaultDir), StoreOptions())
	if err != nil {
		return err
	}
	p := objects.Proposed("session-1a0")
	b := lorestore.NewBatch()
	for _, o := range []objects.Object{
		&objects.Entity{Kind: objects.KindPerson, Ident: "the-warder", Name: "The Warder", Provenance: p},
		&objects.Entity{Kind: objects.KindPlace, Ident: "the-ward", Name: "The Ward", Provenance: p},
		&objects.Entity{Kind: objects.KindEra, Ident: "the-salt-years", Name: "The Salt Years", Provenance: p},
		&objects.Event{Ident: "the-reclaiming", Era: "the-salt-years", Provenance: p},
		&objects.Question{Ident: "which-way-the-coast-runs", Prompt: "Which way does the coast run?", Options: []objects.Option{
			{Ident: "north", Label: "North", Implies: &objects.GroundAtom{Pred: "coast-runs", Args: []string{"north"}}},
			{Ident: "south", Label: "South"},
		}},
	} {
		if _, err := b.Put("storybook", o); err != nil {
			s.Close()
			return err
		}
	}
	if _, err = s.Commit(b, lorestore.NewMessage("materialize storybook", "materialize", "storybook"), lorestore.CommitOptions{}); err != nil {
		s.Close()
		return err
	}
	if err := s.Close(); err != nil {
		return err
	}
	// Open a workspace once, so that the template holds the derived world
	// file a served project has and every copy starts from it.
	svc, err := author.Open(author.OpenOptions{Dir: dir, StoreOptions: StoreOptions()})
	if err != nil {
		return err
	}
	defer svc.Close()
	_, err = svc.OpenWorkspace(context.Background(), &author.OpenParams{Scope: "storybook"})
	return err
}

// The DKE seed modules: a script that writes and reads a cell, and a
// class with a computed field, two rules, a constraint and data (the
// shapes of the DKE fixtures' inventory and climate seeds).
const (
	inventory = "def restock(id: string):\n    remember(Widget[id].stock, 10, \"restock\")\n\n" +
		"def count_on_hand(id: string) -> int:\n    c = current(Widget[id].stock)\n    if c.found:\n        return int(c.value)\n    return 0\n"
	climate = "class Sensor:\n    room: string\n    celsius: float\n\n    @computed\n    def fahrenheit(g) -> float:\n" +
		"        return current(g.celsius).value * 9.0 / 5.0 + 32.0\n\n" +
		"@rule\ndef warm_rooms(s, r, c):\n    if Sensor[s].room == r and Sensor[s].celsius == c and c > 25.0:\n        Room[r].warm = True\n\n" +
		"@rule\ndef sunny_rooms(r):\n    if Room[r].sunny == True:\n        Room[r].warm = True\n\n" +
		"@constraint\ndef readings_have_rooms(s, c):\n    if Sensor[s].celsius == c:\n        assert Sensor[s].room\n\n" +
		"def place(s: string, r: string):\n    remember(Sensor[s].room, r, \"climate\")\n\n" +
		"remember(Sensor.s1.room, \"kitchen\", \"survey\")\nremember(Sensor.s1.celsius, 27.0, \"probe\")\n" +
		"remember(Sensor.s2.celsius, 12.0, \"probe\")\nremember(Room.kitchen.sunny, True, \"plan\")\n"
)

func buildDKE(dir string) error {
	ls, err := lorestore.Init(dir, StoreOptions())
	if err != nil {
		return err
	}
	defer ls.Close()
	svc, err := service.New(service.Config{Store: ls, Now: clock()})
	if err != nil {
		return err
	}
	ctx := context.Background()
	for _, m := range [][2]string{{"inventory", inventory}, {"climate", climate}} {
		src := m[1]
		if _, err := svc.Compile(ctx, &service.CompileParams{Name: m[0], Source: &src}); err != nil {
			return fmt.Errorf("module %s: %w", m[0], err)
		}
	}
	r, err := svc.Run(ctx, &service.RunParams{Source: "import inventory\ninventory.restock(\"widget-1\")\n"})
	if err == nil && r.Status != "ok" {
		err = fmt.Errorf("%s", r.Text)
	}
	return err
}

// Project opens a fresh copy of the seed project for t.
func (s *Seeds) Project(t testing.TB) *author.Service {
	t.Helper()
	dir := t.TempDir()
	if err := copyTree(s.project, dir); err != nil {
		t.Fatal(err)
	}
	svc, err := author.Open(author.OpenOptions{Dir: dir, StoreOptions: StoreOptions()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.Close() })
	return svc
}

// DKE opens a DKE service over a fresh copy of the seed DKE store for t.
func (s *Seeds) DKE(t testing.TB) *service.Service {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "dke.lore")
	if err := copyTree(s.dke, dir); err != nil {
		t.Fatal(err)
	}
	ls, err := lorestore.Open(dir, StoreOptions())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ls.Close() })
	svc, err := service.New(service.Config{Store: ls, Now: clock()})
	if err != nil {
		t.Fatal(err)
	}
	return svc
}

// copyTree copies the folder src to dst.
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		to := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(to, 0o755)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(to, data, 0o644)
	})
}

// Call is one call a contract fixture makes: the op (or DKE tool) and its
// params (or arguments) as the fixture writes them.
type Call struct {
	Op     string
	Params json.RawMessage
}

// Calls are the calls of every contract fixture under root (the module's
// folder), sorted and without repeats: setup, request and after calls,
// each framing call with its benign and its tainted string.
func Calls(tb testing.TB, root string) []Call {
	tb.Helper()
	var files []string
	for _, pat := range []string{"*/fixtures/*/*.json", "*/fixtures/*/*/*.json"} {
		m, err := filepath.Glob(filepath.Join(root, "contracts", pat))
		if err != nil {
			tb.Fatal(err)
		}
		files = append(files, m...)
	}
	if len(files) == 0 {
		tb.Fatalf("no contract fixtures under %s", root)
	}
	seen := map[string]bool{}
	var out []Call
	add := func(op string, params json.RawMessage) {
		if k := op + "\x00" + string(params); op != "" && !seen[k] {
			seen[k] = true
			out = append(out, Call{op, params})
		}
	}
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			tb.Fatal(err)
		}
		var fx struct {
			Benign, Tainted string
			Request, Call   json.RawMessage
			Setup, After    []json.RawMessage
		}
		if err := json.Unmarshal(data, &fx); err != nil {
			tb.Fatalf("%s: %v", file, err)
		}
		calls := append([]json.RawMessage{}, fx.Setup...)
		calls = append(calls, fx.Request, fx.Call)
		calls = append(calls, fx.After...)
		for _, raw := range calls {
			var c struct {
				Op, Tool  string
				Params    json.RawMessage
				Arguments json.RawMessage
			}
			if len(raw) == 0 || json.Unmarshal(raw, &c) != nil {
				continue
			}
			op, params := c.Op, c.Params
			if op == "" {
				op, params = c.Tool, c.Arguments
			}
			if fx.Benign == "" {
				add(op, params)
				continue
			}
			for _, s := range []string{fx.Benign, fx.Tainted} {
				q, _ := json.Marshal(s)
				add(op, json.RawMessage(strings.ReplaceAll(string(params), "{S}", strings.Trim(string(q), `"`))))
			}
		}
	}
	sort.Slice(out, func(i, j int) bool {
		return out[i].Op < out[j].Op || out[i].Op == out[j].Op && string(out[i].Params) < string(out[j].Params)
	})
	return out
}

// Bounded runs call and fails t when it takes longer than CallLimit (a
// hang, reported with every goroutine's stack) or allocates more than
// AllocLimit plus a thousand bytes per input byte.
func Bounded(t testing.TB, inputLen int, call func()) {
	t.Helper()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	done := make(chan struct{})
	go func() { defer close(done); call() }()
	select {
	case <-done:
	case <-time.After(CallLimit):
		buf := make([]byte, 1<<20)
		t.Fatalf("the call did not answer in %v:\n%s", CallLimit, buf[:runtime.Stack(buf, true)])
	}
	runtime.ReadMemStats(&after)
	if a := after.TotalAlloc - before.TotalAlloc; a > AllocLimit+1000*uint64(inputLen) {
		t.Fatalf("the call allocated %d MB for a %d-byte input", a>>20, inputLen)
	}
}
