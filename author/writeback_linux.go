//go:build linux

package author

import (
	"os"

	"golang.org/x/sys/unix"
)

// startWriteback asks the kernel to start writing the first n bytes of f
// to disk now, without waiting for them: a world file's entries go out
// while the compile runs on, and the fsync that ends the write waits only
// for the rest (DL-0406). An error changes nothing: the fsync decides.
func startWriteback(f *os.File, n int64) {
	unix.SyncFileRange(int(f.Fd()), 0, n, unix.SYNC_FILE_RANGE_WRITE)
}
