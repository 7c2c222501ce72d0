package hugemem

import (
	"bufio"
	"fmt"
	"os"
	"strings"
	"testing"
	"unsafe"
)

// TestAdvised: a large slice lies, past its first huge-page boundary, in
// a mapping the kernel marks as advised for huge pages ("hg").
func TestAdvised(t *testing.T) {
	wantAdvised(t, Make[byte](4*minBytes))
}

// wantAdvised fails unless s lies, past its first huge-page boundary, in
// a mapping advised for huge pages.
func wantAdvised(t *testing.T, s []byte) {
	t.Helper()
	lo, _ := interior(uintptr(unsafe.Pointer(&s[0])), uintptr(len(s)))
	flags, err := vmFlags(lo)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(" "+flags+" ", " hg ") {
		t.Fatalf("the mapping at %#x has flags %q, no hg", lo, flags)
	}
}

// vmFlags returns the VmFlags of the mapping holding addr.
func vmFlags(addr uintptr) (string, error) {
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		return "", err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	in := false
	for sc.Scan() {
		line := sc.Text()
		var a, b uintptr
		if n, _ := fmt.Sscanf(line, "%x-%x ", &a, &b); n == 2 {
			in = a <= addr && addr < b
			continue
		}
		if in && strings.HasPrefix(line, "VmFlags:") {
			return strings.TrimSpace(strings.TrimPrefix(line, "VmFlags:")), nil
		}
	}
	return "", fmt.Errorf("no mapping holds %#x", addr)
}

// TestAdviseHeap: the allocations that follow AdviseHeap land in memory
// advised for huge pages (the runtime reuses the reservation's mapping).
func TestAdviseHeap(t *testing.T) {
	if !overcommits() {
		t.Fatal("this system does not overcommit: AdviseHeap does nothing here, and this test cannot tell whether it works")
	}
	AdviseHeap(256 << 20)
	wantAdvised(t, make([]byte, 32<<20)) // a plain allocation, not Make's
}
