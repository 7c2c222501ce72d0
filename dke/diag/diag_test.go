// Tests of diagnostics: ordering, de-duplication, status, JSON, and the
// one mechanical way of applying a fix.

package diag

import (
	"encoding/json"
	"testing"
)

func TestSortDedupe(t *testing.T) {
	l := List{
		{Class: TypeError, Line: 3, Col: 1, Message: "b"},
		{Class: ParseError, Line: 1, Col: 5, Message: "a"},
		{Class: TypeError, Line: 3, Col: 1, Message: "b", Fix: "x"},
		{Class: TypeError, Line: 1, Col: 5, Message: "a"},
	}
	l.Sort()
	if len(l) != 3 || l[0].Class != ParseError || l[2].Line != 3 {
		t.Fatalf("sorted: %v", l)
	}
	if l.Status() != ParseError || (List{l[2]}).Status() != TypeError || (List{}).Status() != "" {
		t.Error("status")
	}
	if l.Err() == nil || (List{}).Err() != nil {
		t.Error("Err")
	}
}

func TestJSON(t *testing.T) {
	b, _ := json.Marshal(List{{Class: ParseError, Line: 3, Col: 5, Message: "m", Fix: "f"}, {Class: TypeError, Line: 1, Col: 1, Message: "n"}})
	want := `[{"class":"parse_error","line":3,"col":5,"message":"m","fix":"f"},{"class":"type_error","line":1,"col":1,"message":"n"}]`
	if string(b) != want {
		t.Errorf("got %s", b)
	}
	if b, _ := json.Marshal(List(nil)); string(b) != "[]" {
		t.Errorf("nil list: %s", b)
	}
}

func TestApplyFix(t *testing.T) {
	for _, tc := range []struct {
		src  string
		d    Diagnostic
		want string
	}{
		{"a\n    while x:\n", Diagnostic{Line: 2, Col: 5, Fix: "for <var> in <collection>:"}, "a\n    for <var> in <collection>:\n"},
		{"a\r\n  bé = 1\r\nz", Diagnostic{Line: 2, Col: 5, Fix: "2"}, "a\r\n  bé2\r\nz"},
		{"x", Diagnostic{Line: 1, Col: 1, Fix: "y"}, "y"},
		{"x", Diagnostic{Line: 2, Col: 1, Fix: "y"}, "x"},
		{"x", Diagnostic{Line: 1, Col: 9, Fix: "y"}, "x"},
		{"x", Diagnostic{Line: 1, Col: 1}, "x"},
		{"ab", Diagnostic{Line: 1, Col: 3, Fix: "c"}, "abc"},
	} {
		if got := ApplyFix(tc.src, tc.d); got != tc.want {
			t.Errorf("ApplyFix(%q, %d:%d %q) = %q, want %q", tc.src, tc.d.Line, tc.d.Col, tc.d.Fix, got, tc.want)
		}
	}
}

func TestPlaceholders(t *testing.T) {
	fix := "for <var> in <collection>: # x < y"
	if p := Placeholders(fix); len(p) != 2 || p[0] != VarPlaceholder || p[1] != CollectionPlaceholder {
		t.Errorf("Placeholders = %v", p)
	}
	got := Fill(fix, map[string]string{VarPlaceholder: "a"})
	if got != "for a in <collection>: # x < y" {
		t.Errorf("Fill = %q", got)
	}
}

func TestError(t *testing.T) {
	d := Diagnostic{File: "w.dpy", Class: ParseError, Line: 3, Col: 5, Message: "m"}
	if d.Error() != "w.dpy:3:5: parse_error: m" {
		t.Error(d.Error())
	}
}
