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
