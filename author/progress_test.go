package author

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/deloreis/deloreis/base/progress"
	"github.com/deloreis/deloreis/dli"
	"github.com/deloreis/deloreis/lorestore"
	"github.com/deloreis/deloreis/objects"
)

// report is one progress report a use case made.
type report struct {
	done, total float64
	msg         string
}

// heard is a context listening for reports, and what it heard.
func heard() (context.Context, func() []report) {
	var mu sync.Mutex
	var got []report
	ctx := progress.With(context.Background(), func(done, total float64, msg string) {
		mu.Lock()
		defer mu.Unlock()
		got = append(got, report{done, total, msg})
	})
	return ctx, func() []report {
		mu.Lock()
		defer mu.Unlock()
		return append([]report(nil), got...)
	}
}

// stages is the distinct messages of reports, in order.
func stages(rs []report) []string {
	var out []string
	for _, r := range rs {
		if len(out) == 0 || out[len(out)-1] != r.msg {
			out = append(out, r.msg)
		}
	}
	return out
}

// increasing fails unless done only grows, as MCP progress must.
func increasing(t *testing.T, rs []report) {
	t.Helper()
	for i := 1; i < len(rs); i++ {
		if rs[i].done <= rs[i-1].done {
			t.Fatalf("report %d: done %v after %v: %+v", i, rs[i].done, rs[i-1].done, rs)
		}
	}
}

// personsDoc is a document of n persons in scope camelot.
func personsDoc(t *testing.T, n, from int) *dli.Document {
	t.Helper()
	var b strings.Builder
	b.WriteString("scope camelot\n")
	for i := from; i < from+n; i++ {
		fmt.Fprintf(&b, "person p-%d \"P %d\"  proposed  session-7c9\n", i, i)
	}
	doc, err := dli.Parse("p.dli", []byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// TestImportReportsProgress: an import over a head reports its stages —
// the compile (of the head's world when it is small enough to be staged
// onto it, of everything in one pass when it is big), the consequences,
// and a count of the objects written — on one growing scale that ends at
// its total.
func TestImportReportsProgress(t *testing.T) {
	for _, tc := range []struct {
		name    string
		n       int
		compile string
	}{
		{"staged onto the head's world", 10, "compiling the world of camelot"},
		{"compiled with the head's objects", bigStage + 1, fmt.Sprintf("compiling %d declarations into camelot", bigStage+1)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, "camelot")
			h.commitObjects("main", "camelot", &objects.Entity{Kind: objects.KindPerson, Ident: "galahad", Name: "Galahad", Provenance: prop0})
			ctx, got := heard()
			if _, err := h.svc.Import(ctx, ImportRequest{Doc: personsDoc(t, tc.n, 0), Materialize: true}); err != nil {
				t.Fatal(err)
			}
			rs := got()
			increasing(t, rs)
			want := []string{tc.compile, "computing the consequences", "writing objects"}
			if s := stages(rs); strings.Join(s, "|") != strings.Join(want, "|") {
				t.Fatalf("stages %q, want %q", s, want)
			}
			last := rs[len(rs)-1]
			if last.done != float64(tc.n+2) || last.total != last.done {
				t.Fatalf("last report %+v, want %d of %d", last, tc.n+2, tc.n+2)
			}
		})
	}
}

// TestBulkImportReportsProgress: a bulk import counts the declarations it
// has written as it streams them (no total: the stream's length is not
// known), then reports the commit.
func TestBulkImportReportsProgress(t *testing.T) {
	old := dli.StreamChunkBytes
	dli.StreamChunkBytes = 1 << 10 // many chunks from a small text
	defer func() { dli.StreamChunkBytes = old }()
	h := newHarness(t, "camelot")
	const n = 500
	var b strings.Builder
	b.WriteString("scope camelot\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "person p-%d \"P %d\"  proposed  session-7c9\n", i, i)
	}
	ds := dli.NewStream("p.dli", strings.NewReader(b.String()))
	defer ds.Close()
	first, more, err := ds.Next()
	if err != nil {
		t.Fatal(err)
	}
	ctx, got := heard()
	if _, err := h.svc.BulkImport(ctx, BulkRequest{Scope: "camelot", First: first, More: more, Next: ds.Next, Materialize: true, Name: "p.dli"}); err != nil {
		t.Fatal(err)
	}
	rs := got()
	increasing(t, rs)
	if s := stages(rs); len(s) != 2 || s[0] != "writing declarations" || s[1] != "committing" {
		t.Fatalf("stages %q", s)
	}
	counts := len(rs) - 1
	if counts < 5 || rs[counts-1].done >= n || rs[counts].done != n+1 {
		t.Fatalf("%d counts, the last %v, then %v: %+v", counts, rs[counts-1].done, rs[counts].done, rs)
	}
	for _, r := range rs {
		if r.total != 0 {
			t.Fatalf("a stream's report has a total: %+v", r)
		}
	}
}

// TestFirstCompileReports: opening a workspace on a commit whose world no
// cache and no world file holds reports the compile; a second opening
// (cached) and a fresh process's (the world file) report nothing.
func TestFirstCompileReports(t *testing.T) {
	h := newHarness(t, "camelot")
	h.commitObjects("main", "camelot", &objects.Entity{Kind: objects.KindPerson, Ident: "galahad", Name: "Galahad", Provenance: prop0})
	open := func(svc *Service) []report {
		ctx, got := heard()
		if _, err := svc.OpenWorkspace(ctx, &OpenParams{Scope: "camelot"}); err != nil {
			t.Fatal(err)
		}
		return got()
	}
	if rs := open(h.svc); len(rs) != 1 || rs[0] != (report{0, 0, "compiling the world of camelot"}) {
		t.Fatalf("first open reported %+v", rs)
	}
	if rs := open(h.svc); len(rs) != 0 {
		t.Fatalf("a cached open reported %+v", rs)
	}
	h.store.WaitBackground()
	s2, err := lorestore.Open(h.store.Dir(), lorestore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s2.Close() })
	svc, err := New(Config{Store: s2, Documents: []string{"camelot"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(worldFilePath(h.store, mustHead(t, h.store), "camelot")); err != nil {
		t.Fatalf("no world file: %v", err)
	}
	if rs := open(svc); len(rs) != 0 {
		t.Fatalf("an open from the world file reported %+v", rs)
	}
}

func mustHead(t *testing.T, s *lorestore.Store) lorestore.Hash {
	t.Helper()
	h, err := s.Head("main")
	if err != nil {
		t.Fatal(err)
	}
	return h
}
