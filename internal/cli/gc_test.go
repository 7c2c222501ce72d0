package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestFsckNamesGarbageAndGCRemovesIt: the zero-byte temporary pack a
// killed writer leaves is named by fsck (which still exits 0: readers
// skip it, as git's do) and removed by gc, which says so (DL-0438).
func TestFsckNamesGarbageAndGCRemovesIt(t *testing.T) {
	proj := filepath.Join(t.TempDir(), "proj")
	mustRun(t, "--project", proj, "init")
	tmp := filepath.Join(proj, ".lore", "objects", "pack", "tmp_pack_dlr_killed")
	if err := os.WriteFile(tmp, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	// Older than gc's ten seconds, younger than the minute after which
	// opening the store removes it by itself.
	then := time.Now().Add(-30 * time.Second)
	if err := os.Chtimes(tmp, then, then); err != nil {
		t.Fatal(err)
	}
	out := mustRun(t, "--project", proj, "fsck")
	if !strings.Contains(out, "garbage: objects/pack/tmp_pack_dlr_killed (0 bytes)") || !strings.Contains(out, "deloreis gc") {
		t.Fatalf("fsck said:\n%s", out)
	}
	out = mustRun(t, "--project", proj, "gc")
	if !strings.Contains(out, "removed objects/pack/tmp_pack_dlr_killed") || !strings.Contains(out, "gc: 1 file, 0 bytes removed") {
		t.Fatalf("gc said:\n%s", out)
	}
	if _, err := os.Stat(tmp); !os.IsNotExist(err) {
		t.Fatalf("the temporary pack is still there: %v", err)
	}
	if out := mustRun(t, "--project", proj, "fsck"); strings.Contains(out, "garbage") {
		t.Fatalf("fsck after gc:\n%s", out)
	}
}
