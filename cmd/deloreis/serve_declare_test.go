package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/deloreis/deloreis/lorestore"
	"github.com/deloreis/deloreis/objects"
	"github.com/deloreis/deloreis/project"
)

// declareProject makes a project for the declaration sessions: document
// "saga" with a recorded decision (canon) to cite, so that claims are
// certain, three persons, a place, an era and three events in it. Commit
// times and the store id are fixed, so every id and digest is stable.
func declareProject(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	if err := project.Create(dir, []string{"saga"}); err != nil {
		t.Fatal(err)
	}
	clock := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	s, err := lorestore.Init(filepath.Join(dir, lorestore.DefaultDir), lorestore.Options{
		StoreID: "dec1a4eddec1a4eddec1a4eddec1a4ed",
		Now:     func() time.Time { clock = clock.Add(time.Minute); return clock },
		Author:  lorestore.Signature{Name: "Spec Keeper", Email: "keeper@deloreis.invalid"},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	canon := objects.Cited(objects.CitedRatified, "canon")
	b := lorestore.NewBatch()
	for _, o := range []objects.Object{
		&objects.Decision{Ident: "canon", Rationale: "The saga as told."},
		&objects.Entity{Kind: objects.KindPerson, Ident: "sigrun", Name: "Sigrun", Provenance: canon},
		&objects.Entity{Kind: objects.KindPerson, Ident: "the-shieldmaiden", Name: "The Shieldmaiden", Provenance: canon},
		&objects.Entity{Kind: objects.KindPerson, Ident: "hogni", Name: "Hogni", Provenance: canon},
		&objects.Entity{Kind: objects.KindPlace, Ident: "the-hall", Name: "The Hall", Provenance: canon},
		&objects.Entity{Kind: objects.KindEra, Ident: "the-old-days", Name: "The Old Days", Provenance: canon},
		&objects.Event{Ident: "the-feast", Era: "the-old-days", Provenance: canon},
		&objects.Event{Ident: "the-burning", Era: "the-old-days", Provenance: canon},
		&objects.Event{Ident: "the-voyage", Era: "the-old-days", Provenance: canon},
	} {
		if _, err := b.Put("saga", o); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.Commit(b, lorestore.NewMessage("materialize saga: the setting", "materialize", "saga"), lorestore.CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestServeDeclareSessions drives `deloreis serve` through each
// declaration session (testdata/serve/declare-*.jsonl: rule refusals,
// identity, inertia, derived FD breaks, predicate identity), each over a
// fresh declareProject, and compares every response with its golden file.
func TestServeDeclareSessions(t *testing.T) {
	files, err := filepath.Glob("testdata/serve/declare-*.jsonl")
	if err != nil || len(files) == 0 {
		t.Fatalf("no declare sessions: %v", err)
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".jsonl")
		t.Run(name, func(t *testing.T) {
			reqs, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			s := startServer(t, "--project", declareProject(t))
			var got strings.Builder
			for _, line := range strings.Split(strings.TrimSpace(string(reqs)), "\n") {
				if line == "" || strings.HasPrefix(line, "#") {
					continue
				}
				got.WriteString(s.call(line))
				got.WriteByte('\n')
			}
			golden(t, "serve/"+name, got.String())
		})
	}
}
