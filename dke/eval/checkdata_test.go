package eval

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deloreis/deloreis/dke/keywords"
)

// TestCheckerCorpus runs what the checker's own tests hold as clean: its
// stored modules (in their dependency order) and the sections of
// valid.dke, each compiled and its body run, over one store. Every body
// runs as the text says: the eng section to the end, the nob one until
// its boolsk("ja"), which no bool conversion accepts, after the update
// before it has persisted.
func TestCheckerCorpus(t *testing.T) {
	dir := filepath.Join("..", "check", "testdata")
	w := newWorld()
	for _, name := range []string{"inventory", "sensors", "pong", "ping", "flags", "writer"} {
		src, err := os.ReadFile(filepath.Join(dir, "store", name+".dpy"))
		if err != nil {
			t.Fatal(err)
		}
		if r := w.do(t, step{compile: name, lang: keywords.Eng, src: string(src)}); !r.OK() {
			t.Errorf("module %s: %s", name, r.Transcript())
		}
	}
	text, err := os.ReadFile(filepath.Join(dir, "valid.dke"))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"OK program: 2 claims written, 0 claims removed, 1 line printed\n",
		"feil: programmet feilet — linje 56: konvertering: kan ikke konvertere \"ja\" til boolsk\noppdater Hylle.a1.etikett = \"A1\" fra \"fix\"\n",
	}
	secs := strings.Split(string(text), "\n---\n")
	if len(secs) != len(want) {
		t.Fatalf("valid.dke has %d sections, want %d", len(secs), len(want))
	}
	for i, sec := range secs {
		lang := keywords.Eng
		if strings.Contains(sec, "# option: nob") {
			lang = keywords.Nob
		}
		r := w.do(t, step{compile: "valid" + string(rune('a'+i)), lang: lang, src: sec})
		if got := r.Transcript(); !strings.HasPrefix(got, want[i]) {
			t.Errorf("valid.dke section %d:\n%s\nwant it to start\n%s", i, got, want[i])
		}
	}
}
