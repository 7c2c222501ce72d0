//go:build unix

package cli

import (
	"os"
	"syscall"
)

const exeSuffix = ""

// handOver replaces this process with deloreis-net running the same
// command line: same process id, standard streams and signals, so a
// server run this way is stopped, piped and waited on as if it were this
// program. It returns only when the exec fails.
func handOver(path string, args []string) error {
	return syscall.Exec(path, append([]string{path}, args...), os.Environ())
}
