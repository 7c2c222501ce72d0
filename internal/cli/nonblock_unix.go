//go:build unix

package cli

import "syscall"

// openNonBlock opens without waiting for a FIFO's writer.
const openNonBlock = syscall.O_NONBLOCK
