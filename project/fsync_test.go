package project

import (
	"os"
	"path/filepath"
	"testing"
)

// TestFsyncSetting: deloreis.toml's fsync (DL-0414) is durable unless it
// says false, and only a boolean is taken. Fails with the key unread.
func TestFsyncSetting(t *testing.T) {
	cases := []struct {
		name, toml string
		noFsync    bool
		fails      bool
	}{
		{"absent", "", false, false},
		{"true", "fsync = true\n", false, false},
		{"false", "fsync = false\n", true, false},
		{"not a boolean", "fsync = \"no\"\n", false, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, FileName), []byte(c.toml), 0o644); err != nil {
				t.Fatal(err)
			}
			p, err := Load(dir)
			if c.fails {
				if err == nil {
					t.Fatalf("loaded %q", c.toml)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if p.NoFsync != c.noFsync {
				t.Errorf("NoFsync %v, want %v", p.NoFsync, c.noFsync)
			}
		})
	}
}
