// The program texts of dke-mcp-contract.txt: each checks on its surface,
// and the watch module fails with exactly the diagnostic of §6.1.

package check_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/deloreis/deloreis/dke/check"
	"github.com/deloreis/deloreis/dke/diag"
	"github.com/deloreis/deloreis/dke/keywords"
)

const whileMessage = "DKE Python has no `while` loop — iteration is bounded: `for <var> in <finite collection>:` over a store-derived collection (e.g. `list attributes of K`). Bounded iteration is the termination guarantee; there is no unbounded loop."

// contractWatch is the §6.1 exchange of the contract: the submission,
// the response and the resubmission, read from the contract's text.
type contractWatch struct {
	source, resubmission string
	status               diag.Class
	diagnostics          []any
}

// readContractWatch decodes the §6.1 exchange from the contract text.
func readContractWatch(t *testing.T, text string) contractWatch {
	t.Helper()
	decodeAt := func(marker string, from int, v any) int {
		i := strings.Index(text[from:], marker)
		if i < 0 {
			t.Fatalf("the contract has no %q after offset %d", marker, from)
		}
		d := json.NewDecoder(strings.NewReader(text[from+i:]))
		if err := d.Decode(v); err != nil {
			t.Fatalf("the contract's %q block: %v", marker, err)
		}
		return from + i + int(d.InputOffset())
	}
	var sub, resub struct{ Name, Source string }
	var resp struct {
		Meta struct {
			CompileStatus string `json:"compile_status"`
			Diagnostics   []any  `json:"diagnostics"`
		} `json:"_meta"`
	}
	off := decodeAt(`{ "name": "watch"`, 0, &sub)
	off = decodeAt(`{ "isError"`, off, &resp)
	decodeAt(`{ "name": "watch"`, off, &resub)
	return contractWatch{sub.Source, resub.Source, diag.Class(resp.Meta.CompileStatus), resp.Meta.Diagnostics}
}

// TestContractWatch replays §6.1 of the contract, read from ../shared:
// the watch module fails with exactly the contract's diagnostic, and the
// resubmission compiles.
func TestContractWatch(t *testing.T) {
	env := testEnv(t)
	w := readContractWatch(t, readShared(t, "spec/dke-mcp-contract.txt"))
	_, _, errs := check.Source("watch", w.source, keywords.Eng, check.Options{Module: "watch", Env: env})
	if got, want := canonicalJSON(errs), canonicalJSON(w.diagnostics); got != want {
		t.Errorf("diagnostics\n got %s\nwant %s", got, want)
	}
	if len(errs) != 1 || errs[0].Message != whileMessage {
		t.Errorf("the while message differs from the contract's: %v", errs)
	}
	if errs.Status() != w.status || w.status != diag.ParseError {
		t.Errorf("compile_status %q, contract %q", errs.Status(), w.status)
	}
	if _, _, errs := check.Source("watch", w.resubmission, keywords.Eng, check.Options{Module: "watch", Env: env}); len(errs) > 0 {
		t.Errorf("the resubmission: %v", errs)
	}
}

// canonicalJSON renders v as JSON after a round trip through any, so
// that structs and decoded maps compare by content.
func canonicalJSON(v any) string {
	b, _ := json.Marshal(v)
	var g any
	json.Unmarshal(b, &g)
	b, _ = json.Marshal(g)
	return string(b)
}

func TestContractPrograms(t *testing.T) {
	env := testEnv(t)
	for _, tc := range []struct {
		src  string
		lang keywords.Lang
		mode check.Mode
	}{
		{"import inventory\ninventory.restock(\"widget-1\")", keywords.Eng, check.Run},
		{"import inventory\nn = inventory.count_on_hand(\"widget-1\")", keywords.Eng, check.Run},
		{"remember(Sensor.s1.room, \"kitchen\", \"survey\")\nc = current(Sensor.s1.room)\nprint(c.value)", keywords.Eng, check.Run},
		{"husk(Sensor.s1.room, \"kitchen\", \"survey\")\nc = gjeldende(Sensor.s1.room)\nskriv(c.value)", keywords.Nob, check.Run},
		{"def ingest(id: int, payload: string, dry_run: bool):\n    pass\n", keywords.Eng, check.Compile},
		{"t = why(Sensor.s1.room)\nprint(t.text)\nprint(list_scripts())", keywords.Eng, check.Run},
	} {
		if _, _, errs := check.Source("p", tc.src, tc.lang, check.Options{Module: "p", Mode: tc.mode, Env: env}); len(errs) > 0 {
			t.Errorf("%q: %v", tc.src, errs)
		}
	}
	m, _ := env.Module("inventory")
	s, _ := m.Script("ingest")
	if got := s.Signature("inventory"); got != "inventory.ingest(id: int, payload: string, dry_run: bool)" {
		t.Errorf("signature %q", got)
	}
}

// A program that declares is refused with a message saying to compile it.
func TestRunRefusesDeclarations(t *testing.T) {
	for src, want := range map[string]string{
		"def f():\n    pass\n":         "compile it as a module",
		"class K:\n    x: int\n":       "compile it as a module",
		"@rule\ndef r(s):\n    pass\n": "compile it as a module",
		"class K:\n    @computed\n    def f(k) -> int:\n        return 1\n": "computed fields",
		"return 1\n":  "a program cannot `return`",
		"# nothing\n": "nothing to run",
		"":            "nothing to run",
	} {
		_, _, errs := check.Source("p", src, keywords.Eng, check.Options{Mode: check.Run})
		if len(errs) == 0 || !strings.Contains(errs[0].Message, want) || errs[0].Class != diag.ParseError {
			t.Errorf("%q: %v, want %q", src, errs, want)
		}
	}
}

func TestModuleInfo(t *testing.T) {
	env := testEnv(t)
	m, _ := env.Module("sensors")
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	var back check.ModuleInfo
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	b2, _ := json.Marshal(&back)
	if string(b) != string(b2) {
		t.Errorf("ModuleInfo does not round-trip:\n%s\n%s", b, b2)
	}
	k, ok := env.Kind("Sensor")
	if !ok || k.Module != "sensors" {
		t.Fatalf("kind Sensor: %v", k)
	}
	if a, ok := k.Attr("fahrenheit"); !ok || !a.Computed || a.Type != check.Float {
		t.Errorf("fahrenheit: %+v", a)
	}
	if len(m.Rules) != 1 || m.Rules[0].Name != "sensors.in_building" || m.Rules[0].Heads[0] != "Room.sensor_building" {
		t.Errorf("rules: %+v", m.Rules)
	}
	w, _ := env.Module("writer")
	if s, _ := w.Script("bump"); !s.Writes {
		t.Error("writer.bump writes")
	}
	p, _ := env.Module("ping")
	if s, _ := p.Script("p"); len(s.Calls) != 1 || s.Calls[0] != "pong.q" {
		t.Errorf("ping.p calls %v", s.Calls)
	}
}
