// Finding a project from a folder inside it, as git finds its repository:
// the nearest folder, walking up from where a command runs, that holds a
// settings file or a lorestore.

package project

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/deloreis/deloreis/lorestore"
)

// ErrNoProject matches every *NoProjectError.
var ErrNoProject = errors.New("project: no deloreis project found")

// NoProjectError reports that neither Start nor any folder above it is a
// project folder.
type NoProjectError struct {
	Start string // the folder the search began in (absolute)
}

func (e *NoProjectError) Error() string {
	return fmt.Sprintf("project: no deloreis project in %s or any folder above it (none holds %s or a lorestore %s/): run `deloreis init` there, or change to a project folder",
		e.Start, FileName, lorestore.DefaultDir)
}

// Unwrap lets errors.Is(err, ErrNoProject) match.
func (e *NoProjectError) Unwrap() error { return ErrNoProject }

// Find returns the project folder of start: start itself (made absolute)
// or the nearest folder above it that holds deloreis.toml or a lorestore
// in .lore/, stopping at the root of the file system. Without one it
// returns a *NoProjectError naming start.
func Find(start string) (string, error) {
	abs, err := filepath.Abs(start)
	if err != nil {
		return "", fmt.Errorf("project: %w", err)
	}
	if st, err := os.Stat(abs); err != nil {
		return "", fmt.Errorf("project: cannot look for a project from %s: %w", abs, err)
	} else if !st.IsDir() {
		return "", fmt.Errorf("project: cannot look for a project from %s: not a folder", abs)
	}
	for dir := abs; ; {
		if isProjectDir(dir) {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", &NoProjectError{Start: abs}
		}
		dir = parent
	}
}

// isProjectDir reports whether dir holds a settings file or a lorestore
// in its default place.
func isProjectDir(dir string) bool {
	if st, err := os.Stat(filepath.Join(dir, FileName)); err == nil && !st.IsDir() {
		return true
	}
	store := filepath.Join(dir, lorestore.DefaultDir)
	return isGitDir(store) || isGitDir(filepath.Join(store, ".git"))
}

// isGitDir is what lorestore.Open takes for a repository: a folder with
// objects/ and a HEAD file (a bare .lore/, or a work tree's .lore/.git).
func isGitDir(dir string) bool {
	objs, err1 := os.Stat(filepath.Join(dir, "objects"))
	head, err2 := os.Stat(filepath.Join(dir, "HEAD"))
	return err1 == nil && err2 == nil && objs.IsDir() && head.Mode().IsRegular()
}
