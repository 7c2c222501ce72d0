// Tests of the reference: docs/dke is generated from it (-update rewrites
// it), every example checks on both surfaces, every topic and section the
// contract cites is there.

package reference

import (
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/deloreis/deloreis/dke/check"
	"github.com/deloreis/deloreis/dke/keywords"
)

var update = flag.Bool("update", false, "rewrite docs/dke from the reference")

func TestDocsAreGenerated(t *testing.T) {
	for _, tc := range []struct {
		file string
		lang keywords.Lang
	}{{"reference.md", keywords.Eng}, {"reference.nob.md", keywords.Nob}} {
		path := filepath.Join("..", "..", "docs", "dke", tc.file)
		got := Full(tc.lang)
		if *update {
			if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil || string(want) != got {
			t.Errorf("%s is stale: run go test ./dke/reference -update (%v)", path, err)
		}
	}
}

// exampleEnv is the store the examples run against.
func exampleEnv(t *testing.T) check.Env {
	env := check.NewMapEnv()
	for _, m := range []struct{ name, src string }{
		{"inventory", "def restock(id: string):\n    remember(Widget[id].stock, 10, \"restock\")\n\ndef count_on_hand(id: string) -> int:\n    return int(current(Widget[id].stock).value)\n"},
		{"sensors", "class Sensor:\n    room: string\n    celsius: float\n"},
	} {
		_, info, errs := check.Source(m.name, m.src, keywords.Eng, check.Options{Module: m.name, Env: env})
		if len(errs) > 0 {
			t.Fatal(errs)
		}
		env.Put(info)
	}
	return env
}

var blockRE = regexp.MustCompile("(?s)```(dke[a-z-]*)\n(.*?)```")

func TestExamplesCheck(t *testing.T) {
	env := exampleEnv(t)
	n := 0
	for _, f := range fullFiles {
		b, _ := text.ReadFile("text/" + f)
		for _, m := range blockRE.FindAllStringSubmatch(string(b), -1) {
			for _, l := range keywords.Langs {
				n++
				src := translate(m[2], l)
				mode := check.Compile
				if m[1] != "dke" {
					mode = check.Run
				}
				_, _, errs := check.Source(f, src, l, check.Options{Module: "example", Mode: mode, Env: env})
				if bad := m[1] == "dke-bad"; bad != (len(errs) > 0) {
					t.Errorf("%s (%s, %s): %v\n%s", f, m[1], l, errs, src)
				}
			}
		}
	}
	if n < 20 {
		t.Errorf("only %d examples", n)
	}
}

func TestTopics(t *testing.T) {
	for _, topic := range Topics() {
		for _, l := range keywords.Langs {
			s, err := Topic(l, topic)
			if err != nil || !strings.HasPrefix(s, "## §") {
				t.Errorf("%s/%s: %v %.40q", topic, l, err, s)
			}
		}
	}
	if _, err := Topic(keywords.Eng, "grammar"); err == nil {
		t.Error("unknown topic served")
	}
	full := Full(keywords.Eng)
	for i := 1; i <= 12; i++ {
		if !strings.Contains(full, "## §"+itoa(i)+" ") {
			t.Errorf("no section §%d", i)
		}
	}
	for _, want := range []string{"### §9.1 A module", "English on every surface. what_needs why_not", "| `remember` | `husk` |"} {
		if !strings.Contains(full, want) {
			t.Errorf("the reference lacks %q", want)
		}
	}
	nob := Full(keywords.Nob)
	for _, want := range []string{"for a blant liste attributter av k:", "`husk`", "`why_not`"} {
		if !strings.Contains(nob, want) {
			t.Errorf("the nob reference lacks %q", want)
		}
	}
}

func itoa(i int) string {
	if i >= 10 {
		return string(rune('0'+i/10)) + string(rune('0'+i%10))
	}
	return string(rune('0' + i))
}
