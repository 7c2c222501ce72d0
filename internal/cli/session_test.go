package cli

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

// seed is a golden session's starting project: its documents, extra
// project-file text, a fixed store id and the objects of one first commit.
type seed struct {
	scopes  []string
	toml    string // appended to deloreis.toml
	storeID string
	scope   string // the scope the first commit writes
	summary string // its commit summary
	objects []objects.Object
}

// seedProject makes the project in a temp folder. Commit times, author and
// store id are fixed, so a session over it answers the same on every run.
func seedProject(t testing.TB, sd seed) string {
	t.Helper()
	dir := t.TempDir()
	if err := project.Create(dir, sd.scopes); err != nil {
		t.Fatal(err)
	}
	if sd.toml != "" {
		f, err := os.OpenFile(filepath.Join(dir, project.FileName), os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.WriteString(sd.toml); err != nil {
			t.Fatal(err)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
	}
	clock := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	s, err := lorestore.Init(filepath.Join(dir, lorestore.DefaultDir), lorestore.Options{
		StoreID: sd.storeID,
		Now:     func() time.Time { clock = clock.Add(time.Minute); return clock },
		Author:  lorestore.Signature{Name: "Spec Keeper", Email: "keeper@deloreis.invalid"},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	b := lorestore.NewBatch()
	for _, o := range sd.objects {
		if _, err := b.Put(sd.scope, o); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.Commit(b, lorestore.NewMessage(sd.summary, "materialize", sd.scope), lorestore.CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	return dir
}

// runSession sends every request line of a session file (blank lines and
// # comments skipped) to a server and returns the response transcript.
func runSession(t testing.TB, file string, s *server) string {
	t.Helper()
	reqs, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var got strings.Builder
	for _, line := range strings.Split(strings.TrimSpace(string(reqs)), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		got.WriteString(s.call(line))
		got.WriteByte('\n')
	}
	return got.String()
}
