package lorestore

import (
	"errors"
	"strings"
	"testing"
)

// TestDKESnapshotRefs: a snapshot is a ref real git reads; a taken name,
// a bad store id or name, and an unknown commit are refused with no ref
// written; the listing is per store and sorted.
func TestDKESnapshotRefs(t *testing.T) {
	s, dir := newStore(t)
	b := NewBatch()
	must(t, b.PutDKEHeader("alpha", []byte(`{"store":"alpha","clock":0,"created":"2026-12-01T12:00:00Z"}`)))
	c1 := commitBatch(t, s, b, "dke store create alpha")
	must(t, s.SaveDKESnapshot("alpha", "before", c1.Commit))
	must(t, s.SaveDKESnapshot("beta", "b1", c1.Commit))
	must(t, s.SaveDKESnapshot("alpha", "after", c1.Commit))
	if got := strings.TrimSpace(git(t, dir, "rev-parse", "refs/dke-snapshots/alpha/before")); got != c1.Commit.String() {
		t.Fatalf("git reads the snapshot as %s, want %s", got, c1.Commit)
	}
	before := dirState(t, dir)
	for _, tc := range []struct {
		store, name string
		commit      Hash
		want        error
	}{
		{"alpha", "before", c1.Commit, ErrSnapshotExists},
		{"../x", "n", c1.Commit, ErrInvalidName},
		{"alpha", "a/b", c1.Commit, ErrInvalidName},
		{"alpha", "..", c1.Commit, ErrInvalidName},
		{"alpha", "x.lock", c1.Commit, ErrInvalidName},
		{"alpha", "", c1.Commit, ErrInvalidName},
		{"alpha", "new", NewHash("0123456789012345678901234567890123456789"), nil},
	} {
		err := s.SaveDKESnapshot(tc.store, tc.name, tc.commit)
		if err == nil || tc.want != nil && !errors.Is(err, tc.want) {
			t.Errorf("SaveDKESnapshot(%q, %q): %v, want %v", tc.store, tc.name, err, tc.want)
		}
	}
	sameState(t, before, dirState(t, dir))
	if h, err := s.DKESnapshot("alpha", "after"); err != nil || h != c1.Commit {
		t.Errorf("DKESnapshot: %s %v", h, err)
	}
	if _, err := s.DKESnapshot("alpha", "never"); !errors.Is(err, ErrNotFound) {
		t.Errorf("an unknown snapshot: %v", err)
	}
	for _, tc := range []struct{ store, want string }{
		{"alpha", "alpha/after alpha/before"},
		{"", "alpha/after alpha/before beta/b1"},
		{"gamma", ""},
	} {
		rs, err := s.DKESnapshots(tc.store)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, r := range rs {
			names = append(names, r.Store+"/"+r.Name)
		}
		if got := strings.Join(names, " "); got != tc.want {
			t.Errorf("DKESnapshots(%q) = %q, want %q", tc.store, got, tc.want)
		}
	}
	if ps, err := s.Fsck(); err != nil || len(ps) != 0 {
		t.Fatalf("fsck: %v %v", ps, err)
	}
}
