package decisionlog

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestProjectLog holds docs/decisions.md to the log's rules: numbers
// unique and ascending, and every superseded or folded entry pointing at a
// later entry that exists and is itself current. Issue 8 item 21 names the
// entries that must be marked.
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
	for old, now := range map[int]int{5: 27, 16: 25, 22: 29, 24: 29, 26: 29, 28: 29} {
		if got := byNumber[old].ReplacedBy; got != now {
			t.Errorf("DL-%04d is replaced by DL-%04d, want DL-%04d", old, got, now)
		}
	}
	for _, n := range []int{22, 24, 26, 28} {
		if !strings.Contains(byNumber[29].Title, "DL-"+pad(n)) {
			t.Errorf("DL-0029 does not say it folds DL-%04d", n)
		}
	}
}

func pad(n int) string { return strings.Repeat("0", 4-len(itoa(n))) + itoa(n) }

func itoa(n int) string {
	if n < 10 {
		return string(rune('0' + n))
	}
	return itoa(n/10) + string(rune('0'+n%10))
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
}
