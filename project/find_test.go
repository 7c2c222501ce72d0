// Tests of Find: the nearest project folder at or above a start folder.

package project

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deloreis/deloreis/lorestore"
)

// mkdir makes the folder the parts join to, and its parents, and returns its path.
func mkdir(t *testing.T, parts ...string) string {
	t.Helper()
	p := filepath.Join(parts...)
	if err := os.MkdirAll(p, 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// writeSettings writes an empty deloreis.toml into dir.
func writeSettings(t *testing.T, dir string) {
	t.Helper()
	write(t, dir, "")
}

// initStore makes a lore store in dir's .lore.
func initStore(t *testing.T, dir string) {
	t.Helper()
	s, err := lorestore.Init(filepath.Join(dir, lorestore.DefaultDir), lorestore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
}

// makeWorkTree makes a work tree's .lore/.git in dir, as real `git clone`
// without --bare makes.
func makeWorkTree(t *testing.T, dir string) {
	t.Helper()
	git := mkdir(t, dir, lorestore.DefaultDir, ".git", "objects")
	if err := os.WriteFile(filepath.Join(filepath.Dir(git), "HEAD"), []byte("ref: refs/heads/main\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

// findCase is one TestFind case: a layout under a fresh root, the folder
// to start from, and the project folder Find should find.
type findCase struct {
	name  string
	setup func(t *testing.T, root string) (start, want string) // want "": none found
}

// findCases returns TestFind's layouts: settings or stores at or above the
// start, and folders that are neither.
func findCases() []findCase {
	return []findCase{
		{"toml-here", func(t *testing.T, root string) (string, string) {
			writeSettings(t, root)
			return root, root
		}},
		{"lore-here", func(t *testing.T, root string) (string, string) {
			initStore(t, root)
			return root, root
		}},
		{"work-tree-lore", func(t *testing.T, root string) (string, string) {
			makeWorkTree(t, root)
			return mkdir(t, root, "a"), root
		}},
		{"toml-above", func(t *testing.T, root string) (string, string) {
			writeSettings(t, root)
			return mkdir(t, root, "lore", "deep", "deeper"), root
		}},
		{"lore-above", func(t *testing.T, root string) (string, string) {
			initStore(t, root)
			return mkdir(t, root, "lore", "deep"), root
		}},
		{"nearest-wins", func(t *testing.T, root string) (string, string) {
			writeSettings(t, root)
			inner := mkdir(t, root, "sub", "inner")
			initStore(t, inner)
			return mkdir(t, inner, "x"), inner
		}},
		{"inside-the-store", func(t *testing.T, root string) (string, string) {
			initStore(t, root)
			return filepath.Join(root, lorestore.DefaultDir, "objects"), root
		}},
		{"relative-start", func(t *testing.T, root string) (string, string) {
			writeSettings(t, root)
			sub := mkdir(t, root, "sub")
			t.Chdir(sub)
			return ".", root
		}},
		{"not-a-store", func(t *testing.T, root string) (string, string) {
			mkdir(t, root, lorestore.DefaultDir, "objects") // no HEAD
			return root, ""
		}},
		{"toml-is-a-folder", func(t *testing.T, root string) (string, string) {
			mkdir(t, root, FileName)
			return root, ""
		}},
		{"none", func(t *testing.T, root string) (string, string) {
			return mkdir(t, root, "a", "b"), ""
		}},
	}
}

func TestFind(t *testing.T) {
	for _, tc := range findCases() {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			if r, err := filepath.EvalSymlinks(root); err == nil {
				root = r
			}
			start, want := tc.setup(t, root)
			got, err := Find(start)
			if want != "" {
				if err != nil || got != want {
					t.Fatalf("Find(%s) = %q, %v; want %q", start, got, err, want)
				}
				return
			}
			if found, ferr := Find(filepath.Dir(root)); ferr == nil {
				t.Skipf("a project above the temporary folder (%s) hides the case", found)
			}
			var ne *NoProjectError
			abs, _ := filepath.Abs(start)
			if !errors.Is(err, ErrNoProject) || !errors.As(err, &ne) || ne.Start != abs || !strings.Contains(err.Error(), abs) {
				t.Fatalf("Find(%s) = %q, %v; want a *NoProjectError naming %s", start, got, err, abs)
			}
		})
	}
}

func TestFindRefusesAMissingStart(t *testing.T) {
	root := t.TempDir()
	file := filepath.Join(root, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, start := range []string{filepath.Join(root, "missing"), file} {
		if dir, err := Find(start); err == nil || errors.Is(err, ErrNoProject) {
			t.Errorf("Find(%s) = %q, %v; want an error about the start", start, dir, err)
		}
	}
}
