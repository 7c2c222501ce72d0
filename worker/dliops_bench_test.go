package worker

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/deloreis/deloreis/author"
	"github.com/deloreis/deloreis/lorestore"
	"github.com/deloreis/deloreis/objects"
	"github.com/deloreis/deloreis/project"
)

// benchStore is a project whose camelot holds n people in one commit.
func benchStore(b *testing.B, n int) (*lorestore.Store, *project.Project) {
	b.Helper()
	dir := b.TempDir()
	s, err := lorestore.Init(filepath.Join(dir, lorestore.DefaultDir), lorestore.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	batch := s.NewBatch()
	for i := 0; i < n; i++ {
		if _, err := batch.Put("camelot", &objects.Entity{Kind: objects.KindPerson, Ident: fmt.Sprintf("p%d", i), Name: "P", Provenance: prov}); err != nil {
			b.Fatal(err)
		}
	}
	if _, err := s.Commit(batch, lorestore.NewMessage("bench", "import", "camelot"), lorestore.CommitOptions{}); err != nil {
		b.Fatal(err)
	}
	return s, &project.Project{Dir: dir, Store: filepath.Join(dir, lorestore.DefaultDir), Branch: "main", Documents: []project.Document{{Scope: "camelot"}}}
}

func dispatch(b *testing.B, reg *Registry, line string) {
	if r := reg.Dispatch(context.Background(), []byte(line)); r.Err != nil {
		b.Fatal(r.Err)
	}
}

const benchCheck = `{"dli":"2.0.0","id":"b","op":"dli.check","params":{"scope":"camelot","text":"person q \"Q\" proposed s\nknows(q, p17) proposed s\n"}}`

// BenchmarkCheck: dli.check of a two-line text over a 10,000-entity
// document — warm (the stager and its compiled base kept while the head
// stands) and cold (a fresh service each call compiles the base).
func BenchmarkCheck(b *testing.B) {
	s, p := benchStore(b, 10000)
	b.Run("warm", func(b *testing.B) {
		reg := dliRegistry(b, s, p)
		dispatch(b, reg, benchCheck)
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			dispatch(b, reg, benchCheck)
		}
	})
	b.Run("cold", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			reg := dliRegistry(b, s, p)
			dispatch(b, reg, benchCheck)
		}
	})
}

// BenchmarkExportPage: one 500-object page of a 10,000-object scope.
func BenchmarkExportPage(b *testing.B) {
	s, p := benchStore(b, 10000)
	reg := dliRegistry(b, s, p)
	line := `{"dli":"2.0.0","id":"b","op":"dli.export","params":{"scope":"camelot","limit":500}}`
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		dispatch(b, reg, line)
	}
}

// dliRegistry is the registry served over a project.
func dliRegistry(tb testing.TB, s *lorestore.Store, p *project.Project) *Registry {
	svc, err := author.ForProject(s, p)
	if err != nil {
		tb.Fatal(err)
	}
	return ProjectRegistry(svc, "")
}
