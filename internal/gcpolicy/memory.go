package gcpolicy

import (
	"bufio"
	"bytes"
	"os"
	"strconv"
	"strings"
)

// The files MachineMemory reads (Linux): the cgroup's limit (v2, then v1)
// and the machine's total.
var (
	cgroupV2Max   = "/sys/fs/cgroup/memory.max"
	cgroupV1Limit = "/sys/fs/cgroup/memory/memory.limit_in_bytes"
	procMeminfo   = "/proc/meminfo"
)

// MachineMemory is the memory this process may use: the least of the
// machine's total and the cgroup's limit, in bytes; 0 when neither can be
// read (a system without /proc).
func MachineMemory() uint64 {
	total := memTotal(procMeminfo)
	for _, f := range []string{cgroupV2Max, cgroupV1Limit} {
		// An unlimited cgroup reads "max" (v2) or a huge number (v1):
		// either way it is no less than the total and changes nothing.
		if l := readUint(f); l > 0 && (total == 0 || l < total) {
			total = l
		}
	}
	return total
}

// readUint reads a file holding one decimal number; 0 when it does not.
func readUint(path string) uint64 {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	n, err := strconv.ParseUint(string(bytes.TrimSpace(b)), 10, 64)
	if err != nil {
		return 0
	}
	return n
}

// memTotal reads MemTotal (kB) from a meminfo file, in bytes; 0 when it
// cannot.
func memTotal(path string) uint64 {
	f, err := os.Open(path)
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		rest, ok := strings.CutPrefix(sc.Text(), "MemTotal:")
		if !ok {
			continue
		}
		fields := strings.Fields(rest)
		if len(fields) != 2 || fields[1] != "kB" {
			return 0
		}
		kb, err := strconv.ParseUint(fields[0], 10, 64)
		if err != nil || kb > 1<<53 {
			return 0
		}
		return kb << 10
	}
	return 0
}
