// This file holds the profiles a command line can leave behind for
// measuring a big run (issue 13): a CPU profile of the whole process, a
// heap profile taken as the command ends, and the phases of a first
// compile (issue 34, DL-0503).

package cli

import (
	"fmt"
	"io"
	"os"
	"runtime/pprof"

	"github.com/deloreis/deloreis/base/phases"
)

// The environment variables naming the profiles' files. They are read
// from the environment, not flags, so that any command line of either
// program can be profiled as it is run, without its usage changing.
const (
	envCPUProfile  = "DELOREIS_CPUPROFILE"
	envHeapProfile = "DELOREIS_HEAPPROFILE"
	// envPhases names the file the phases a command ran (base/phases)
	// are written to as JSON lines when it ends: make bench-scale reads
	// the first compile's from it.
	envPhases = "DELOREIS_PHASES"
)

// startProfiles starts the profiles getenv asks for and returns the
// function that ends them; a profile that cannot be written is reported on
// stderr and skipped, never failing the command it measures.
func startProfiles(getenv func(string) string, stderr io.Writer) (stop func()) {
	var cpu *os.File
	if path := getenv(envCPUProfile); path != "" {
		f, err := os.Create(path)
		if err == nil {
			err = pprof.StartCPUProfile(f)
			if err != nil {
				f.Close()
			}
		}
		if err != nil {
			fmt.Fprintf(stderr, "deloreis: %s: %v\n", envCPUProfile, err)
		} else {
			cpu = f
		}
	}
	heap := getenv(envHeapProfile)
	phaseFile := getenv(envPhases)
	if phaseFile != "" {
		phases.Enable()
	}
	return func() {
		if phaseFile != "" {
			if err := writePhases(phaseFile); err != nil {
				fmt.Fprintf(stderr, "deloreis: %s: %v\n", envPhases, err)
			}
			phases.Disable()
		}
		if cpu != nil {
			pprof.StopCPUProfile()
			cpu.Close()
		}
		if heap != "" {
			if err := writeHeapProfile(heap); err != nil {
				fmt.Fprintf(stderr, "deloreis: %s: %v\n", envHeapProfile, err)
			}
		}
	}
}

// writeHeapProfile writes the heap profile to path. No collection is
// forced first: by the time a command has returned its data is garbage,
// and the profile's in-use figures are those of the last collection the
// command itself ran, which is what a big run wants to see.
func writeHeapProfile(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	err = pprof.WriteHeapProfile(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// writePhases writes the phases recorded to path.
func writePhases(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	err = phases.WriteJSON(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
