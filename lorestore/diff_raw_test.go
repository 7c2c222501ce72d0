// The tree diff over raw entries: what it reports equals a comparison of
// the two trees flattened to files, and its tree reader refuses exactly
// what decodeTree refuses.

package lorestore

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/deloreis/deloreis/lorestore/odb"
	"github.com/deloreis/deloreis/objects"
	"github.com/go-git/go-git/v5/plumbing"
)

// writeFiles stores a tree holding files (path → content) and returns it.
func writeFiles(t *testing.T, s *Store, files map[string]string) Hash {
	t.Helper()
	b := s.db.NewBatch()
	h := writeDir(t, b, files)
	if err := b.Write(); err != nil {
		t.Fatal(err)
	}
	return h
}

func writeDir(t *testing.T, b interface {
	Add(plumbing.ObjectType, []byte) plumbing.Hash
}, files map[string]string) Hash {
	sub := map[string]map[string]string{}
	var es []treeEntry
	for p, content := range files {
		dir, rest, nested := strings.Cut(p, "/")
		if !nested {
			es = append(es, treeEntry{name: p, mode: modeBlob, hash: Hash(b.Add(plumbing.BlobObject, []byte(content)))})
			continue
		}
		if sub[dir] == nil {
			sub[dir] = map[string]string{}
		}
		sub[dir][rest] = content
	}
	for dir, fs := range sub {
		es = append(es, treeEntry{name: dir, mode: modeTree, hash: writeDir(t, b, fs)})
	}
	sortEntries(es)
	data, err := encodeTree(es)
	if err != nil {
		t.Fatal(err)
	}
	return Hash(b.Add(plumbing.TreeObject, data))
}

// wantDiff is the diff of two file maps: "+path", "~path" (content
// changed) and "-path", sorted.
func wantDiff(old, cur map[string]string) []string {
	var out []string
	for p, c := range cur {
		switch o, ok := old[p]; {
		case !ok:
			out = append(out, "+"+p)
		case o != c:
			out = append(out, "~"+p)
		}
	}
	for p := range old {
		if _, ok := cur[p]; !ok {
			out = append(out, "-"+p)
		}
	}
	slices.Sort(out)
	return out
}

// gotDiff runs diffFiles on the trees of old and cur, checking that each
// file comes with its blob (the old one for a removal).
func gotDiff(t *testing.T, s *Store, old, cur map[string]string) []string {
	t.Helper()
	var out []string
	err := s.diffFiles(writeFiles(t, s, old), writeFiles(t, s, cur), nil, func(path []string, name string, blob Hash, removed, replaced bool) error {
		sign, side := "+", cur
		switch {
		case removed:
			sign, side = "-", old
		case replaced:
			sign = "~"
		}
		p := strings.Join(append(slices.Clone(path), name), "/")
		if want := odb.HashObject(plumbing.BlobObject, []byte(side[p])); blob != Hash(want) {
			t.Errorf("%s%s: blob %s, want %s", sign, p, blob, want)
		}
		out = append(out, sign+p)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

func TestDiffFilesMatchesFlatDiff(t *testing.T) {
	s, _ := newStore(t)
	for _, tc := range []struct {
		name     string
		old, cur map[string]string
	}{
		{"same", map[string]string{"a/b": "1"}, map[string]string{"a/b": "1"}},
		{"from-nothing", nil, map[string]string{"a/b": "1", "c": "2"}},
		{"to-nothing", map[string]string{"a/b": "1", "c": "2"}, nil},
		{"add-remove-change", map[string]string{"s/c/0a/x": "1", "s/c/0a/y": "2", "s/c/ff/z": "3"},
			map[string]string{"s/c/0a/x": "1", "s/c/0a/y": "2b", "s/c/ff/w": "4"}},
		{"file-becomes-folder", map[string]string{"x": "1", "y": "2"}, map[string]string{"x/inner": "1", "y": "2"}},
		{"folder-becomes-file", map[string]string{"x/inner": "1", "x/more/deep": "3"}, map[string]string{"x": "1"}},
		// git order differs from byte order here: folder "a" sorts as "a/",
		// after "a.b" and "a-c", before "a0".
		{"git-order", map[string]string{"a/1": "p", "a.b": "q", "a-c": "r", "a0": "s"},
			map[string]string{"a/1": "p2", "a/2": "n", "a.b": "q", "a0": "s2", "a+": "t"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := gotDiff(t, s, tc.old, tc.cur)
			if want := wantDiff(tc.old, tc.cur); !slices.Equal(got, want) {
				t.Fatalf("diff = %v\nwant   %v", got, want)
			}
		})
	}
}

// TestDiffFilesRandom: random edits of a sharded tree of a few thousand
// files, the shape of a big claims folder.
func TestDiffFilesRandom(t *testing.T) {
	s, _ := newStore(t)
	rng := rand.New(rand.NewPCG(13, 5))
	old := map[string]string{}
	for i := 0; i < 3000; i++ {
		old[fmt.Sprintf("c/%02x/%08x.json", rng.IntN(16), rng.Uint32())] = fmt.Sprint(i)
	}
	for round := 0; round < 8; round++ {
		cur := map[string]string{}
		for p, c := range old {
			switch rng.IntN(50) {
			case 0: // removed
			case 1:
				cur[p] = c + "!"
			default:
				cur[p] = c
			}
		}
		for i := 0; i < rng.IntN(40); i++ {
			cur[fmt.Sprintf("c/%02x/%08x.json", rng.IntN(20), rng.Uint32())] = "new"
		}
		got := gotDiff(t, s, old, cur)
		if want := wantDiff(old, cur); !slices.Equal(got, want) {
			t.Fatalf("round %d: %d changes reported, want %d\ngot  %v\nwant %v", round, len(got), len(want), got, want)
		}
		old = cur
	}
}

func TestParseRawTreeAgreesWithDecodeTree(t *testing.T) {
	h := strings.Repeat("\x01", 20)
	for _, data := range []string{
		"",
		"100644 a\x00" + h,
		"100644 a\x00" + h + "40000 b\x00" + h,
		"100644 a\x00" + h[:19],
		"100644 a" + h,
		" a\x00" + h,
		"1006448 a\x00" + h,
		"10064a a\x00" + h,
		"+100644 a\x00" + h,
		"77777777777 a\x00" + h,
		"37777777777 a\x00" + h,
		"100644 \x00" + h,
		"100644",
	} {
		want, werr := decodeTree([]byte(data))
		got, gerr := parseRawTree([]byte(data))
		if (werr == nil) != (gerr == nil) {
			t.Fatalf("%q: parseRawTree error %v, decodeTree error %v", data, gerr, werr)
		}
		if len(got) != len(want) {
			t.Fatalf("%q: %d entries, want %d", data, len(got), len(want))
		}
		for i := range got {
			if e := got[i].entry(); e != want[i] {
				t.Fatalf("%q: entry %d = %+v, want %+v", data, i, e, want[i])
			}
		}
	}
}

// TestChangeObject: the objects of a commit's changes are read from the
// files the diff found, a removed one as the parent held it; a change not
// made by Changes is refused.
func TestChangeObject(t *testing.T) {
	s, _ := newStore(t)
	commitFacts(t, s, "camelot", 0, 40)
	gone := factID(t, 3)
	b := NewBatch()
	if err := b.Remove(fmt.Sprintf("scopes/camelot/claims/%s/%s.json", gone.String()[:2], gone)); err != nil {
		t.Fatal(err)
	}
	for i := 40; i < 43; i++ {
		if _, err := b.Put("camelot", fact(i)); err != nil {
			t.Fatal(err)
		}
	}
	res, err := s.Commit(b, NewMessage("edit", "materialize", "camelot"), CommitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	changes, err := s.Changes(res.Commit)
	if err != nil || len(changes) != 4 {
		t.Fatalf("Changes = %v, %v", changes, err)
	}
	want := map[objects.ID]int{gone: 3}
	for i := 40; i < 43; i++ {
		want[factID(t, i)] = i
	}
	for _, c := range changes {
		o, err := s.ChangeObject(c)
		if err != nil {
			t.Fatalf("%v: %v", c.ID, err)
		}
		n, ok := want[c.ID]
		if id, _ := o.ID(); !ok || id != c.ID || c.Removed != (n == 3) {
			t.Fatalf("change %v (removed %v) read %v", c.ID, c.Removed, o)
		}
	}
	if _, err := s.ChangeObject(Change{Scope: "camelot", Kind: Claims, ID: gone}); err == nil {
		t.Fatal("a change made by hand was read")
	}
}
