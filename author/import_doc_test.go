package author

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/deloreis/deloreis/dli"
	"github.com/deloreis/deloreis/objects"
)

// importText is a document of about n declarations and, with blocking,
// error findings throughout: relations naming people never declared (more
// than are listed of one code) and a rule whose head variable its body
// leaves unbound, placed at the part at fault.
func importText(n int, blocking bool) string {
	var b strings.Builder
	b.WriteString("# grammar: v0\nscope camelot\n\n")
	for i := range n / 4 {
		fmt.Fprintf(&b, "person p-%d \"Person %d\"  proposed  session-7c9\n", i, i)
		if i%7 == 0 {
			b.WriteString("# an aside\n\n")
		}
		fmt.Fprintf(&b, "p-%d.title = \"Knight %d\"   proposed  session-7c9\n", i, i%13)
		fmt.Fprintf(&b, "serves(p-%d, logres)  proposed  session-7c9\n", i)
		if blocking && i%40 == 0 {
			fmt.Fprintf(&b, "serves(stranger-%d, logres)  proposed  session-7c9\n", i)
		} else {
			fmt.Fprintf(&b, "p-%d.rank = %d  proposed  session-7c9\n", i, i%5)
		}
	}
	b.WriteString("place logres \"Logres\"  proposed  session-7c9\n")
	b.WriteString("rule knight: knight(X) :- serves(X, logres)  proposed  session-7c9\n")
	b.WriteString("rule lone: lone(X) :- person(X), not serves(X, logres)  proposed  session-7c9\n")
	if blocking {
		b.WriteString("rule loose: loose(X, Z) :- serves(X, logres)  proposed  session-7c9\n")
		b.WriteString("rule twice: twice(X) :- person(X)  proposed  session-7c9\n")
	}
	return b.String()
}

// TestImportDocMatchesWhole: an import of a text parsed in parts
// (ParseImport, as `deloreis import` reads a file) answers what the import
// of the same text parsed whole answers — the findings at the same lines
// and columns, the same consequences and counts, the same refusal — and
// commits the same objects in the same tree, with the same commit
// message, author and time, whether the document is staged onto the
// head's world or compiled with it in one pass and written as a bulk
// commit, in one part or in many.
func TestImportDocMatchesWhole(t *testing.T) {
	for _, tc := range []struct {
		name      string
		n         int
		partBytes int
		blocking  bool
	}{
		{"small, one part", 40, 1 << 20, false},
		{"big, one part", bigStage + 400, 1 << 20, false},
		{"big, many parts", bigStage + 400, 700, false},
		{"big, blocked", bigStage + 400, 900, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			old := importPartBytes
			importPartBytes = tc.partBytes
			defer func() { importPartBytes = old }()
			text := importText(tc.n, tc.blocking)
			whole, err := dli.Parse("grail.dli", []byte(text))
			if err != nil {
				t.Fatal(err)
			}
			parts, err := ParseImport("grail.dli", text)
			if err != nil {
				t.Fatal(err)
			}
			if tc.partBytes < len(text)/4 && len(parts.parts) < 4 {
				t.Fatalf("%d parts of a %d-byte text cut every %d bytes", len(parts.parts), len(text), tc.partBytes)
			}
			imp := func(r ImportRequest) (*harness, ImportResult, error) {
				h := newHarness(t, "camelot")
				h.commitObjects("main", "camelot", &objects.Entity{Kind: objects.KindPerson, Ident: "galahad", Name: "Galahad", Provenance: prop0},
					&objects.Entity{Kind: objects.KindPerson, Ident: "p-1", Name: "Person 1", Provenance: objects.Proposed("session-7c9")})
				r.Materialize, r.Listed, r.Source = true, 5, "grail.dli"
				res, err := h.svc.Import(context.Background(), r)
				return h, res, err
			}
			hw, want, werr := imp(ImportRequest{Doc: whole})
			hp, got, gerr := imp(ImportRequest{Parsed: parts})
			if fmt.Sprint(gerr) != fmt.Sprint(werr) {
				t.Fatalf("error %v, want %v", gerr, werr)
			}
			if tc.blocking && len(want.Findings) <= MaxFindingsPerCode || want.Counts.Moved() == 0 || want.Declarations != tc.n/4*4+3+btoi(tc.blocking)*2 {
				t.Fatalf("the text must have findings and consequences: %d findings, %+v, %d declarations", len(want.Findings), want.Counts, want.Declarations)
			}
			if tc.blocking != want.Blocked {
				t.Fatalf("blocked %v, want %v", want.Blocked, tc.blocking)
			}
			got.Commit, want.Commit = "", "" // each store is its own: compared below
			got.Base, want.Base = "", ""
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("parsed in parts:\n%+v\nparsed whole:\n%+v", got, want)
			}
			if tc.blocking {
				return
			}
			// The scopes folder and the commit, but for its root tree and
			// parent (each store's root holds its own store id).
			if g, w := hp.git("rev-parse", "main:scopes"), hw.git("rev-parse", "main:scopes"); g != w {
				t.Fatalf("scopes tree %s, want %s", g, w)
			}
			commit := func(h *harness) string {
				var keep []string
				for _, l := range strings.Split(h.git("cat-file", "commit", "main"), "\n") {
					if !strings.HasPrefix(l, "tree ") && !strings.HasPrefix(l, "parent ") {
						keep = append(keep, l)
					}
				}
				return strings.Join(keep, "\n")
			}
			if g, w := commit(hp), commit(hw); g != w {
				t.Fatalf("commit:\n%s\nwant:\n%s", g, w)
			}
		})
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestParseImportErrors: a text that does not parse, or whose parts would
// not parse as the whole does (a scope line after a declaration), fails
// with the errors dli.Parse reports of the whole text.
func TestParseImportErrors(t *testing.T) {
	old := importPartBytes
	importPartBytes = 64
	defer func() { importPartBytes = old }()
	body := importText(200, false)
	for _, tc := range []struct{ name, text string }{
		{"a bad line late", body + "person ??? oops\n"},
		{"a bad line early", strings.Replace(body, "serves(p-3, logres)", "serves(p-3 logres", 1)},
		{"a second scope line", body + "scope avalon\nperson x \"X\"  proposed  session-7c9\n"},
		{"a scope line after a declaration", "person x \"X\"  proposed  session-7c9\n" + body},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, want := dli.Parse("grail.dli", []byte(tc.text))
			_, got := ParseImport("grail.dli", tc.text)
			if want == nil || !reflect.DeepEqual(got, want) {
				t.Fatalf("ParseImport: %v\ndli.Parse: %v", got, want)
			}
		})
	}
}
