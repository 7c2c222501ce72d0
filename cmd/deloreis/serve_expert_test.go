// The expert lane over stdio: a golden session of `deloreis serve` over a
// project whose deloreis.toml configures the river-speech dialect.

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

// riverSpeechToml is the project file's dialect table.
const riverSpeechToml = `
[[dialect]]
id = "river-speech"
consonants = ["l", "m", "n", "r", "s", "th", "w"]
vowels = ["a", "e", "i", "o"]
shapes = ["CV", "CVC", "V"]
forbid = ["nr", "wl"]
min_syllables = 2
max_syllables = 4
`

// expertProject makes a project declaring the riverlands document and the
// river-speech dialect, whose store holds a person, an era with two
// events, a recorded decision and a certain inertial declaration of
// office. Times and ids are fixed, so a session's responses are too.
func expertProject(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	if err := project.Create(dir, []string{"riverlands"}); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(filepath.Join(dir, project.FileName), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(riverSpeechToml); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	clock := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	s, err := lorestore.Init(filepath.Join(dir, lorestore.DefaultDir), lorestore.Options{
		StoreID: "e4be47e4be47e4be47e4be47e4be47e4",
		Now:     func() time.Time { clock = clock.Add(time.Minute); return clock },
		Author:  lorestore.Signature{Name: "Spec Keeper", Email: "keeper@deloreis.invalid"},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	p := objects.Proposed("session-1a0")
	b := lorestore.NewBatch()
	for _, o := range []objects.Object{
		&objects.Entity{Kind: objects.KindPerson, Ident: "mireth", Name: "Mireth", Provenance: p},
		&objects.Entity{Kind: objects.KindEra, Ident: "the-salt-years", Name: "The Salt Years", Provenance: p},
		&objects.Event{Ident: "the-drowning", Era: "the-salt-years", Provenance: p},
		&objects.Event{Ident: "the-reclaiming", Era: "the-salt-years", Provenance: p},
		&objects.Decision{Ident: "dl-keeper", Rationale: "The keeper's rulings."},
		&objects.Inertial{Pred: "office", Provenance: objects.Cited(objects.CitedRatified, "dl-keeper")},
	} {
		if _, err := b.Put("riverlands", o); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.Commit(b, lorestore.NewMessage("materialize riverlands: the setting", "materialize", "riverlands"), lorestore.CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestServeExpertSession drives the seven expert tools the extended
// profile serves (add_state aside) and compares every response with the
// golden file.
func TestServeExpertSession(t *testing.T) {
	dir := expertProject(t)
	reqs, err := os.ReadFile("testdata/serve/expert-session.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	s := startServer(t, "--project", dir)
	var got strings.Builder
	for _, line := range strings.Split(strings.TrimSpace(string(reqs)), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		got.WriteString(s.call(line))
		got.WriteByte('\n')
	}
	golden(t, "serve/expert-session", got.String())
}
