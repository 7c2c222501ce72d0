// Tests of the scanner, the parser and translation: tokens and layout,
// positions in characters, module names, recovery, and the contract's
// §8.1 program having one tree on both surfaces.

package syntax

import (
	"strings"
	"testing"

	"github.com/deloreis/deloreis/dke/keywords"
)

func kinds(toks []Token) string {
	var b []string
	for _, t := range toks {
		s := t.Kind.String()
		if t.Kind == IDENT || t.Kind == KEYWORD {
			s = t.Text
		}
		b = append(b, s)
	}
	return strings.Join(b, " ")
}

func TestScanLayout(t *testing.T) {
	src := "def f(n: int):\n    if n:\n        pass\n\n    # note\n    x = (1,\n  2)\nf(1)\n"
	toks, errs := Scan(src, keywords.Eng)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	want := "def f ( n : int ) : newline indent if n : newline indent pass newline outdent x = ( int , int ) newline outdent f ( int ) newline end of file"
	if got := kinds(toks); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

func TestScanNob(t *testing.T) {
	toks, _ := Scan("hvis x blant xs og ikke y: skriv(i)", keywords.Nob)
	want := "hvis x blant xs og ikke y : skriv ( i ) newline end of file"
	if got := kinds(toks); got != want {
		t.Errorf("got %s", got)
	}
	if toks[0].Kind != KEYWORD || toks[0].KW != keywords.If || toks[10].Kind != IDENT {
		t.Errorf("tokens %v", toks[:2])
	}
}

func TestColumnsAreCharacters(t *testing.T) {
	toks, _ := Scan("ø = \"åå\" + ß\n", keywords.Eng)
	cols := []int32{1, 3, 5, 10, 12}
	for i, c := range cols {
		if toks[i].Pos.Col != c {
			t.Errorf("token %d (%s) at col %d, want %d", i, toks[i].Text, toks[i].Pos.Col, c)
		}
	}
}

func TestLiterals(t *testing.T) {
	toks, errs := Scan(`1 2.5 1e3 "a\n\u00e9" 'b' """c
d"""`, keywords.Eng)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	want := []any{int64(1), 2.5, 1000.0, "a\né", "b", "c\nd"}
	for i, w := range want {
		if toks[i].Value != w {
			t.Errorf("literal %d = %#v, want %#v", i, toks[i].Value, w)
		}
	}
}

func TestModuleNames(t *testing.T) {
	good := []string{"inventory", "watch", "Måler", "møte2", "a_b", "δ", "日本"}
	bad := map[string]string{
		"": "empty", "a.b": "dot", "my-mod": "hyphen", "_x": "underscore", "2x": "must start",
		"a b": "not an identifier", "cafe\u0301": "NFC", "\u037a": "must start",
	}
	for _, n := range good {
		if err := CheckModuleName(n); err != nil {
			t.Errorf("%q: %v", n, err)
		}
	}
	for n, want := range bad {
		err := CheckModuleName(n)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", n, err, want)
		}
	}
}

func TestXID(t *testing.T) {
	for _, tc := range []struct {
		r           rune
		start, cont bool
	}{
		{'a', true, true}, {'_', false, true}, {'1', false, true}, {'é', true, true},
		{'\u0301', false, true}, {'\u037a', false, false}, {'\u0e33', false, true},
		{'\uff9e', false, true}, {'-', false, false}, {'·', false, true},
	} {
		if IsXIDStart(tc.r) != tc.start || IsXIDContinue(tc.r) != tc.cont {
			t.Errorf("%U: start %v continue %v, want %v %v", tc.r, IsXIDStart(tc.r), IsXIDContinue(tc.r), tc.start, tc.cont)
		}
	}
}

// The contract's §8.1 program: one tree on both surfaces.
func TestSection81SameTree(t *testing.T) {
	eng := "remember(Sensor.s1.room, \"kitchen\", \"survey\")\nc = current(Sensor.s1.room)\nprint(c.value)"
	nob := "husk(Sensor.s1.room, \"kitchen\", \"survey\")\nc = gjeldende(Sensor.s1.room)\nskriv(c.value)"
	fe, errs := Parse("eng", eng, keywords.Eng)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	fn, errs := Parse("nob", nob, keywords.Nob)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	if Dump(fe) != Dump(fn) {
		t.Errorf("trees differ:\n%s\n---\n%s", Dump(fe), Dump(fn))
	}
	if got, err := Translate(eng, keywords.Eng, keywords.Nob); err != nil || got != nob {
		t.Errorf("Translate = %q, %v", got, err)
	}
	if !strings.Contains(Dump(fe), "ID: remember") {
		t.Errorf("the tree stores canonical ids:\n%s", Dump(fe))
	}
}

func TestTranslate(t *testing.T) {
	src := "@rule\ndef r(s):\n    if Sensor[s].room and not Doc.if.in: # if in comments stays\n        X[s].y = True\ntry:\n    forget(A.b.c, before=3)\nexcept missing as e:\n    print(\"if\", list claims of A.b.c)\n"
	want := "@regel\ndef r(s):\n    hvis Sensor[s].room og ikke Doc.if.in: # if in comments stays\n        X[s].y = Sann\nprøv:\n    glem(A.b.c, før=3)\nfang mangler som e:\n    skriv(\"if\", liste påstander av A.b.c)\n"
	got, err := Translate(src, keywords.Eng, keywords.Nob)
	if err != nil || got != want {
		t.Fatalf("got %q, %v\nwant %q", got, err, want)
	}
	back, err := Translate(got, keywords.Nob, keywords.Eng)
	if err != nil || back != src {
		t.Errorf("back %q, %v", back, err)
	}
	if _, err := Translate("hvis = 1\n", keywords.Eng, keywords.Nob); err == nil {
		t.Error("a name that is a nob keyword was translated")
	}
}

func TestRecoveryReportsEveryError(t *testing.T) {
	src := "x = = 1\ny = 2\nz = (\nwhile True:\n    pass\nq = 3 **\n"
	_, errs := Parse("f", src, keywords.Eng)
	if len(errs) < 3 {
		t.Errorf("want several errors, got %v", errs)
	}
	for _, d := range errs {
		if d.File != "f" || d.Line < 1 || d.Col < 1 {
			t.Errorf("bad diagnostic %+v", d)
		}
	}
}

func TestForeignStatementKeyword(t *testing.T) {
	_, errs := Parse("f", "if x:\n    hopp_over\n", keywords.Nob)
	if len(errs) != 1 || errs[0].Fix != "hvis x:" || !strings.Contains(errs[0].Message, "`if` is the eng word; nob writes `hvis`") {
		t.Errorf("got %v (fix %q)", errs, errs[0].Fix)
	}
	f, _ := Parse("f", "if = 1\n", keywords.Nob)
	if _, ok := f.Stmts[0].(*AssignStmt); !ok {
		t.Error("`if` as a nob name was not an assignment")
	}
}

func TestSpans(t *testing.T) {
	f, _ := Parse("f", "def f(n: int) -> int:\n    return n + 1\n", keywords.Eng)
	s, e := f.Stmts[0].Span()
	if s.Line != 1 || s.Col != 1 || e.Line != 2 || e.Col != 17 {
		t.Errorf("span %v %v", s, e)
	}
}
