package demoworld

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/deloreis/deloreis/objects"
)

func TestBuildProject(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "demo")
	s, err := BuildProject(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	sn, err := s.Snapshot("main")
	if err != nil {
		t.Fatal(err)
	}
	scopes, err := sn.Scopes()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(scopes, Documents) {
		t.Fatalf("scopes %v, want %v", scopes, Documents)
	}
	// Every document but lyonesse declares a question with options: a fork.
	questions := 0
	for _, scope := range scopes {
		es, err := sn.Objects(scope, "claims")
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range es {
			if q, ok := e.Object.(*objects.Question); ok && len(q.Options) >= 2 {
				questions++
			}
		}
	}
	if questions != 2 {
		t.Fatalf("%d questions with options, want 2", questions)
	}
}
