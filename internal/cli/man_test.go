package cli

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// manDir is where the manual pages are checked in.
const manDir = "../../docs/man"

// TestManPages: docs/man holds exactly the pages the command tree makes
// (`make man`, or this test with -update, rewrites them), so that a
// command, flag or exit code changed without its page fails here.
func TestManPages(t *testing.T) {
	tmp := t.TempDir()
	if err := genManPages(tmp); err != nil {
		t.Fatal(err)
	}
	made, _ := filepath.Glob(filepath.Join(tmp, "*.1"))
	if len(made) < len(commandPaths()) {
		t.Fatalf("%d pages for %d commands", len(made), len(commandPaths()))
	}
	if *update {
		os.MkdirAll(manDir, 0o755)
		old, _ := filepath.Glob(filepath.Join(manDir, "*.1"))
		for _, f := range old {
			os.Remove(f)
		}
		for _, f := range made {
			data, _ := os.ReadFile(f)
			if err := os.WriteFile(filepath.Join(manDir, filepath.Base(f)), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return
	}
	have, _ := filepath.Glob(filepath.Join(manDir, "*.1"))
	names := func(fs []string) []string {
		var out []string
		for _, f := range fs {
			out = append(out, filepath.Base(f))
		}
		return out
	}
	if !slices.Equal(names(made), names(have)) {
		t.Fatalf("docs/man holds %v, the command tree makes %v: run make man", names(have), names(made))
	}
	for _, f := range made {
		want, _ := os.ReadFile(f)
		got, err := os.ReadFile(filepath.Join(manDir, filepath.Base(f)))
		if err != nil || string(got) != string(want) {
			t.Errorf("docs/man/%s is not current: run make man", filepath.Base(f))
		}
	}
}
