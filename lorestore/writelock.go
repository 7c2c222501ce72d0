// The write lock: deloreis writers to one repository take turns, so that
// an additive commit is not starved by a faster writer that keeps winning
// the compare-and-swap. Readers never take it, and real git does not know
// it: against git, the ref's compare-and-swap still decides.

package lorestore

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/deloreis/deloreis/lorestore/fsys"
	"golang.org/x/sys/unix"
)

// writeLockFile sits in the git directory, where git does not look.
const writeLockFile = "deloreis-write.lock"

// lockWrites blocks until this writer holds the repository's write lock.
// The kernel releases it if the process dies, so a killed writer never
// leaves it held. Each call opens its own file description, so goroutines
// of one process exclude each other too.
func (s *Store) lockWrites() (func(), error) {
	f, err := fsys.Or(s.opts.FS).OpenFile(filepath.Join(s.gitDir, writeLockFile), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("lorestore: write lock: %w", err)
	}
	for {
		err = unix.Flock(int(f.Fd()), unix.LOCK_EX)
		if err != unix.EINTR {
			break
		}
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("lorestore: write lock: %w", err)
	}
	return func() {
		unix.Flock(int(f.Fd()), unix.LOCK_UN)
		f.Close()
	}, nil
}
