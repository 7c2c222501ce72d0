// Reading what users name: only regular files are read (a device or a FIFO,
// named or reached through a symbolic link, is refused without being
// read), and the paths of deloreis.toml must stay inside the project
// folder once symbolic links are resolved.

package cli

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/deloreis/deloreis/project"
)

// ErrNotRegular is the error for a named path that is not a regular file
// after symbolic links are resolved: a directory where a file is wanted, a
// device, a FIFO, a socket.
var ErrNotRegular = errors.New("not a regular file")

// readRegular reads the regular file at path. It opens without blocking
// (a FIFO with no writer would block a plain open) and checks what it
// opened, not what a separate stat saw, so a file swapped between the two
// cannot slip through.
func readRegular(path string) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|openNonBlock, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, &fs.PathError{Op: "read", Path: path, Err: fmt.Errorf("%w (%s)", ErrNotRegular, fileKind(info.Mode()))}
	}
	return io.ReadAll(f)
}

// fileKind names the type of a file mode for error messages.
func fileKind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	}
	return "type " + m.Type().String()
}

// loadProject reads the project file of dir (project.Load) and then checks
// that the store and every source it names stay inside the project folder
// after symbolic links are resolved: project.Load refuses `..` lexically,
// but a link inside the folder may still point out of it.
func loadProject(dir string) (*project.Project, error) {
	p, err := project.Load(dir)
	if err != nil {
		return nil, err
	}
	root, err := resolveExisting(p.Dir) // a project folder before init may not exist yet
	if err != nil {
		return nil, err
	}
	if err := staysInside(root, p.Dir, p.Store); err != nil {
		return nil, fmt.Errorf("project: store: %w", err)
	}
	for _, d := range p.Documents {
		if d.Source == "" {
			continue
		}
		if err := staysInside(root, p.Dir, d.Source); err != nil {
			return nil, fmt.Errorf("project: document %s: source: %w", d.Scope, err)
		}
	}
	return p, nil
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

// hasProjectFile reports whether dir holds a deloreis.toml.
func hasProjectFile(dir string) bool {
	info, err := os.Stat(filepath.Join(dir, project.FileName))
	return err == nil && info.Mode().IsRegular()
}
