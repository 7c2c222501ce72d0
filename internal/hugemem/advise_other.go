//go:build !linux

package hugemem

import "unsafe"

func advise(p unsafe.Pointer, size uintptr) {}
