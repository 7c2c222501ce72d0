package lorestore

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/deloreis/deloreis/objects"
)

// TestListingOrderAndCount lists a section spread over many shards on
// several goroutines: every object once, in the store's order (by shard,
// then id: ascending ids), each handed to its own place.
func TestListingOrderAndCount(t *testing.T) {
	s, _ := newStore(t)
	commitFacts(t, s, "camelot", 0, 700)
	sn, err := s.Snapshot("main")
	if err != nil {
		t.Fatal(err)
	}
	l, err := sn.List("camelot", Claims)
	if err != nil {
		t.Fatal(err)
	}
	if l.Len() != 700 || len(l.parts) < 100 {
		t.Fatalf("listing of %d files in %d parts, want 700 in one part per shard", l.Len(), len(l.parts))
	}
	got := make([]Entry, l.Len())
	seen := make([]int, l.Len())
	if err := l.ReadInto(func(i int, e Entry) { got[i] = e; seen[i]++ }); err != nil {
		t.Fatal(err)
	}
	for i := range got {
		if seen[i] != 1 {
			t.Fatalf("place %d handed %d times", i, seen[i])
		}
		if id, err := got[i].Object.ID(); err != nil || id != got[i].ID {
			t.Fatalf("place %d: object of id %s under %s", i, id, got[i].ID)
		}
		if i > 0 && bytes.Compare(got[i-1].ID[:], got[i].ID[:]) >= 0 {
			t.Fatalf("places %d and %d out of id order", i-1, i)
		}
	}
	// The same files as one big part (an unsharded section's shape) are
	// shared out in runs and land in the same places (its folder is only
	// named in errors).
	var all []idFile
	for _, p := range l.parts {
		all = append(all, p.files...)
	}
	one := Listing{sn: sn, parts: []listPart{{dir: l.parts[0].dir, files: all}}, n: l.n}
	again := make([]Entry, one.Len())
	if err := one.ReadInto(func(i int, e Entry) { again[i] = e }); err != nil {
		t.Fatal(err)
	}
	for i := range got {
		if again[i].ID != got[i].ID {
			t.Fatalf("one part: place %d holds %s, the shards put %s there", i, again[i].ID, got[i].ID)
		}
	}
	ids, err := sn.IDs("camelot", Claims)
	if err != nil || len(ids) != len(got) {
		t.Fatalf("IDs: %d, %v", len(ids), err)
	}
	for i := range ids {
		if ids[i] != got[i].ID {
			t.Fatalf("IDs[%d] = %s, the listing read %s", i, ids[i], got[i].ID)
		}
	}
}

// TestListingRefusesStrayFiles forges, with real git, trees whose claims
// section holds what no store writes; a listing reports each as a
// CorruptError naming the path, and hands out nothing.
func TestListingRefusesStrayFiles(t *testing.T) {
	s, dir := newStore(t)
	commitFacts(t, s, "camelot", 0, 40)
	id := factID(t, 3)
	shard := "scopes/camelot/claims/" + id.String()[:2] + "/"
	tests := []struct {
		name, path string
		folder     bool
	}{
		{name: "a file where a shard belongs", path: "scopes/camelot/claims/zz.json"},
		{name: "a name that is no id", path: shard + "notanid.json"},
		{name: "an id in capitals", path: shard + strings.ToUpper(id.String()) + ".json"},
		{name: "an id without .json", path: shard + id.String()},
		{name: "a folder inside a shard", path: shard + "deeper/" + id.String() + ".json", folder: true},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			work := filepath.Join(t.TempDir(), "w")
			git(t, filepath.Dir(work), "clone", "-q", dir, "w")
			full := filepath.Join(work, tt.path)
			if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(full, []byte(`{}`), 0o644); err != nil {
				t.Fatal(err)
			}
			branch := "stray-" + string(rune('a'+i))
			git(t, work, "add", "-A")
			git(t, work, "commit", "-qm", "stray")
			git(t, work, "push", "-q", "origin", "HEAD:refs/heads/"+branch)
			sn, err := s.Snapshot(branch)
			if err != nil {
				t.Fatal(err)
			}
			want := tt.path
			if tt.folder {
				want = shard + "deeper"
			}
			_, err = sn.List("camelot", Claims)
			var ce *CorruptError
			if !errors.As(err, &ce) || ce.Path != want {
				t.Fatalf("listing: %v, want a CorruptError at %s", err, want)
			}
			if _, err := sn.Objects("camelot", Claims); !errors.As(err, &ce) {
				t.Fatalf("Objects: %v, want a CorruptError", err)
			}
		})
	}
}

// TestPartsOf: files are grouped into a part per run of one folder, in
// order, whatever the shape: one folder, a folder per file, none.
func TestPartsOf(t *testing.T) {
	ref := func(dir string, b byte) fileRef { return fileRef{id: objects.ID{b}, blob: Hash{b}, dir: dir} }
	cases := []struct {
		name string
		fs   []fileRef
		want []int // files per part
	}{
		{"none", nil, nil},
		{"one folder", []fileRef{ref("a/", 1), ref("a/", 2), ref("a/", 3)}, []int{3}},
		{"a folder per file", []fileRef{ref("a/", 1), ref("b/", 2), ref("c/", 3)}, []int{1, 1, 1}},
		{"runs", []fileRef{ref("a/", 1), ref("a/", 2), ref("b/", 3), ref("c/", 4), ref("c/", 5)}, []int{2, 1, 2}},
	}
	for _, c := range cases {
		parts := partsOf(c.fs)
		var got []int
		var back []fileRef
		for _, p := range parts {
			got = append(got, len(p.files))
			for i := range p.files {
				back = append(back, p.ref(i))
			}
		}
		if !slices.Equal(got, c.want) || !slices.Equal(back, c.fs) {
			t.Errorf("%s: parts of %v, files %v; want parts of %v, files %v", c.name, got, back, c.want, c.fs)
		}
		for _, p := range parts {
			if len(p.files) > 0 && cap(p.files) != len(p.files) {
				t.Errorf("%s: a part of %d files has room for %d: an append would run into the next", c.name, len(p.files), cap(p.files))
			}
		}
	}
}
