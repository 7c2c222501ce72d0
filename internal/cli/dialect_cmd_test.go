package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTextToolsReadTheProjectsDialects (DL-0158): check and import vet a
// name against a dialect the project file defines, as a workspace does; a
// name the dialect refuses is name.unvetted, one it accepts is not.
func TestTextToolsReadTheProjectsDialects(t *testing.T) {
	dir := expertProject(t)
	for _, tc := range []struct {
		name    string
		unvet   bool
		command string
	}{
		{"Mirwen", false, "check"}, {"Mirken", true, "check"},
		{"Mirwen", false, "import"}, {"Mirken", true, "import"},
	} {
		t.Run(tc.command+"-"+tc.name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "names.dli")
			text := "scope riverlands\nname mireth \"" + tc.name + "\" in river-speech proposed session-7c9\n"
			if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
			out, errOut, _ := deloreis(t, "--project", dir, tc.command, file)
			if got := strings.Contains(out+errOut, "name.unvetted"); got != tc.unvet {
				t.Fatalf("%s of %s: name.unvetted reported %v, want %v\n%s%s", tc.command, tc.name, got, tc.unvet, out, errOut)
			}
		})
	}
}

// TestDLICheckReadsTheProjectsDialects: dli.check over the store and
// standalone vets names against the project file's dialects too.
func TestDLICheckReadsTheProjectsDialects(t *testing.T) {
	s := startServer(t, "--project", expertProject(t))
	for i, tc := range []struct {
		name       string
		standalone bool
		unvet      bool
	}{{"Mirwen", false, false}, {"Mirken", false, true}, {"Mirwen", true, false}, {"Mirken", true, true}} {
		text := "scope riverlands\nname mireth \"" + tc.name + "\" in river-speech proposed session-7c9\n"
		m := s.callJSON("c-"+string(rune('a'+i)), "dli.check", map[string]any{"text": text, "standalone": tc.standalone})
		if m["ok"] != true {
			t.Fatalf("dli.check: %v", m)
		}
		got := strings.Contains(mustJSONString(t, m["findings"]), "name.unvetted")
		if got != tc.unvet {
			t.Errorf("%s (standalone %v): name.unvetted %v, want %v: %v", tc.name, tc.standalone, got, tc.unvet, m["findings"])
		}
	}
}

func mustJSONString(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
