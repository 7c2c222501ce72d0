// What a crash can leave behind: real git's verdict on it, and the first
// writer's clean-up of it.

package odb

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"golang.org/x/sys/unix"
)

func TestStrayFilesAndCleanup(t *testing.T) {
	dir := initBare(t)
	packDir := filepath.Join(dir, "objects", "pack")
	db := openDB(t, dir, Options{})
	b := db.NewBatch()
	h := b.Add(plumbing.BlobObject, []byte("survivor\n"))
	if err := b.Write(); err != nil {
		t.Fatal(err)
	}
	b.Add(plumbing.BlobObject, []byte("orphan\n"))
	if err := b.Write(); err != nil {
		t.Fatal(err)
	}
	db.Close()
	orphan := findPackOfFile(t, dir, "orphan\n")
	os.Remove(orphan + ".idx") // as if killed between the two renames
	old := time.Now().Add(-time.Hour)
	files := map[string]bool{ // name → removed by the first writer's clean-up
		"tmp_pack_dlr_111111": true,
		"tmp_idx_dlr_222222":  true,
		"tmp_pack_dlr_locked": false, // a live writer holds it
		"tmp_pack_dlr_fresh":  false, // too young
		"tmp_pack_AbCdEf":     false, // git's own: git gc prunes those
		"tmp_idx_AbCdEf":      false,
	}
	for name := range files {
		os.WriteFile(filepath.Join(packDir, name), []byte("partial"), 0o444)
		if name != "tmp_pack_dlr_fresh" {
			os.Chtimes(filepath.Join(packDir, name), old, old)
		}
	}
	os.Chtimes(orphan+".pack", old, old)
	lf, _ := os.Open(filepath.Join(packDir, "tmp_pack_dlr_locked"))
	defer lf.Close()
	if err := unix.Flock(int(lf.Fd()), unix.LOCK_EX); err != nil {
		t.Fatal(err)
	}

	// Real git: exit 0, and nothing on stderr but notices about the
	// repository having no branch yet.
	out, errOut, err := gitRun(dir, nil, "fsck", "--strict")
	if err != nil {
		t.Fatalf("git fsck --strict with stray files: %v\n%s%s", err, out, errOut)
	}
	for _, l := range strings.Split(strings.TrimSpace(string(errOut)), "\n") {
		if l != "" && !strings.HasPrefix(l, "notice:") {
			t.Fatalf("git fsck --strict said: %q", l)
		}
	}
	// count-objects -v does see them, as garbage.
	if co := string(git(t, dir, nil, "count-objects", "-v")); strings.Contains(co, "\ngarbage: 0\n") {
		t.Fatalf("count-objects saw no garbage:\n%s", co)
	}

	db2 := openDB(t, dir, Options{StaleAge: 30 * time.Minute})
	mustRead(t, db2, h, plumbing.BlobObject, []byte("survivor\n"))
	// Reading deletes nothing.
	for name := range files {
		if _, err := os.Stat(filepath.Join(packDir, name)); err != nil {
			t.Errorf("%s removed by a reader: %v", name, err)
		}
	}
	if _, err := os.Stat(orphan + ".pack"); err != nil {
		t.Errorf("old .pack without .idx removed by a reader: %v", err)
	}
	b2 := db2.NewBatch()
	b2.Add(plumbing.BlobObject, []byte("a writer\n"))
	if err := b2.Write(); err != nil {
		t.Fatal(err)
	}
	for name, removed := range files {
		_, err := os.Stat(filepath.Join(packDir, name))
		if gone := os.IsNotExist(err); gone != removed {
			t.Errorf("%s: removed=%v, want %v", name, gone, removed)
		}
	}
	if _, err := os.Stat(orphan + ".pack"); !os.IsNotExist(err) {
		t.Errorf("old .pack without .idx kept")
	}
}

func TestFreshOrphanPackKept(t *testing.T) {
	dir := initBare(t)
	db := openDB(t, dir, Options{})
	b := db.NewBatch()
	b.Add(plumbing.BlobObject, []byte("orphan\n"))
	if err := b.Write(); err != nil {
		t.Fatal(err)
	}
	db.Close()
	orphan := findPackOfFile(t, dir, "orphan\n")
	os.Remove(orphan + ".idx") // maybe another process between its renames
	openDB(t, dir, Options{})
	if _, err := os.Stat(orphan + ".pack"); err != nil {
		t.Fatalf("a young .pack without .idx was removed: %v", err)
	}
}

// findPackOfFile returns the base path of the pack holding blob content.
func findPackOfFile(t *testing.T, dir, content string) string {
	t.Helper()
	db := openDB(t, dir, Options{})
	defer db.Close()
	return findPackOf(t, db, HashObject(plumbing.BlobObject, []byte(content)))
}

func TestMissRescansOnlyWhenDirChanged(t *testing.T) {
	dir := initBare(t)
	db := openDB(t, dir, Options{})
	scans := func() int {
		db.scanMu.Lock()
		defer db.scanMu.Unlock()
		return db.scans
	}
	missing := HashObject(plumbing.BlobObject, []byte("absent"))
	time.Sleep(2 * racyWindow)
	db.Has(missing) // may rescan once: Open's stamp could be racy
	n := scans()
	for i := 0; i < 5; i++ {
		if ok, err := db.Has(missing); ok || err != nil {
			t.Fatal(ok, err)
		}
		if _, _, err := db.Read(missing); !isNotFound(err) {
			t.Fatal(err)
		}
	}
	if scans() != n {
		t.Fatalf("misses rescanned an unchanged objects/pack: %d scans, want %d", scans(), n)
	}
	// Another writer (another DB here) adds a pack: the next miss sees it.
	other := openDB(t, dir, Options{})
	b := other.NewBatch()
	h := b.Add(plumbing.BlobObject, []byte("from elsewhere\n"))
	if err := b.Write(); err != nil {
		t.Fatal(err)
	}
	mustRead(t, db, h, plumbing.BlobObject, []byte("from elsewhere\n"))
	if scans() != n+1 {
		t.Fatalf("%d scans after another writer's pack, want %d", scans(), n+1)
	}
}
