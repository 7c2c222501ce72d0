package decisionlog

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestProjectLog holds docs/decisions.md to the log's rules: numbers
// unique and ascending; every superseded or folded entry pointing at a later
// entry that exists and is itself current; every absorbed number named by
// one entry only and no longer a heading of its own. Issue 8 item 21 names
// the entries that must be marked as replaced; the log now drops a replaced
// section and names it in the "(Absorbs …)" line of the entry that holds.
func TestProjectLog(t *testing.T) {
	f, err := os.Open(filepath.Join("..", "..", "docs", "decisions.md"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	entries, err := Parse(f)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) < 29 {
		t.Fatalf("only %d entries", len(entries))
	}
	// The log states the rulings in force, not their history (issue 31):
	// past this length, fold a thread into one current entry.
	if data, err := os.ReadFile(f.Name()); err != nil || bytes.Count(data, []byte("\n")) > MaxLines {
		t.Errorf("docs/decisions.md is %d lines, more than %d: fold superseded threads (%v)", bytes.Count(data, []byte("\n")), MaxLines, err)
	}
	byNumber := map[int]Entry{}
	for i, e := range entries {
		if i > 0 && e.Number <= entries[i-1].Number {
			t.Errorf("line %d: DL-%04d follows DL-%04d", e.Line, e.Number, entries[i-1].Number)
		}
		byNumber[e.Number] = e
	}
	for _, e := range entries {
		if e.ReplacedBy == 0 {
			continue
		}
		to, ok := byNumber[e.ReplacedBy]
		switch {
		case !ok:
			t.Errorf("DL-%04d points at DL-%04d, which does not exist", e.Number, e.ReplacedBy)
		case to.Number <= e.Number:
			t.Errorf("DL-%04d points back at DL-%04d", e.Number, to.Number)
		case to.ReplacedBy != 0:
			t.Errorf("DL-%04d points at DL-%04d, itself replaced by DL-%04d", e.Number, to.Number, to.ReplacedBy)
		}
	}
	absorbedBy := map[int]int{}
	for _, e := range entries {
		for _, n := range e.Absorbs {
			if other, ok := absorbedBy[n]; ok {
				t.Errorf("DL-%04d is absorbed by both DL-%04d and DL-%04d", n, other, e.Number)
			}
			absorbedBy[n] = e.Number
			if _, ok := byNumber[n]; ok {
				t.Errorf("DL-%04d absorbs DL-%04d, which still has a section", e.Number, n)
			}
		}
		if e.ReplacedBy != 0 && len(e.Absorbs) > 0 {
			t.Errorf("DL-%04d is replaced by DL-%04d yet absorbs others", e.Number, e.ReplacedBy)
		}
	}
	// The current statement of each marked entry: DL-0029 holds what
	// stages incrementally; DL-0016's revisions went to DL-0025 and the
	// remotes and clones it kept are stated by DL-0034.
	for old, now := range map[int]int{5: 27, 16: 34, 22: 29, 24: 29, 26: 29, 28: 29} {
		got := byNumber[old].ReplacedBy
		if _, ok := byNumber[old]; !ok {
			got = absorbedBy[old]
		}
		if got != now {
			t.Errorf("DL-%04d is replaced by DL-%04d, want DL-%04d", old, got, now)
		}
	}
}

func TestParseRejectsMalformedHeading(t *testing.T) {
	for _, src := range []string{"## DL-12 — short\n", "## DL-0001 no dash\n", "## DLX\n"} {
		if _, err := Parse(strings.NewReader(src)); err == nil {
			t.Errorf("%q: no error", src)
		}
	}
	es, err := Parse(strings.NewReader("# Decisions\n\n## DL-0001 — A\n\nbody\n## DL-0002 — B\n**Superseded by DL-0003** x\n"))
	if err != nil || len(es) != 2 || es[1].ReplacedBy != 3 || es[0].Body != "\nbody\n" {
		t.Fatalf("parse: %+v, %v", es, err)
	}
	es, err = Parse(strings.NewReader("## DL-0009 — C\n\n(Absorbs DL-0004, DL-0007.)\n\nbody\n"))
	if err != nil || len(es) != 1 || len(es[0].Absorbs) != 2 || es[0].Absorbs[0] != 4 || es[0].Absorbs[1] != 7 {
		t.Fatalf("parse absorbs: %+v, %v", es, err)
	}
	for _, src := range []string{"## DL-0009 — C\n(Absorbs DL-4.)\n", "## DL-0009 — C\n(Absorbs DL-0004)\n", "(Absorbs DL-0004.)\n## DL-0009 — C\n"} {
		if _, err := Parse(strings.NewReader(src)); err == nil {
			t.Errorf("%q: no error", src)
		}
	}
}
