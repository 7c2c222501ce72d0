//go:build !linux

package hugemem

import "unsafe"

func advise(p unsafe.Pointer, size uintptr) {}

func adviseOnly(p unsafe.Pointer, size uintptr) {}

func populate(p unsafe.Pointer, size uintptr) {}

func overcommits() bool { return false }
