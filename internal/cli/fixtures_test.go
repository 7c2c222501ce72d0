// The op fixtures of contracts/dli-worker/fixtures (issue 11): for every
// served op a golden call, a negative call and a framing pair, and for
// every killed form a call that is answered killed-op. This file loads
// them and checks that the set is complete against the registry; the
// replay over stdio and MCP is in fixtures_replay_test.go.

package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/deloreis/deloreis/worker"
)

// fixtureDir is the fixture tree, from this package's folder.
const fixtureDir = "../../contracts/dli-worker/fixtures"

// The fixture kinds, one folder each.
var fixtureKinds = []string{"golden", "negative", "framing"}

// opFixture is one fixture file (contracts/dli-worker/fixtures/README.md).
type opFixture struct {
	Op    string `json:"op"`
	Kind  string `json:"kind"`
	About string `json:"about"`
	Seed  string `json:"seed"`
	// Killed names the killed form a negative/killed fixture calls.
	Killed string `json:"killed,omitempty"`
	// StdioOnly says why the fixture cannot be an MCP tool call.
	StdioOnly string `json:"stdio_only,omitempty"`
	// Benign and Tainted are the framing pair; {S} in the requests.
	Benign  string            `json:"benign,omitempty"`
	Tainted string            `json:"tainted,omitempty"`
	Setup   []json.RawMessage `json:"setup,omitempty"`
	Request json.RawMessage   `json:"request"`
	// Check is a read run before and after a negative request: equal answers.
	Check json.RawMessage `json:"check,omitempty"`
	// After are reads run after a framing request, compared too.
	After []json.RawMessage `json:"after,omitempty"`
	// Reparse asks that every rendered label the tainted run reads back
	// re-parses as canonical .dli.
	Reparse bool `json:"reparse,omitempty"`
	// Error is the typed error a negative request must produce.
	Error *fixtureError `json:"error,omitempty"`
	// Response is the exact stdio response (written by -update).
	Response json.RawMessage `json:"response,omitempty"`

	path string // the file, for messages and -update
}

type fixtureError struct {
	Class string `json:"class"`
	Code  string `json:"code"`
}

// fxEnvelope is the part of a request line the checks read.
type fxEnvelope struct {
	DLI            string          `json:"dli"`
	ID             string          `json:"id"`
	Op             string          `json:"op"`
	Params         json.RawMessage `json:"params"`
	ExpectedDigest *string         `json:"expected_digest"`
	IdempotencyKey *string         `json:"idempotency_key"`
}

func (f *opFixture) fxEnvelope() (fxEnvelope, error) {
	var e fxEnvelope
	err := json.Unmarshal(f.Request, &e)
	return e, err
}

// loadFixtures reads every fixture file; a file that does not decode
// strictly fails the test.
func loadFixtures(t testing.TB) []*opFixture {
	return loadJSONTree(t, fixtureDir, func(path string) *opFixture { return &opFixture{path: path} },
		func(f *opFixture) string { return f.path })
}

// loadJSONTree decodes every .json file under dir strictly (no unknown
// field) into a fresh value from newT, in path order; a missing tree or a
// file that does not decode fails the test.
func loadJSONTree[T any](t testing.TB, dir string, newT func(path string) *T, pathOf func(*T) string) []*T {
	t.Helper()
	if _, err := os.Stat(dir); err != nil {
		t.Fatalf("the fixture tree %s is missing: %v", dir, err)
	}
	var out []*T
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".json") {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields()
		f := newT(path)
		if err := dec.Decode(f); err != nil {
			return fmt.Errorf("%s: %v", path, err)
		}
		out = append(out, f)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Slice(out, func(i, j int) bool { return pathOf(out[i]) < pathOf(out[j]) })
	return out
}

// fixtureGaps checks a fixture set against the served ops and the killed
// forms and returns every gap and every malformed fixture, sorted.
func fixtureGaps(served []*worker.Op, killed []worker.Killed, fixtures []*opFixture) []string {
	var gaps []string
	have := map[string]bool{} // kind + " " + op
	ops := map[string]*worker.Op{}
	for _, op := range served {
		ops[op.Name] = op
	}
	killedBy := map[string]bool{} // killed op names a fixture calls
	killedVersion := false
	for _, f := range fixtures {
		for _, p := range fixtureProblems(f, ops) {
			gaps = append(gaps, filepath.Base(filepath.Dir(f.path))+"/"+filepath.Base(f.path)+": "+p)
		}
		env, _ := f.fxEnvelope()
		if f.Killed != "" {
			if f.Error != nil && f.Error.Code == "killed-op" && env.Op == f.Killed {
				killedBy[f.Killed] = true
			}
			if f.Error != nil && f.Error.Code == "killed-version" && env.DLI == f.Killed && strings.HasPrefix(env.DLI, "1.") {
				killedVersion = true
			}
			continue
		}
		have[f.Kind+" "+f.Op] = true
	}
	for _, op := range served {
		for _, kind := range fixtureKinds {
			if !have[kind+" "+op.Name] {
				gaps = append(gaps, fmt.Sprintf("%s has no %s fixture", op.Name, kind))
			}
		}
	}
	for _, k := range killed {
		if !killedBy[k.Name] {
			gaps = append(gaps, fmt.Sprintf("killed form %s has no fixture answered killed-op", k.Name))
		}
	}
	if !killedVersion {
		gaps = append(gaps, "no fixture calls a killed 1.x contract version")
	}
	sort.Strings(gaps)
	return gaps
}

// fxProtocolCodes are the codes the worker answers with for any op, beside
// the codes each op declares (Spec.Errors).
var fxProtocolCodes = map[string]bool{
	worker.CodeBadParams: true, worker.CodeUnknownField: true, worker.CodeMissingField: true,
	worker.CodeNotMutating: true, worker.CodeBadJSON: true, worker.CodeBadEnvelope: true,
}

// fixtureProblems checks one fixture's own shape: its place in the tree,
// its op and the fields its kind needs.
func fixtureProblems(f *opFixture, ops map[string]*worker.Op) []string {
	var p []string
	env, err := f.fxEnvelope()
	if err != nil {
		return []string{"request: " + err.Error()}
	}
	dir := filepath.Base(filepath.Dir(f.path))
	if f.Killed != "" {
		if dir != "killed" || f.Kind != "negative" || f.Error == nil {
			p = append(p, "a killed-form fixture is a negative under negative/killed/")
		}
		if f.StdioOnly == "" {
			p = append(p, "a killed form is no MCP tool: the fixture must say stdio_only")
		}
		return p
	}
	if dir != f.Kind || !slices.Contains(fixtureKinds, f.Kind) {
		p = append(p, fmt.Sprintf("kind %q in folder %s", f.Kind, dir))
	}
	if filepath.Base(f.path) != f.Op+".json" {
		p = append(p, "the file is not named after its op "+f.Op)
	}
	op, served := ops[f.Op]
	if !served {
		p = append(p, "op "+f.Op+" is not served")
	}
	if env.Op != f.Op {
		p = append(p, fmt.Sprintf("the request calls %s, not %s", env.Op, f.Op))
	}
	if _, ok := fixtureSeeds[f.Seed]; !ok {
		p = append(p, fmt.Sprintf("unknown seed %q", f.Seed))
	}
	switch f.Kind {
	case "golden":
		if len(f.Response) == 0 || f.Error != nil {
			p = append(p, "a golden fixture has a response and no error")
		}
	case "negative":
		if f.Error == nil || len(f.Response) == 0 {
			p = append(p, "a negative fixture has an error and its response")
		}
		if served && op.Mutating && len(f.Check) == 0 {
			p = append(p, "a negative of a mutating op needs a check read")
		}
		if served && f.Error != nil && !fxProtocolCodes[f.Error.Code] && !slices.Contains(op.Errors, f.Error.Code) {
			p = append(p, fmt.Sprintf("error %s is neither the protocol's nor one %s declares", f.Error.Code, f.Op))
		}
	case "framing":
		p = append(p, fxFramingProblems(f)...)
	}
	return p
}

// fxFramingProblems: a framing pair is two different strings of one shape,
// and the string is in the calls.
func fxFramingProblems(f *opFixture) []string {
	var p []string
	if f.Benign == "" || f.Benign == f.Tainted || len(f.Benign) != len(f.Tainted) {
		p = append(p, "benign and tainted must differ and have the same length")
	}
	calls := string(f.Request)
	for _, s := range f.Setup {
		calls += string(s)
	}
	if !strings.Contains(calls, "{S}") {
		p = append(p, "no request or setup holds {S}")
	}
	return p
}

// TestFixtureCompleteness (issue 11, acceptance 1): every op the registry
// serves has a golden, a negative and a framing fixture, every fixture
// names a served op (or a killed form, answered killed-op), and a killed
// contract version is covered.
func TestFixtureCompleteness(t *testing.T) {
	reg := fullRegistry(t)
	fixtures := loadFixtures(t)
	for _, g := range fixtureGaps(reg.Ops(worker.ProfileExtended), reg.KilledForms(), fixtures) {
		t.Error(g)
	}
}

// TestFixtureGaps shows that the completeness check can fail: a set with
// one fixture taken away, a fixture for an op nobody serves, a killed
// form without its call, a malformed framing pair and a negative whose
// error the op does not declare are each reported.
func TestFixtureGaps(t *testing.T) {
	reg := fullRegistry(t)
	all := loadFixtures(t)
	served, killed := reg.Ops(worker.ProfileExtended), reg.KilledForms()
	without := func(drop func(f *opFixture) bool) []*opFixture {
		var out []*opFixture
		for _, f := range all {
			if !drop(f) {
				out = append(out, f)
			}
		}
		return out
	}
	stray := *all[0]
	stray.Op, stray.path = "author.fly", filepath.Join(fixtureDir, stray.Kind, "author.fly.json")
	var framing opFixture
	for _, f := range all {
		if f.Kind == "framing" {
			framing = *f
			break
		}
	}
	framing.Tainted += "!"
	var foreign opFixture
	for _, f := range all {
		if f.Kind == "negative" && f.Op == "dli.fmt" {
			foreign = *f
		}
	}
	foreign.Error = &fixtureError{Class: "refused", Code: "branch-protected"}
	tests := []struct {
		name     string
		fixtures []*opFixture
		want     string
	}{
		{"no golden add_fact", without(func(f *opFixture) bool { return f.Kind == "golden" && f.Op == "author.add_fact" }), "author.add_fact has no golden fixture"},
		{"no negative dli.fmt", without(func(f *opFixture) bool { return f.Kind == "negative" && f.Op == "dli.fmt" }), "dli.fmt has no negative fixture"},
		{"no framing dli.version", without(func(f *opFixture) bool { return f.Kind == "framing" && f.Op == "dli.version" }), "dli.version has no framing fixture"},
		{"an op nobody serves", append(slices.Clone(all), &stray), "op author.fly is not served"},
		{"a killed form uncalled", without(func(f *opFixture) bool { return f.Killed == "author.commit" }), "killed form author.commit has no fixture"},
		{"no killed version", without(func(f *opFixture) bool { return strings.HasPrefix(f.Killed, "1.") }), "no fixture calls a killed 1.x contract version"},
		{"a lopsided pair", append(slices.Clone(all), &framing), "benign and tainted must differ and have the same length"},
		{"an error the op does not declare", append(slices.Clone(all), &foreign), "error branch-protected is neither the protocol's nor one dli.fmt declares"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			gaps := strings.Join(fixtureGaps(served, killed, tc.fixtures), "\n")
			if !strings.Contains(gaps, tc.want) {
				t.Fatalf("gaps do not report %q:\n%s", tc.want, gaps)
			}
		})
	}
	if gaps := fixtureGaps(served, killed, all); len(gaps) != 0 {
		t.Fatalf("the committed set has gaps: %v", gaps)
	}
}
