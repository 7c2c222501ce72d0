package hugemem

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
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

// TestMakeUnbackedThenBack: a slice made by MakeUnbacked is advised for
// huge pages but not backed, and Back backs the part it is given, all of
// it, and leaves the rest of the slice as it was (fails when
// MakeUnbacked backs the slice, or Back does not back its part).
func TestMakeUnbackedThenBack(t *testing.T) {
	if os.Getenv("HUGEMEM_FRESH") != "1" {
		// In a process of its own: memory another test had and freed
		// comes back zeroed by the runtime, so backed already.
		cmd := exec.Command(os.Args[0], "-test.run=^TestMakeUnbackedThenBack$", "-test.count=1", "-test.v")
		cmd.Env = append(os.Environ(), "HUGEMEM_FRESH=1")
		if out, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(out), "--- PASS") {
			t.Fatalf("%v\n%s", err, out)
		}
		return
	}
	s := MakeUnbacked[uint64](8 * minBytes / 8) // 32 MiB
	wantAdvised(t, unsafe.Slice((*byte)(unsafe.Pointer(&s[0])), len(s)*8))
	part := s[len(s)/2 : len(s)/2+len(s)/8]
	if got := resident(t, part); got == len(part)*8/smallPage {
		t.Fatalf("all %d pages of the part are resident before Back", got)
	}
	Back(part)
	if got, want := resident(t, part), len(part)*8/smallPage; got != want {
		t.Fatalf("after Back, %d of the part's %d pages are resident", got, want)
	}
	if got := resident(t, s[:len(s)/4]); got == len(s)/4*8/smallPage {
		t.Fatalf("Back of the middle backed the slice's start too (%d pages)", got)
	}
	for i, x := range part {
		if x != 0 {
			t.Fatalf("part[%d] = %d, want 0", i, x)
		}
	}
}

// resident returns how many of the whole small pages of s are resident.
func resident(t *testing.T, s []uint64) int {
	t.Helper()
	lo, hi := within(uintptr(unsafe.Pointer(&s[0])), uintptr(len(s))*8, smallPage)
	vec := make([]byte, (hi-lo)/smallPage)
	if _, _, errno := unix.Syscall(unix.SYS_MINCORE, lo, hi-lo, uintptr(unsafe.Pointer(&vec[0]))); errno != 0 {
		t.Fatal(errno)
	}
	n := 0
	for _, v := range vec {
		n += int(v & 1)
	}
	return n
}
