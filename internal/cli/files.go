// Reading what users name: only regular files are read (a device or a FIFO,
// named or reached through a symbolic link, is refused without being
// read), and the paths of deloreis.toml must stay inside the project
// folder once symbolic links are resolved.

package cli

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
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
	var b bytes.Buffer
	if err := readRegularInto(path, &b, b.Grow); err != nil {
		return nil, err
	}
	if b.Len() == 0 {
		return []byte{}, nil // as io.ReadAll answers an empty file
	}
	return b.Bytes(), nil
}

// readRegularText is readRegular as a string, read into one buffer of the
// file's size (a big .dli file is neither grown by doubling nor copied).
func readRegularText(path string) (string, error) {
	var b strings.Builder
	if err := readRegularInto(path, &b, b.Grow); err != nil {
		return "", err
	}
	return b.String(), nil
}

// readRegularInto reads the regular file at path into w, growing it by
// the file's size first.
func readRegularInto(path string, w io.Writer, grow func(int)) error {
	f, err := os.OpenFile(path, os.O_RDONLY|openNonBlock, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return err
	}
	if !info.Mode().IsRegular() {
		return &fs.PathError{Op: "read", Path: path, Err: fmt.Errorf("%w (%s)", ErrNotRegular, fileKind(info.Mode()))}
	}
	if size := info.Size(); size > 0 && size < 1<<40 {
		grow(int(size) + 1) // the extra byte sees the end without a regrowth
	}
	_, err = io.Copy(w, f)
	return err
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
