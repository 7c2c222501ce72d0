//go:build !unix

package cli

// openNonBlock is nothing where FIFOs do not block an open.
const openNonBlock = 0
