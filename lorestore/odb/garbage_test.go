package odb

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestGarbage: fsck's list and gc's removal take the temporary files of a
// killed writer and a pack without its index, and leave alone a file a
// live writer holds (flock), a file younger than GarbageAge, a pack with
// its index and the index-less pack a .keep protects (DL-0438). Before,
// a killed writer's zero-byte tmp_pack file stayed unmentioned.
func TestGarbage(t *testing.T) {
	dir := initBare(t)
	db := openDB(t, dir, Options{})
	pack := filepath.Join(dir, "objects", "pack")
	old := time.Now().Add(-time.Minute)
	write := func(rel string, age time.Time) string {
		p := filepath.Join(dir, rel)
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, age, age); err != nil {
			t.Fatal(err)
		}
		return p
	}
	write("objects/pack/tmp_pack_dlr_killed", old)
	write("objects/tmp_idx_dlr_trust_killed", old)
	write("objects/pack/pack-"+hex40('a')+".pack", old)  // no index
	write("objects/pack/tmp_pack_dlr_young", time.Now()) // a writer that just began
	write("objects/pack/pack-"+hex40('b')+".pack", old)  // kept
	write("objects/pack/pack-"+hex40('b')+".keep", old)  //
	held := write("objects/pack/tmp_pack_dlr_live", old) // a live writer's
	f, err := os.Open(held)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX); err != nil {
		t.Fatal(err)
	}

	want := []string{"objects/pack/pack-" + hex40('a') + ".pack", "objects/pack/tmp_pack_dlr_killed", "objects/tmp_idx_dlr_trust_killed"}
	paths := func(gs []Garbage) []string {
		var out []string
		for _, g := range gs {
			out = append(out, g.Path)
		}
		return out
	}
	gs, err := db.Garbage(GarbageAge)
	if err != nil || !slices.Equal(paths(gs), want) {
		t.Fatalf("Garbage = %q, %v; want %q", paths(gs), err, want)
	}
	removed, err := db.RemoveGarbage(GarbageAge)
	if err != nil || !slices.Equal(paths(removed), want) {
		t.Fatalf("RemoveGarbage = %q, %v; want %q", paths(removed), err, want)
	}
	for _, rel := range want {
		if _, err := os.Stat(filepath.Join(dir, rel)); !os.IsNotExist(err) {
			t.Errorf("%s is still there (%v)", rel, err)
		}
	}
	for _, n := range []string{"tmp_pack_dlr_young", "tmp_pack_dlr_live", "pack-" + hex40('b') + ".pack"} {
		if _, err := os.Stat(filepath.Join(pack, n)); err != nil {
			t.Errorf("%s was removed: %v", n, err)
		}
	}
	if gs, err := db.Garbage(GarbageAge); err != nil || len(gs) != 0 {
		t.Fatalf("after gc: %v, %v", gs, err)
	}
}

func hex40(c byte) string {
	b := make([]byte, 40)
	for i := range b {
		b[i] = c
	}
	return string(b)
}
