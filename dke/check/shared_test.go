// The shared texts beside the checkout: the spec is read only through
// ../shared relative to the repository root, and a test that needs it
// fails when it is absent.

package check_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// repoRoot returns the nearest directory at or above dir holding go.mod.
func repoRoot(dir string) (string, error) {
	for d := dir; ; {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d, nil
		}
		up := filepath.Dir(d)
		if up == d {
			return "", fmt.Errorf("no go.mod at or above %s", dir)
		}
		d = up
	}
}

// sharedFile returns the path of rel under the shared folder beside the
// repository holding dir, or an error saying what is missing.
func sharedFile(dir, rel string) (string, error) {
	root, err := repoRoot(dir)
	if err != nil {
		return "", err
	}
	p := filepath.Join(root, "..", "shared", filepath.FromSlash(rel))
	if _, err := os.Stat(p); err != nil {
		return "", fmt.Errorf("the shared texts are missing (%w): the tests need ../shared beside the repository", err)
	}
	return p, nil
}

// readShared reads rel from the shared folder, failing the test when it
// cannot.
func readShared(t testing.TB, rel string) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	p, err := sharedFile(wd, rel)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestSharedFile(t *testing.T) {
	repo := filepath.Join(t.TempDir(), "repo")
	sub := filepath.Join(repo, "a", "b")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(repo, "go.mod"), []byte("module x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := sharedFile(sub, "spec/x.txt"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing shared: got %v, want a not-exist error", err)
	}
	want := filepath.Join(repo, "..", "shared", "spec", "x.txt")
	if err := os.MkdirAll(filepath.Dir(want), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(want, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := sharedFile(sub, "spec/x.txt"); err != nil || got != want {
		t.Errorf("got %q, %v; want %q", got, err, want)
	}
	if _, err := repoRoot(filepath.Dir(repo)); err == nil {
		t.Error("a folder with no go.mod above it has a root")
	}
}
