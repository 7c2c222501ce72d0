// The contract's runs, read from ../shared/spec/dke-mcp-contract.txt: the
// §8.1 pair in eng and nob, the §4.2 call of a compiled module, and the
// §6.1 resubmitted watch module called on a kind.

package eval

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/deloreis/deloreis/dke/keywords"
)

// readShared reads rel under ../shared beside the repository root, failing
// (never skipping) when it is missing.
func readShared(t *testing.T, rel string) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		up := filepath.Dir(dir)
		if up == dir {
			t.Fatal("no go.mod above the test's folder")
		}
		dir = up
	}
	b, err := os.ReadFile(filepath.Join(dir, "..", "shared", filepath.FromSlash(rel)))
	if err != nil {
		t.Fatalf("the shared texts are missing (%v): the tests need ../shared beside the repository", err)
	}
	return string(b)
}

// decodeAll decodes every JSON object of the contract that starts with
// marker, in order.
func decodeAll(t *testing.T, text, marker string, each func(dec *json.Decoder)) int {
	t.Helper()
	n := 0
	for off := 0; ; {
		i := strings.Index(text[off:], marker)
		if i < 0 {
			return n
		}
		dec := json.NewDecoder(strings.NewReader(text[off+i:]))
		each(dec)
		off += i + len(marker)
		n++
	}
}

// contractRuns returns the §8.1 run calls: language and source.
func contractRuns(t *testing.T, text string) []step {
	var out []step
	decodeAll(t, text, `{"name": "run"`, func(dec *json.Decoder) {
		var call struct {
			Arguments struct{ Language, Source string } `json:"arguments"`
		}
		if err := dec.Decode(&call); err != nil {
			t.Fatalf("a run call of the contract: %v", err)
		}
		out = append(out, step{lang: mustLang(t, call.Arguments.Language), src: call.Arguments.Source})
	})
	return out
}

// TestContractSection81 runs the eng and nob programs of §8.1 over one
// store: both print kitchen, and they see each other's claims — the nob
// run's remember is the eng run's claim again, so it adds none.
func TestContractSection81(t *testing.T) {
	runs := contractRuns(t, readShared(t, "spec/dke-mcp-contract.txt"))
	if len(runs) != 2 || runs[0].lang != keywords.Eng || runs[1].lang != keywords.Nob {
		t.Fatalf("want the eng and nob runs of §8.1, got %+v", runs)
	}
	w := newWorld()
	for i, s := range runs {
		r := w.do(t, s)
		if !r.OK() || !slices.Equal(r.Prints(), []string{"kitchen"}) {
			t.Errorf("run %d (%s): want OK printing kitchen, got\n%s", i, s.lang, r.Transcript())
		}
		if want := 1 - i; r.Written() != want {
			t.Errorf("run %d wrote %d claims, want %d", i, r.Written(), want)
		}
	}
	if n := w.store.Len(); n != 1 {
		t.Errorf("the store holds %d claims, want the one both runs share", n)
	}
}

// TestContractCalls compiles the reference's inventory module and runs
// the §4.2 program read from the contract, then the §6.1 watch module as
// resubmitted, called on a kind.
func TestContractCalls(t *testing.T) {
	text := readShared(t, "spec/dke-mcp-contract.txt")
	var call struct{ Source string }
	if decodeAll(t, text, `{"source": "import inventory`, func(dec *json.Decoder) {
		if err := dec.Decode(&call); err != nil {
			t.Fatal(err)
		}
	}) != 1 {
		t.Fatal("the contract's §4.2 call is not there")
	}
	var watch []struct{ Name, Source string }
	decodeAll(t, text, `{ "name": "watch"`, func(dec *json.Decoder) {
		var s struct{ Name, Source string }
		if err := dec.Decode(&s); err != nil {
			t.Fatal(err)
		}
		watch = append(watch, s)
	})
	if len(watch) != 2 {
		t.Fatalf("want the submission and the resubmission of §6.1, got %d", len(watch))
	}
	w := newWorld()
	w.do(t, step{compile: "inventory", lang: keywords.Eng, src: inventoryModule})
	r := w.do(t, step{lang: keywords.Eng, src: call.Source})
	if got, want := r.Transcript(), "OK program: 1 claim written, 0 claims removed, 0 lines printed\n"+
		"remember Widget.widget-1.stock = 10 from \"restock\"\n"; got != want {
		t.Errorf("§4.2 run:\n%s\nwant\n%s", got, want)
	}
	w.do(t, step{compile: "watch", lang: keywords.Eng, src: watch[1].Source})
	w.do(t, step{lang: keywords.Eng, src: `remember(Sensor.s1.room, "kitchen", "survey")` + "\n" + `remember(Sensor.s1.celsius, 20.5, "probe")`})
	r = w.do(t, step{lang: keywords.Eng, src: "import watch\nwatch.watch(\"Sensor\")\n"})
	if got := fmt.Sprint(r.Prints()); got != "[celsius room]" {
		t.Errorf("watch printed %s, want the attributes of Sensor in order", got)
	}
}

// TestContractQuotes holds testdata/runs/contract.dke, whose golden file
// shows the transcripts of the contract's runs, to the contract's text:
// each quoted source is the contract's, byte for byte.
func TestContractQuotes(t *testing.T) {
	text := readShared(t, "spec/dke-mcp-contract.txt")
	b, err := os.ReadFile("testdata/runs/contract.dke")
	if err != nil {
		t.Fatal(err)
	}
	steps := parseCase(t, string(b))
	quoted := map[string]bool{}
	for _, s := range steps {
		quoted[strings.TrimSuffix(s.src, "\n")] = true
	}
	want := contractRuns(t, text)
	var call struct{ Source string }
	decodeAll(t, text, `{"source": "import inventory`, func(dec *json.Decoder) {
		if err := dec.Decode(&call); err != nil {
			t.Fatal(err)
		}
	})
	want = append(want, step{src: call.Source})
	var watch struct{ Source string }
	n := 0
	decodeAll(t, text, `{ "name": "watch"`, func(dec *json.Decoder) {
		if n++; n == 2 {
			if err := dec.Decode(&watch); err != nil {
				t.Fatal(err)
			}
		}
	})
	want = append(want, step{src: watch.Source})
	for _, w := range want {
		if !quoted[strings.TrimSuffix(w.src, "\n")] {
			t.Errorf("contract.dke does not quote the contract's source:\n%s", w.src)
		}
	}
}

const inventoryModule = `def restock(id: string):
    remember(Widget[id].stock, 10, "restock")

def count_on_hand(id: string) -> int:
    c = current(Widget[id].stock)
    if c.found:
        return int(c.value)
    return 0
`
