package cli

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/deloreis/deloreis/objects"
)

// declareProject makes a project for the declaration sessions: document
// "saga" with a recorded decision (canon) to cite, so that claims are
// certain, three persons, a place, an era and three events in it. Commit
// times and the store id are fixed, so every id and digest is stable.
func declareProject(t testing.TB) string {
	t.Helper()
	canon := objects.Cited(objects.CitedRatified, "canon")
	return seedProject(t, seed{scopes: []string{"saga"}, storeID: "dec1a4eddec1a4eddec1a4eddec1a4ed",
		scope: "saga", summary: "materialize saga: the setting", objects: []objects.Object{
			&objects.Decision{Ident: "canon", Rationale: "The saga as told."},
			&objects.Entity{Kind: objects.KindPerson, Ident: "sigrun", Name: "Sigrun", Provenance: canon},
			&objects.Entity{Kind: objects.KindPerson, Ident: "the-shieldmaiden", Name: "The Shieldmaiden", Provenance: canon},
			&objects.Entity{Kind: objects.KindPerson, Ident: "hogni", Name: "Hogni", Provenance: canon},
			&objects.Entity{Kind: objects.KindPlace, Ident: "the-hall", Name: "The Hall", Provenance: canon},
			&objects.Entity{Kind: objects.KindEra, Ident: "the-old-days", Name: "The Old Days", Provenance: canon},
			&objects.Event{Ident: "the-feast", Era: "the-old-days", Provenance: canon},
			&objects.Event{Ident: "the-burning", Era: "the-old-days", Provenance: canon},
			&objects.Event{Ident: "the-voyage", Era: "the-old-days", Provenance: canon},
		}})
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
			got := runSession(t, f, startServer(t, "--project", declareProject(t)))
			golden(t, "serve/"+name, got)
		})
	}
}
