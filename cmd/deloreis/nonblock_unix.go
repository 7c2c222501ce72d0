//go:build unix

package main

import "syscall"

// openNonBlock opens without waiting for a FIFO's writer.
const openNonBlock = syscall.O_NONBLOCK
