// This file holds the error tests: exact positions and messages for each
// kind of problem, recovery (every independent error of a file is
// reported), and the ErrorList methods.

package dli

import (
	"errors"
	"strings"
	"testing"
)

// errorLines returns the errors of a parse as "line:col: message" lines.
func errorLines(t *testing.T, src string) []string {
	t.Helper()
	doc, err := Parse("", []byte(src))
	if doc == nil {
		t.Fatal("Parse returned a nil Document")
	}
	if err == nil {
		return nil
	}
	var list ErrorList
	if !errors.As(err, &list) {
		t.Fatalf("error is %T, not an ErrorList", err)
	}
	var lines []string
	for _, e := range list {
		lines = append(lines, e.Error())
	}
	return lines
}

// errorCases are sources with one problem each, and the error they give.
var errorCases = []struct {
	name, src string
	want      []string
}{
	{"relation with three arguments", "serves(mireth, the-warden, galahad)     proposed  s\n",
		[]string{"1:26: expected `)` after relation arguments, found `,`"}},
	{"relation missing comma", "serves(mireth the-warden)     proposed  s\n",
		[]string{"1:15: expected `,` between relation arguments, found `the-warden`"}},
	{"event without during", "event the-drowning in the-salt-years proposed s\n",
		[]string{"1:20: expected `during` after the event id, found `in`"}},
	{"missing provenance", "mireth.tongue = low-saltish\n",
		[]string{"1:1: missing provenance for fact: expected `proposed`, `hypothesis` or `cited` at the end of the line or on an indented line below it"}},
	{"before without provenance line", "before(a, b)\nperson x \"X\"  proposed  s\n",
		[]string{"1:1: missing provenance for before: expected `proposed`, `hypothesis` or `cited` at the end of the line or on an indented line below it"}},
	{"unquoted name", "person galahad Galahad   proposed  s\n",
		[]string{"1:16: expected non-empty quoted name after the entity id, found `Galahad`"}},
	{"empty name", "person galahad \"\"   proposed  s\n",
		[]string{"1:16: expected non-empty quoted name after the entity id, found string \"\""}},
	{"invalid id", "person -galahad \"G\"   proposed  s\n",
		[]string{"1:8: `-galahad` is not a valid id: an id starts with a letter or digit"}},
	{"id too long", "person " + strings.Repeat("a", 129) + " \"G\"   proposed  s\n",
		[]string{"1:8: id `" + strings.Repeat("a", 32) + "…` is 129 bytes; an id is at most 128"}},
	{"cited without state", "x.y = z     cited  d1, d2\n",
		[]string{"1:26: expected `provisional` or `ratified` after the cited decisions, found end of line"}},
	{"cited trailing comma", "x.y = z     cited  d1, ratified\n",
		[]string{"1:32: expected `provisional` or `ratified` after the cited decisions, found end of line"}},
	{"question with provenance", "question q \"Q?\"  proposed  s\n",
		[]string{"1:18: a question carries no provenance"}},
	{"stray option", "  option a \"A\"\n",
		[]string{"1:3: `option` line outside a question: options are indented below their `question` line"}},
	{"stray provenance", "  proposed s\n",
		[]string{"1:3: provenance line with no declaration above it"}},
	{"indented declaration", "x.y = z     proposed  s\n\n  person a \"A\"  proposed  s\n",
		[]string{"3:3: expected provenance (`proposed`, `hypothesis` or `cited`) on an indented line below fact, found `person`"}},
	{"second provenance", "before(a, b) proposed s\n  proposed t\n",
		[]string{"2:3: second provenance for before: a declaration has one"}},
	{"duplicate option", "question q \"Q?\"\n  option a \"A\"\n  option a \"B\"\n",
		[]string{"3:3: option `a` repeats an earlier option of this question"}},
	{"variable in implied atom", "question q \"Q?\"\n  option a \"A\" implies p(?x)\n",
		[]string{"2:26: an implied atom is ground: it takes constants, not variables"}},
	{"rule without :-", "rule r: h(X) b(X)\n  proposed s\n",
		[]string{"1:14: expected `:-` after the rule head, found `b`"}},
	{"rule atom without parens", "rule r: h(X) :- b\n  proposed s\n",
		[]string{"1:18: expected `(` after the predicate name, found end of line"}},
	{"scope twice", "scope a\nscope b\n",
		[]string{"2:1: second scope line: this document's scope is `a`, declared at line 1"}},
	{"scope late", "x.y = z     proposed  s\nscope a\n",
		[]string{"2:1: the scope line must come before the first declaration"}},
	{"indented line below the scope", "scope a\n  person b \"B\"  proposed  s\n",
		[]string{"2:3: unexpected indentation: a declaration starts at column 1"}},
	{"scope without id", "scope\n", []string{"1:6: expected scope id after `scope`, found end of line"}},
	{"unknown grammar", "# grammar: v1\n", []string{"1:1: unsupported grammar `v1`: this parser reads v0"}},
	{"unknown declaration", "frob x\n", []string{"1:1: expected a declaration (an entity kind, `event`, `before`, `question`, `hypothesis`, `rule`, " +
		"`functional`, `inertial`, `same-as`, `predicate-same-as`, `state`, `decision`, `attack`, `standing`, " +
		"`ratify`, a fact `entity.key = value` or a relation `name(from, to)`), found `frob`"}},
	{"trailing comment", "x.y = z     proposed  s  # why\n",
		[]string{"1:26: a comment must be on a line of its own, not after fact"}},
	{"unterminated string", "person a \"A   proposed  s\n", []string{"1:10: string not terminated: a string ends on its own line"}},
	{"unknown escape", "person a \"A\\n\"   proposed  s\n", []string{"1:12: unknown escape in string: the escapes are \\\" and \\\\"}},
	{"tab in string", "person a \"A\tB\"   proposed  s\n",
		[]string{"1:12: control character U+0009 in string: free text holds no control characters"}},
	{"control character", "person a \"A\"   proposed  s\x01\n", []string{"1:27: control character U+0001 is not allowed in .dli text"}},
	{"lone carriage return", "person a \"A\"   proposed  s\r", []string{"1:27: control character U+000D is not allowed in .dli text"}},
	{"invalid utf-8", "person a \"A\"   proposed  s \xff\n", []string{"1:28: invalid UTF-8 byte 0xff"}},
	{"non-breaking space", "person\u00a0a \"A\"   proposed  s\n",
		[]string{"1:7: unexpected space character U+00A0; only spaces and tabs separate tokens"}},
	{"columns count characters", "person ñandú \"Ñ\"  proposed  s ¿\n",
		[]string{"1:31: unexpected character `¿`; text that holds it is written as a quoted string"}},
	{"object id", "standing abc ratified by d\n",
		[]string{"1:10: `abc` is not an object id: an object id is 64 lowercase hex digits"}},
	{"standing value", "standing " + strings.Repeat("ab", 32) + " accepted by d\n",
		[]string{"1:75: expected `provisional`, `ratified` or `defeated` after the claim id, found `accepted`"}},
	{"ratify without claims", "ratify d\n",
		[]string{"1:1: ratify names no claims: expected an indented `claim <object-id>` line below it"}},
	{"decision empty rationale", "decision d \"\"\n",
		[]string{"1:12: expected non-empty quoted rationale after the decision id, found string \"\""}},
	{"validation backstop", "question q \"" + strings.Repeat("x", 65<<10) + "\"\n",
		[]string{"1:12: question: prompt is 66560 bytes; free text is at most 65536 bytes"}},
	{"validation at the option", "question q \"Q\"\n  option a \"A\"\n  option b \"" + strings.Repeat("x", 65<<10) + "\"\n",
		[]string{"3:12: question: options[1].label is 66560 bytes; free text is at most 65536 bytes"}},
	{"validation at the term", "rule r: h(X) :-  b(X, \"" + strings.Repeat("x", 65<<10) + "\")\n  proposed s\n",
		[]string{"1:23: rule: body[0].atom.args[1].const is 66560 bytes; free text is at most 65536 bytes"}},
}

func TestErrors(t *testing.T) {
	for _, tc := range errorCases {
		got := errorLines(t, tc.src)
		if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
			t.Errorf("%s:\n got %q\nwant %q", tc.name, got, tc.want)
		}
	}
}

// TestRecovery checks that the parser reports every independent error of
// a file, not only the first, and keeps the declarations that parsed.
func TestRecovery(t *testing.T) {
	src := `# grammar: v0 (unfrozen; AST normative)
scope camelot
person galahad "Galahad"   proposed  session-7c9
serves(mireth, the-warden, galahad)     proposed  session-7c9
place logres "Logres"      proposed  session-7c9
event the-drowning in the-salt-years proposed session-7c9
before(the-drowning, the-reclaiming)
  proposed session-7c9
mireth.tongue = low-saltish
person mireth "Mireth"     proposed  session-7c9
`
	want := []string{
		"4:26: expected `)` after relation arguments, found `,`",
		"6:20: expected `during` after the event id, found `in`",
		"9:1: missing provenance for fact: expected `proposed`, `hypothesis` or `cited` at the end of the line or on an indented line below it",
	}
	got := errorLines(t, src)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("got %d errors %q\nwant 3: %q", len(got), got, want)
	}
	doc, _ := Parse("", []byte(src))
	if len(doc.Decls) != 4 {
		t.Errorf("kept %d declarations, want the 4 that parsed", len(doc.Decls))
	}
	for i, line := range []int{3, 5, 7, 10} {
		if doc.Decls[i].Pos != (Pos{line, 1}) {
			t.Errorf("decl %d at %v, want %d:1", i, doc.Decls[i].Pos, line)
		}
	}
}

// TestRecoveryContinuation checks that errors on the continuation lines of
// one declaration are each reported, and that the lines of a broken head
// are skipped without cascading errors.
func TestRecoveryContinuation(t *testing.T) {
	src := "question q \"Q\"\n  option a \"A\" implies\n  option b B\n  option c \"C\"\n" +
		"frob(a b)     proposed  s\n  proposed s\n  option x \"X\"\nx.y = z     proposed  s\n"
	want := []string{
		"2:23: expected predicate after `implies`, found end of line",
		"3:12: expected non-empty quoted label after the option id, found `B`",
		"5:8: expected `,` between relation arguments, found `b`",
		"7:3: expected provenance (`proposed`, `hypothesis` or `cited`) on an indented line below relation, found `option`",
	}
	if got := errorLines(t, src); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got %q\nwant %q", got, want)
	}
}

func TestErrorList(t *testing.T) {
	var l ErrorList
	if l.Err() != nil {
		t.Error("empty list: Err() is not nil")
	}
	l.Add("b.dli", Pos{1, 1}, "b")
	l.Add("a.dli", Pos{3, 9}, "late on the line")
	l.Add("a.dli", Pos{3, 2}, "early on the line")
	l.Add("a.dli", Pos{1, 5}, "first")
	l.Add("a.dli", Pos{3, 2}, "same place")
	l.RemoveMultiples()
	want := []string{"a.dli:1:5: first", "a.dli:3:2: early on the line", "b.dli:1:1: b"}
	if len(l) != len(want) {
		t.Fatalf("RemoveMultiples left %d errors, want %d: %v", len(l), len(want), l)
	}
	for i, e := range l {
		if e.Error() != want[i] {
			t.Errorf("error %d = %q, want %q", i, e.Error(), want[i])
		}
	}
	if got := l.Error(); got != "a.dli:1:5: first (and 2 more errors)" {
		t.Errorf("Error() = %q", got)
	}
	if got := l[:1].Error(); got != "a.dli:1:5: first" {
		t.Errorf("Error() of one = %q", got)
	}
	var e *Error
	if !errors.As(l.Err(), &e) || e.Msg != "first" {
		t.Errorf("errors.As found %v", e)
	}
	if got := (&Error{Msg: "m"}).Error(); got != "m" {
		t.Errorf("Error without file or position = %q", got)
	}
	if got := (Pos{}).String(); got != "-" {
		t.Errorf("zero Pos = %q", got)
	}
}

// TestRepeatedOptionLong checks the repeated-option error in a question
// long enough to be checked through a set.
func TestRepeatedOptionLong(t *testing.T) {
	var b strings.Builder
	b.WriteString("question q \"Q?\"\n")
	for i := 0; i < 40; i++ {
		b.WriteString("  option o" + itoa(i) + " \"O\"\n")
	}
	b.WriteString("  option o3 \"again\"\n  option o40 \"fine\"\n  option o40 \"again\"\n")
	want := []string{"42:3: option `o3` repeats an earlier option of this question",
		"44:3: option `o40` repeats an earlier option of this question"}
	if got := errorLines(t, b.String()); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got %q\nwant %q", got, want)
	}
}
