// The program texts of dke-mcp-contract.txt: each checks on its surface,
// and the watch module fails with exactly the diagnostic of §6.1.

package check_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deloreis/deloreis/dke/check"
	"github.com/deloreis/deloreis/dke/diag"
	"github.com/deloreis/deloreis/dke/keywords"
)

const whileMessage = "DKE Python has no `while` loop — iteration is bounded: `for <var> in <finite collection>:` over a store-derived collection (e.g. `list attributes of K`). Bounded iteration is the termination guarantee; there is no unbounded loop."

func TestContractWatch(t *testing.T) {
	env := testEnv(t)
	src := "def watch(n: int):\n    i = 0\n    while i < n:\n        print(\"checking\")\n"
	_, _, errs := check.Source("watch", src, keywords.Eng, check.Options{Module: "watch", Env: env})
	got, _ := json.Marshal(errs)
	want, _ := json.Marshal([]map[string]any{{"class": "parse_error", "line": 3, "col": 5, "message": whileMessage, "fix": "for <var> in <collection>:"}})
	var g, w any
	json.Unmarshal(got, &g)
	json.Unmarshal(want, &w)
	if gs, ws := canonicalJSON(g), canonicalJSON(w); gs != ws {
		t.Errorf("diagnostics\n got %s\nwant %s", gs, ws)
	}
	if errs.Status() != diag.ParseError {
		t.Errorf("compile_status %q", errs.Status())
	}
	fixed := "def watch(k: string):\n    for a in list attributes of k:\n        print(a)\n"
	if _, _, errs := check.Source("watch", fixed, keywords.Eng, check.Options{Module: "watch", Env: env}); len(errs) > 0 {
		t.Errorf("the resubmission: %v", errs)
	}
	// The message is the contract's, word for word, where the contract is
	// at hand (shared/ beside the checkout).
	if text, err := os.ReadFile(filepath.Join("..", "..", "..", "shared", "spec", "dke-mcp-contract.txt")); err == nil {
		if !strings.Contains(string(text), `"message": "`+whileMessage+`"`) {
			t.Error("the while message differs from the contract's")
		}
	}
}

func canonicalJSON(v any) string { b, _ := json.Marshal(v); return string(b) }

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
