package names

import (
	"strings"
	"testing"
)

func TestProblem(t *testing.T) {
	cases := []struct {
		name, in, want string // want: a substring of the problem, "" for none
	}{
		{"plain", "main", ""},
		{"unicode letters", "grüne-wiese", ""},
		{"composed", "caf\u00e9", ""},
		{"decomposed", "cafe\u0301", "NFC"},
		{"zero-width space", "ma\u200bin", "U+200B"},
		{"right-to-left override", "main\u202etxt", "U+202E"},
		{"left-to-right mark", "\u200emain", "U+200E"},
		{"isolate", "a\u2066b", "U+2066"},
		{"byte-order mark", "\ufeffmain", "U+FEFF"},
		{"soft hyphen", "ma\u00adin", "U+00AD"},
		{"hangul filler", "a\u3164b", "U+3164"},
		{"grapheme joiner", "a\u034fb", "U+034F"},
		{"variation selector", "a\ufe0fb", "U+FE0F"},
		{"no-break space", "a\u00a0b", "U+00A0"},
		{"invalid utf-8", "a\xffb", "UTF-8"},
		{"real replacement character", "a\ufffdb", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := Problem(c.in)
			if c.want == "" && got != "" || c.want != "" && !strings.Contains(got, c.want) {
				t.Fatalf("Problem(%q) = %q, want %q", c.in, got, c.want)
			}
		})
	}
}

func TestCollides(t *testing.T) {
	cases := []struct {
		in       string
		existing []string
		want     string
	}{
		{"MAIN", []string{"main"}, "main"},
		{"Main", []string{"dev", "main"}, "main"},
		{"main", []string{"main"}, ""},
		{"STRASSE", []string{"straße"}, "straße"},
		{"café", []string{"CAFE\u0301"}, "CAFE\u0301"},
		{"side", []string{"main"}, ""},
	}
	for _, c := range cases {
		got, ok := Collides(c.in, c.existing)
		if got != c.want || ok != (c.want != "") {
			t.Errorf("Collides(%q, %q) = %q, %v; want %q", c.in, c.existing, got, ok, c.want)
		}
	}
}
