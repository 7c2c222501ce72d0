// The chunked stream reads every declaration as a whole-file parse does,
// at the same positions, and stops without waiting for input.

package dli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestDeclStreamMatchesParse: cut into chunks of any size, a document
// yields the declarations Parse finds in it whole, at the same
// positions.
func TestDeclStreamMatchesParse(t *testing.T) {
	srcs := map[string]string{}
	for _, f := range []string{"camelot.dli", "messy.dli"} {
		b, err := os.ReadFile(filepath.Join("testdata", "good", f))
		if err != nil {
			t.Fatal(err)
		}
		srcs[f] = string(b)
	}
	srcs["generated"] = bulkDLI(300, -1)
	for name, src := range srcs {
		whole, err := Parse(name, []byte(src))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, size := range []int{1, 40, 700, 1 << 20} {
			t.Run(fmt.Sprintf("%s/%d", name, size), func(t *testing.T) {
				defer setChunk(size)()
				ds := NewStream(name, strings.NewReader(src))
				defer ds.Close()
				var got []Decl
				for {
					decls, more, err := ds.Next()
					if err != nil {
						t.Fatal(err)
					}
					if !more {
						break
					}
					got = append(got, decls...)
				}
				if ds.Scope() != whole.Scope {
					t.Fatalf("scope %q, want %q", ds.Scope(), whole.Scope)
				}
				if len(got) != len(whole.Decls) {
					t.Fatalf("%d declarations, want %d", len(got), len(whole.Decls))
				}
				for i, d := range got {
					w := whole.Decls[i]
					gid, _ := d.Object.ID()
					wid, _ := w.Object.ID()
					if gid != wid || d.Pos != w.Pos {
						t.Fatalf("declaration %d: %s at %v, want %s at %v", i, gid, d.Pos, wid, w.Pos)
					}
				}
			})
		}
	}
}

// TestDeclStreamErrors: a broken document's first problem is reported at
// the same place and in the same words as Parse reports it, whatever
// the chunk size.
func TestDeclStreamErrors(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("..", "testdata", "dli", "broken.dli"))
	if err != nil {
		t.Fatal(err)
	}
	srcs := map[string]string{"broken.dli": string(src), "generated": bulkDLI(200, 301)}
	for name, src := range srcs {
		_, err := Parse(name, []byte(src))
		var want ErrorList
		if !errors.As(err, &want) {
			t.Fatalf("%s parses: %v", name, err)
		}
		for _, size := range []int{1, 100, 1 << 20} {
			defer setChunk(size)()
			ds := NewStream(name, strings.NewReader(src))
			var got ErrorList
			for {
				_, more, err := ds.Next()
				if err != nil {
					if !errors.As(err, &got) {
						t.Fatal(err)
					}
					break
				}
				if !more {
					break
				}
			}
			ds.Close()
			if len(got) == 0 || got[0].Error() != want[0].Error() {
				t.Fatalf("%s in chunks of %d: first problem %v, want %v", name, size, got, want[0])
			}
		}
	}
}

func setChunk(n int) func() {
	old := StreamChunkBytes
	StreamChunkBytes = n
	return func() { StreamChunkBytes = old }
}

// TestDeclStreamCloseDoesNotWaitForInput: a refused import over a pipe
// that sends nothing more still ends.
func TestDeclStreamCloseDoesNotWaitForInput(t *testing.T) {
	pr, pw := io.Pipe()
	defer pw.Close()
	ds := NewStream("pipe", pr)
	if _, err := pw.Write([]byte("scope s\n")); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { ds.Close(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Close waited for input that never came")
	}
}

// bulkDLI is a document of n persons with facts and relations, comments
// and continuation lines; bad, when not negative, is a line number made
// into a declaration that does not parse (the command line's bulk tests
// keep a copy of it).
func bulkDLI(n, bad int) string {
	var b strings.Builder
	b.WriteString("# grammar: v0\nscope bulk\n\n")
	for i := range 20 {
		fmt.Fprintf(&b, "place place-%d \"Place %d\"   proposed  session-7c9\n", i, i)
	}
	for i := range n {
		fmt.Fprintf(&b, "person p-%d \"Person %d\"   proposed  session-7c9\n", i, i)
		if i%7 == 0 {
			fmt.Fprintf(&b, "# about p-%d\n\n", i)
		}
		fmt.Fprintf(&b, "p-%d.title = \"Knight %d\"\n", i, i%13)
		if i%5 == 0 {
			b.WriteString("# a comment inside a declaration\n")
		}
		b.WriteString("  proposed  session-7c9\n")
		fmt.Fprintf(&b, "serves(p-%d, place-%d)   proposed  session-7c9\n", i, i%20)
	}
	if bad < 0 {
		return b.String()
	}
	lines := strings.SplitAfter(b.String(), "\n")
	lines[bad-1] = "person bad-one \"Unclosed   proposed  session-7c9\n"
	return strings.Join(lines, "")
}
