// The DKE tool fixtures of contracts/dke/fixtures (issue 12): for each of
// the thirteen tools a golden call, a negative call and a framing pair.
// This file loads them, defines the seed stores they name and checks the
// set is complete against the registry; the replay is in
// dke_fixtures_replay_test.go.

package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/deloreis/deloreis/dke/service"
	"github.com/deloreis/deloreis/jcs"
	"github.com/deloreis/deloreis/lorestore"
	"github.com/deloreis/deloreis/worker"
)

// dkeFxDir is the DKE fixture tree, from this package's folder.
const dkeFxDir = "../../contracts/dke/fixtures"

// dkeFx is one fixture file (contracts/dke/fixtures/README.md).
type dkeFx struct {
	Tool  string `json:"tool"`
	Kind  string `json:"kind"`
	About string `json:"about"`
	Seed  string `json:"seed"`
	// Benign and Tainted are the framing pair; {S} in the calls.
	Benign  string    `json:"benign,omitempty"`
	Tainted string    `json:"tainted,omitempty"`
	Setup   []dkeCall `json:"setup,omitempty"`
	Call    dkeCall   `json:"call"`
	// After are calls made after a framing call, compared too.
	After []dkeCall `json:"after,omitempty"`
	// Error is the refusal a negative call must produce.
	Error *dkeFxError `json:"error,omitempty"`
	// Answer is the exact answer to Call (written by -update).
	Answer json.RawMessage `json:"answer,omitempty"`

	path string
}

// dkeCall is one MCP tool call.
type dkeCall struct {
	Tool      string          `json:"tool"`
	Arguments json.RawMessage `json:"arguments"`
}

// dkeFxError is what a negative must answer: the typed error of the
// structured content and the _meta.status beside it.
type dkeFxError struct {
	Status string `json:"status"`
	Class  string `json:"class"`
	Code   string `json:"code"`
}

// loadDKEFixtures reads every fixture; a file that does not decode
// strictly fails the test.
func loadDKEFixtures(t testing.TB) []*dkeFx {
	return loadJSONTree(t, dkeFxDir, func(path string) *dkeFx { return &dkeFx{path: path} },
		func(f *dkeFx) string { return f.path })
}

// dkeFxProtocolCodes are the codes any tool's argument decoding answers
// with, beside the codes each tool declares.
var dkeFxProtocolCodes = map[string]bool{worker.CodeBadParams: true, worker.CodeUnknownField: true, worker.CodeMissingField: true}

// dkeFxGaps checks a fixture set against the served tools and returns
// every gap and malformed fixture, sorted.
func dkeFxGaps(served []*worker.Op, fixtures []*dkeFx) []string {
	var gaps []string
	ops := map[string]*worker.Op{}
	for _, op := range served {
		ops[op.Name] = op
	}
	have := map[string]bool{}
	for _, f := range fixtures {
		for _, p := range dkeFxProblems(f, ops) {
			gaps = append(gaps, filepath.Base(filepath.Dir(f.path))+"/"+filepath.Base(f.path)+": "+p)
		}
		have[f.Kind+" "+f.Tool] = true
	}
	for _, op := range served {
		for _, kind := range fixtureKinds {
			if !have[kind+" "+op.Name] {
				gaps = append(gaps, fmt.Sprintf("%s has no %s fixture", op.Name, kind))
			}
		}
	}
	sort.Strings(gaps)
	return gaps
}

// dkeFxProblems checks one fixture's shape: its place, its tool, its seed
// and the fields its kind needs.
func dkeFxProblems(f *dkeFx, ops map[string]*worker.Op) []string {
	var p []string
	if f.Tool == "" {
		return []string{"the fixture names no tool"}
	}
	if dir := filepath.Base(filepath.Dir(f.path)); dir != f.Kind || !slices.Contains(fixtureKinds, f.Kind) {
		p = append(p, fmt.Sprintf("kind %q in folder %s", f.Kind, dir))
	}
	if filepath.Base(f.path) != f.Tool+".json" {
		p = append(p, "the file is not named after its tool "+f.Tool)
	}
	op, served := ops[f.Tool]
	if !served {
		p = append(p, "tool "+f.Tool+" is not served")
	}
	if f.Call.Tool != f.Tool {
		p = append(p, fmt.Sprintf("the call is of %s, not %s", f.Call.Tool, f.Tool))
	}
	for _, c := range append(slices.Clone(f.Setup), f.After...) {
		if _, ok := ops[c.Tool]; !ok {
			p = append(p, "a setup or after call of unserved tool "+c.Tool)
		}
	}
	if _, ok := dkeSeeds[f.Seed]; !ok {
		p = append(p, fmt.Sprintf("unknown seed %q", f.Seed))
	}
	switch f.Kind {
	case "golden":
		if len(f.Answer) == 0 || f.Error != nil {
			p = append(p, "a golden fixture has an answer and no error")
		}
	case "negative":
		if f.Error == nil || len(f.Answer) == 0 {
			p = append(p, "a negative fixture has an error and its answer")
		}
		if served && f.Error != nil && !dkeFxProtocolCodes[f.Error.Code] && !slices.Contains(op.Errors, f.Error.Code) {
			p = append(p, fmt.Sprintf("error %s is neither the protocol's nor one %s declares", f.Error.Code, f.Tool))
		}
	case "framing":
		if f.Benign == "" || f.Benign == f.Tainted || len(f.Benign) != len(f.Tainted) {
			p = append(p, "benign and tainted must differ and have the same length")
		}
		calls := string(f.Call.Arguments)
		for _, c := range f.Setup {
			calls += string(c.Arguments)
		}
		if !strings.Contains(calls, "{S}") {
			p = append(p, "no call or setup holds {S}")
		}
	}
	return p
}

// TestDKEContractCompleteness (issue 12): every DKE tool has a golden, a
// negative and a framing fixture, and every fixture names a served tool.
func TestDKEContractCompleteness(t *testing.T) {
	for _, g := range dkeFxGaps(dkeContractRegistry(t).Ops(worker.ProfileExtended), loadDKEFixtures(t)) {
		t.Error(g)
	}
}

// TestDKEContractGaps shows the completeness check can fail: a tool
// missing each kind, a fixture naming no tool or an unserved one, a
// lopsided framing pair, an undeclared error and an unknown seed are
// each reported.
func TestDKEContractGaps(t *testing.T) {
	served := dkeContractRegistry(t).Ops(worker.ProfileExtended)
	all := loadDKEFixtures(t)
	without := func(kind, tool string) []*dkeFx {
		var out []*dkeFx
		for _, f := range all {
			if f.Kind != kind || f.Tool != tool {
				out = append(out, f)
			}
		}
		return out
	}
	pick := func(kind string, edit func(*dkeFx)) []*dkeFx {
		for _, f := range all {
			if f.Kind == kind {
				g := *f
				edit(&g)
				return append(slices.Clone(all), &g)
			}
		}
		t.Fatalf("no %s fixture", kind)
		return nil
	}
	tests := []struct {
		name     string
		fixtures []*dkeFx
		want     string
	}{
		{"no golden compile", without("golden", "compile"), "compile has no golden fixture"},
		{"no negative run", without("negative", "run"), "run has no negative fixture"},
		{"no framing checkup", without("framing", "checkup"), "checkup has no framing fixture"},
		{"no tool", pick("golden", func(f *dkeFx) { f.Tool = "" }), "the fixture names no tool"},
		{"an unserved tool", pick("golden", func(f *dkeFx) {
			f.Tool, f.Call.Tool, f.path = "fly", "fly", filepath.Join(dkeFxDir, "golden", "fly.json")
		}), "tool fly is not served"},
		{"a lopsided pair", pick("framing", func(f *dkeFx) { f.Tainted += "!" }), "benign and tainted must differ"},
		{"an undeclared error", pick("negative", func(f *dkeFx) { f.Error = &dkeFxError{Code: "killed-op"} }), "error killed-op is neither"},
		{"an unknown seed", pick("golden", func(f *dkeFx) { f.Seed = "moon" }), `unknown seed "moon"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if gaps := strings.Join(dkeFxGaps(served, tc.fixtures), "\n"); !strings.Contains(gaps, tc.want) {
				t.Fatalf("gaps do not report %q:\n%s", tc.want, gaps)
			}
		})
	}
}

// The clock and signature of every fixture store: the seed, the service
// called directly and the `dke mcp` subprocess, so that module records
// and commit ids are the same on every run and on both paths.
const (
	dkeFxDate   = "2026-12-01T10:00:00Z"
	dkeFxAuthor = "DKE Keeper <keeper@deloreis.invalid>"
)

func dkeFxOptions() lorestore.Options {
	at, _ := time.Parse(time.RFC3339, dkeFxDate)
	return lorestore.Options{Now: func() time.Time { return at },
		Author: lorestore.Signature{Name: "DKE Keeper", Email: "keeper@deloreis.invalid"}}
}

// The seed modules. inventory is the contract's (§4.1, §4.2); climate
// declares a class, a computed field, two rules concluding one cell, a
// constraint and a script; report imports it and reads kind Door, which
// the seed's data misspells (checkup's near pair).
const (
	dkeFxInventory = `def restock(id: string):
    remember(Widget[id].stock, 10, "restock")

def count_on_hand(id: string) -> int:
    c = current(Widget[id].stock)
    if c.found:
        return int(c.value)
    return 0
`
	dkeFxClimate = `class Sensor:
    room: string
    celsius: float

    @computed
    def fahrenheit(g) -> float:
        return current(g.celsius).value * 9.0 / 5.0 + 32.0

@rule
def warm_rooms(s, r, c):
    if Sensor[s].room == r and Sensor[s].celsius == c and c > 25.0:
        Room[r].warm = True

@rule
def sunny_rooms(r):
    if Room[r].sunny == True:
        Room[r].warm = True

@constraint
def readings_have_rooms(s, c):
    if Sensor[s].celsius == c:
        assert Sensor[s].room

def place(s: string, r: string):
    remember(Sensor[s].room, r, "climate")

remember(Sensor.s1.room, "kitchen", "survey")
remember(Sensor.s1.celsius, 27.0, "probe")
remember(Sensor.s2.celsius, 12.0, "probe")
remember(Room.kitchen.sunny, True, "plan")
`
	dkeFxReport = `import climate

@rule
def alarm(d):
    if Door[d].open == True:
        Alarm[d].ring = True

def show(r: string):
    print(r, current(Room[r].warm).found)
`
)

// dkeSeeds are the starting stores a fixture names, each built by calls
// of the service in a fresh lorestore: empty (no DKE store yet),
// inventory (store default: the inventory module, widget-1 restocked) and
// climate (store default: climate and report, and data under Dor).
var dkeSeeds = map[string][]dkeSeedStep{
	"empty":     nil,
	"inventory": {{"compile", "inventory", dkeFxInventory}, {"run", "", "import inventory\ninventory.restock(\"widget-1\")\n"}},
	"climate": {{"compile", "climate", dkeFxClimate}, {"compile", "report", dkeFxReport},
		{"run", "", "remember(Dor.d1.open, True, \"survey\")\nremember(Sensr.s3.room, \"hall\", \"survey\")\n"}},
}

// dkeSeedStep is a compile (name and source) or a run (source).
type dkeSeedStep struct{ tool, name, source string }

// dkeSeedStore builds the named seed in a new folder and returns its path.
func dkeSeedStore(t testing.TB, seed string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "dke.lore")
	o := dkeFxOptions()
	o.StoreID = "dcedcedcedcedcedcedcedcedcedcedc" // a fixed id: every copy of a seed is the same store
	s, err := lorestore.Init(dir, o)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	svc, err := service.New(service.Config{Store: s, Now: dkeFxOptions().Now})
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range dkeSeeds[seed] {
		src := st.source
		if st.tool == "compile" {
			_, err = svc.Compile(context.Background(), &service.CompileParams{Name: st.name, Source: &src})
		} else {
			var r service.RunResult
			r, err = svc.Run(context.Background(), &service.RunParams{Source: src})
			if err == nil && r.Status != "ok" {
				err = fmt.Errorf("%s", r.Text)
			}
		}
		if err != nil {
			t.Fatalf("seed %s: %s %s: %v", seed, st.tool, st.name, err)
		}
	}
	return dir
}

// dkeCanonical is the RFC 8785 form of v, as a string.
func dkeCanonical(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	c, err := jcs.Transform(b)
	if err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	return string(c)
}
