// This file holds acceptance test 1: every rendered .dli example in the
// authoring-tools spec (dli-authoring-tools.txt), quoted verbatim with the
// section it comes from, parses and re-renders byte for byte; and each
// rendered array is exactly RenderDecl of the object the tool's params
// describe.

package dli

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/deloreis/deloreis/objects"
)

// specFile is the authoring-tools spec, relative to ../shared beside the
// repository root; the tests fail without it.
const specFile = "spec/dli-authoring-tools.txt"

// specDiffBlock is the author.diff rendering of §2, verbatim.
const specDiffBlock = `# grammar: v0 (unfrozen; AST normative)
scope camelot
person galahad "Galahad"   proposed  session-7c9
place logres "Logres"      proposed  session-7c9
`

// specRendered are the "rendered" arrays of §3, each quoted verbatim as
// the JSON it is in the spec, with the object the tool call's params
// describe (nil for author.suppose, which renders nothing).
var specRendered = []struct {
	section string
	quote   string // the JSON array, verbatim
	obj     objects.Object
}{
	{"3.1 author.add_entity", `["person mireth \"Mireth\"     proposed  session-7c9"]`,
		&objects.Entity{Kind: objects.KindPerson, Ident: "mireth", Name: "Mireth", Provenance: objects.Proposed("session-7c9")}},
	{"3.2 author.add_fact", `["mireth.tongue = low-saltish     proposed  session-7c9"]`,
		&objects.Fact{Entity: "mireth", Key: "tongue", Value: "low-saltish", Provenance: objects.Proposed("session-7c9")}},
	{"3.3 author.add_relation", `["serves(mireth, the-warden)     proposed  session-7c9"]`,
		&objects.Relation{Relation: "serves", From: "mireth", To: "the-warden", Provenance: objects.Proposed("session-7c9")}},
	{"3.4 author.add_event", `["event the-drowning during the-salt-years proposed session-7c9"]`,
		&objects.Event{Ident: "the-drowning", Era: "the-salt-years", Provenance: objects.Proposed("session-7c9")}},
	{"3.5 author.add_before", `["before(the-drowning, the-reclaiming)", "  proposed session-7c9"]`,
		&objects.Before{Earlier: "the-drowning", Later: "the-reclaiming", Provenance: objects.Proposed("session-7c9")}},
	{"3.6 author.open_question", `["question where-the-first-ward-stood \"Where did the first ward stand?\""]`,
		&objects.Question{Ident: "where-the-first-ward-stood", Prompt: "Where did the first ward stand?"}},
	{"3.8 author.add_hypothesis", `["hypothesis coast-runs-north \"The coast runs north.\""]`,
		&objects.Hypothesis{Ident: "coast-runs-north", Statement: "The coast runs north."}},
	{"3.9 author.suppose", `[]`, nil},
}

// specOption is the rendered array of §3.7 author.add_option, verbatim: the
// option line alone, which stands below its question (§3.6).
const specOption = `["  option the-tidewall \"The Tidewall\""]`

// decodeRendered decodes a quoted rendered array.
func decodeRendered(t *testing.T, quote string) []string {
	t.Helper()
	var lines []string
	if err := json.Unmarshal([]byte(quote), &lines); err != nil {
		t.Fatalf("decode %s: %v", quote, err)
	}
	return lines
}

// joinLines joins lines into .dli text, each ending in '\n'.
func joinLines(lines []string) string {
	if len(lines) == 0 {
		return ""
	}
	return strings.Join(lines, "\n") + "\n"
}

func TestSpecDiffBlock(t *testing.T) {
	doc, err := Parse("spec-2.dli", []byte(specDiffBlock))
	if err != nil {
		t.Fatalf("§2 author.diff block: %v", err)
	}
	if doc.Grammar != "v0" || doc.Scope != "camelot" || len(doc.Decls) != 2 {
		t.Fatalf("§2: grammar %q scope %q %d decls; want v0 camelot 2", doc.Grammar, doc.Scope, len(doc.Decls))
	}
	if got := string(Format(doc)); got != specDiffBlock {
		t.Errorf("§2 re-rendered:\n%s\nwant:\n%s", got, specDiffBlock)
	}
	want := []objects.Object{
		&objects.Entity{Kind: objects.KindPerson, Ident: "galahad", Name: "Galahad", Provenance: objects.Proposed("session-7c9")},
		&objects.Entity{Kind: objects.KindPlace, Ident: "logres", Name: "Logres", Provenance: objects.Proposed("session-7c9")},
	}
	lines := strings.Split(specDiffBlock, "\n")[2:4]
	for i, o := range want {
		assertSameObject(t, "§2 decl "+itoa(i), doc.Decls[i].Object, o)
		if got := RenderDecl(o); !slices.Equal(got, lines[i:i+1]) {
			t.Errorf("§2: RenderDecl = %q, want [%q]", got, lines[i])
		}
	}
}

func TestSpecRendered(t *testing.T) {
	for _, tc := range specRendered {
		lines := decodeRendered(t, tc.quote)
		src := joinLines(lines)
		doc, err := Parse(tc.section, []byte(src))
		if err != nil {
			t.Errorf("§%s: %v", tc.section, err)
			continue
		}
		if got := string(Format(doc)); got != src {
			t.Errorf("§%s re-rendered %q, want %q", tc.section, got, src)
		}
		if tc.obj == nil {
			if len(doc.Decls) != 0 {
				t.Errorf("§%s: %d decls, want none", tc.section, len(doc.Decls))
			}
			continue
		}
		if len(doc.Decls) != 1 {
			t.Errorf("§%s: %d decls, want 1", tc.section, len(doc.Decls))
			continue
		}
		assertSameObject(t, tc.section, doc.Decls[0].Object, tc.obj)
		if got := RenderDecl(tc.obj); !slices.Equal(got, lines) {
			t.Errorf("§%s: RenderDecl(params) = %q, want %q", tc.section, got, lines)
		}
	}
}

func TestSpecOption(t *testing.T) {
	question := decodeRendered(t, specRendered[5].quote)
	option := decodeRendered(t, specOption)
	src := joinLines(append(question, option...))
	doc, err := Parse("spec-3.7.dli", []byte(src))
	if err != nil {
		t.Fatalf("§3.7 below §3.6: %v", err)
	}
	if got := string(Format(doc)); got != src {
		t.Errorf("§3.7 re-rendered %q, want %q", got, src)
	}
	q, ok := doc.Decls[0].Object.(*objects.Question)
	if !ok || len(q.Options) != 1 {
		t.Fatalf("§3.7: got %#v, want a question with one option", doc.Decls[0].Object)
	}
	want := objects.Option{Ident: "the-tidewall", Label: "The Tidewall"}
	if got := RenderOption(&want); got != option[0] {
		t.Errorf("§3.7: RenderOption = %q, want %q", got, option[0])
	}
	if q.Options[0].Ident != want.Ident || q.Options[0].Label != want.Label || q.Options[0].Implies != nil {
		t.Errorf("§3.7: option %#v, want %#v", q.Options[0], want)
	}
}

// TestSpecQuotesVerbatim checks that every quote above is in the spec
// text, byte for byte, so the table cannot drift from it.
func TestSpecQuotesVerbatim(t *testing.T) {
	spec := sharedFile(t, specFile)
	quotes := []string{specDiffBlock, specOption}
	for _, tc := range specRendered {
		quotes = append(quotes, tc.quote)
	}
	for _, q := range quotes {
		if !strings.Contains(string(spec), q) {
			t.Errorf("quote not in the spec verbatim: %q", q)
		}
	}
}

// TestSpecEveryRendered checks that every "rendered" array in the spec
// is one the table above checks, so an example added to the spec cannot
// go untested: each is found by its JSON member and compared verbatim.
func TestSpecEveryRendered(t *testing.T) {
	spec := string(sharedFile(t, specFile))
	known := map[string]bool{specOption: true}
	for _, tc := range specRendered {
		known[tc.quote] = true
	}
	const member = `"rendered": `
	n := 0
	for rest := spec; ; {
		i := strings.Index(rest, member)
		if i < 0 {
			break
		}
		rest = rest[i+len(member):]
		var raw json.RawMessage
		if err := json.NewDecoder(strings.NewReader(rest)).Decode(&raw); err != nil {
			t.Fatalf("a rendered member that is not JSON: %v: %.60q", err, rest)
		}
		n++
		if !known[string(raw)] {
			t.Errorf("rendered array %s of the spec is not checked here", raw)
		}
	}
	if n != len(known) {
		t.Errorf("the spec holds %d rendered arrays; the table checks %d", n, len(known))
	}
}

// assertSameObject compares two objects by their canonical bytes.
func assertSameObject(t *testing.T, what string, got, want objects.Object) {
	t.Helper()
	g, err := objects.Canonical(got)
	if err != nil {
		t.Fatalf("%s: got an invalid object: %v", what, err)
	}
	w, err := objects.Canonical(want)
	if err != nil {
		t.Fatalf("%s: want is invalid: %v", what, err)
	}
	if string(g) != string(w) {
		t.Errorf("%s:\n got %s\nwant %s", what, g, w)
	}
}
