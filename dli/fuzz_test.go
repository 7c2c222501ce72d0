// This file holds FuzzParse. Its seed corpus — the testdata files, the
// spec examples and a few generated documents — runs with every plain go
// test.

package dli

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

func FuzzParse(f *testing.F) {
	files, err := filepath.Glob(filepath.Join("testdata", "*", "*.dli"))
	if err != nil || len(files) == 0 {
		f.Fatalf("no testdata files: %v", err)
	}
	for _, name := range files {
		src, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(src)
	}
	f.Add([]byte(specDiffBlock))
	for _, tc := range specRendered {
		f.Add([]byte(tc.quote))
	}
	g := newGen(3)
	for i := 0; i < 20; i++ {
		f.Add(Format(g.document(4)))
	}
	for _, s := range []string{
		"", "\n\n", "\uFEFF# grammar: v0\n", "#\r\n", "a\r", "x.y = \"\\q\"", "person a \"\n",
		"question q \"Q\"\n  # c\n  option a \"A\"\n# d\n", "rule r: h(?x) :- not not(X)\n  proposed s\n",
		"scope a\nscope b\n", "  option a \"A\"\n", "ratify d\n", "decision d\n  cited a, b ratified\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		doc, err := Parse("fuzz.dli", src)
		if doc == nil {
			t.Fatal("Parse returned a nil Document")
		}
		if err != nil {
			return
		}
		out := Format(doc)
		back, err := Parse("fuzz-formatted.dli", out)
		if err != nil {
			t.Fatalf("formatted output does not parse: %v\ninput:\n%q\noutput:\n%s", err, src, out)
		}
		if d := sameDoc(doc, back); d != "" {
			t.Fatalf("format changed the AST: %s\ninput:\n%q\noutput:\n%s", d, src, out)
		}
		if again := Format(back); !bytes.Equal(again, out) {
			t.Fatalf("Format is not idempotent:\n%s\nthen\n%s", out, again)
		}
	})
}
