//go:build !unix

package main

// openNonBlock is nothing where FIFOs do not block an open.
const openNonBlock = 0
