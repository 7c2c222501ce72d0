// Symbolic links: Load refuses `..` lexically, but a link inside the
// project folder may still point out of it. Every path deloreis.toml
// names must stay inside the folder once links are resolved.

package project

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
)

// checkLinks checks that the store and every source the project file
// names stay inside the project folder after symbolic links are resolved.
func (p *Project) checkLinks() error {
	root, err := resolveExisting(p.Dir) // a project folder before init may not exist yet
	if err != nil {
		return err
	}
	if err := staysInside(root, p.Dir, p.Store); err != nil {
		return fmt.Errorf("project: store: %w", err)
	}
	for _, d := range p.Documents {
		if d.Source == "" {
			continue
		}
		if err := staysInside(root, p.Dir, d.Source); err != nil {
			return fmt.Errorf("project: document %s: source: %w", d.Scope, err)
		}
	}
	return nil
}

// staysInside reports an error when path, resolved through every symbolic
// link along it that exists, is outside root (the resolved project
// folder). A path that does not exist yet (a store before init) is
// resolved as far as it exists.
func staysInside(root, dir, path string) error {
	resolved, err := resolveExisting(path)
	if err != nil {
		return err
	}
	rel, err := filepath.Rel(root, resolved)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		shown, _ := filepath.Rel(dir, path)
		return fmt.Errorf("%q leaves the project folder (it resolves to %s)", shown, resolved)
	}
	return nil
}

// resolveExisting resolves the symbolic links of the longest existing
// prefix of path and appends the rest unchanged.
func resolveExisting(path string) (string, error) {
	rest := ""
	for p := path; ; p = filepath.Dir(p) {
		r, err := filepath.EvalSymlinks(p)
		if err == nil {
			return filepath.Join(r, rest), nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
		if filepath.Dir(p) == p {
			return path, nil
		}
		rest = filepath.Join(filepath.Base(p), rest)
	}
}
