package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestStartProfiles checks that the environment's profile files are
// written as gzip'd pprof data, and that an unwritable path is reported and
// does not stop the command.
func TestStartProfiles(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name     string
		env      map[string]string
		files    []string
		wantWarn bool
	}{
		{name: "none", env: map[string]string{}},
		{name: "cpu", env: map[string]string{envCPUProfile: filepath.Join(dir, "cpu.out")}, files: []string{"cpu.out"}},
		{name: "heap", env: map[string]string{envHeapProfile: filepath.Join(dir, "heap.out")}, files: []string{"heap.out"}},
		{name: "phases", env: map[string]string{envPhases: filepath.Join(dir, "phases.jsonl")}, files: []string{"phases.jsonl"}},
		{name: "unwritable", env: map[string]string{envCPUProfile: filepath.Join(dir, "no", "such", "cpu.out")}, wantWarn: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stderr bytes.Buffer
			stop := startProfiles(func(k string) string { return tt.env[k] }, &stderr)
			if code := run([]string{"version"}, &bytes.Buffer{}, &stderr); code != 0 {
				t.Fatalf("version exited %d: %s", code, stderr.String())
			}
			stop()
			if got := stderr.Len() > 0; got != tt.wantWarn {
				t.Errorf("stderr %q, want a warning: %v", stderr.String(), tt.wantWarn)
			}
			for _, name := range tt.files {
				b, err := os.ReadFile(filepath.Join(dir, name))
				if err != nil {
					t.Fatal(err)
				}
				if name == "phases.jsonl" {
					continue // JSON lines, none for a command that compiles nothing
				}
				if len(b) < 2 || b[0] != 0x1f || b[1] != 0x8b {
					t.Errorf("%s is not a gzip'd profile (%d bytes)", name, len(b))
				}
			}
		})
	}
}
