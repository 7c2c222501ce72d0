// The streaming diff and ShowChanges: the walk reports files in the order
// of a plain recursive diff while it reads subtrees ahead; ShowChanges
// hands every change over in that order, stops at the first error, and
// leaves no goroutine behind.

package lorestore

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/deloreis/deloreis/internal/testenv"
	"github.com/deloreis/deloreis/objects"
	"github.com/go-git/go-git/v5/plumbing"
)

// plainDiff is the reference walk: decoded trees, entries paired by name,
// one level after another, nothing read ahead. A folder reports its added
// and changed entries in tree order (going down into folders in place),
// then its removed ones.
func plainDiff(t *testing.T, s *Store, oldTree, newTree Hash, path string, out *[]string) {
	t.Helper()
	if oldTree == newTree {
		return
	}
	read := func(h Hash) []treeEntry {
		if h.IsZero() {
			return nil
		}
		es, err := s.readTree(h)
		if err != nil {
			t.Fatal(err)
		}
		return es
	}
	olds, news := read(oldTree), read(newTree)
	for _, ne := range news {
		oe, ok := findEntry(olds, ne.name)
		switch {
		case ok && oe.hash == ne.hash:
		case ne.isTree():
			var ot Hash
			if ok {
				ot = oe.hash
			}
			plainDiff(t, s, ot, ne.hash, path+ne.name+"/", out)
		case ok:
			*out = append(*out, "~"+path+ne.name)
		default:
			*out = append(*out, "+"+path+ne.name)
		}
	}
	for _, oe := range olds {
		if _, ok := findEntry(news, oe.name); ok {
			continue
		}
		if oe.isTree() {
			plainDiff(t, s, oe.hash, ZeroHash, path+oe.name+"/", out)
		} else {
			*out = append(*out, "-"+path+oe.name)
		}
	}
}

// TestDiffFilesOrder: on random edits of a tree of nested, sharded
// folders (many changed folders a level, so that reads run ahead of the
// walk), the diff reports files in exactly the reference walk's order.
func TestDiffFilesOrder(t *testing.T) {
	s, _ := newStore(t)
	rng := rand.New(rand.NewPCG(7, 11))
	name := func() string {
		return fmt.Sprintf("s%d/c/%02x/%06x.json", rng.IntN(3), rng.IntN(24), rng.IntN(1<<24))
	}
	old := map[string]string{}
	for i := range 2000 {
		old[name()] = fmt.Sprint(i)
	}
	for round := range 6 {
		cur := map[string]string{}
		for p, c := range old {
			switch rng.IntN(20) {
			case 0: // removed
			case 1:
				cur[p] = c + "!"
			default:
				cur[p] = c
			}
		}
		for range rng.IntN(200) {
			cur[name()] = "new"
		}
		if round == 5 {
			cur = nil // everything removed
		}
		oldTree, newTree := writeFiles(t, s, old), writeFiles(t, s, cur)
		var want, got []string
		plainDiff(t, s, oldTree, newTree, "", &want)
		err := s.diffFiles(oldTree, newTree, nil, func(path []string, name string, _ Hash, removed, replaced bool) error {
			sign := "+"
			switch {
			case removed:
				sign = "-"
			case replaced:
				sign = "~"
			}
			got = append(got, sign+strings.Join(append(slices.Clone(path), name), "/"))
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if len(want) == 0 || !slices.Equal(got, want) {
			t.Fatalf("round %d: %d files reported, want %d (in this order)\ngot  %.300v\nwant %.300v", round, len(got), len(want), got, want)
		}
		old = cur
	}
}

// showStore commits facts [0, 1500) to two scopes, then a commit that
// removes some and adds more: over showChunk changes, in many shards.
func showStore(t *testing.T) (*Store, Hash) {
	t.Helper()
	s, _ := newStore(t)
	commitFacts(t, s, "camelot", 0, 1500)
	commitFacts(t, s, "logres", 0, 400)
	b := NewBatch()
	for i := 0; i < 1500; i += 7 {
		id := factID(t, i)
		if err := b.Remove(fmt.Sprintf("scopes/camelot/claims/%s/%s.json", id.String()[:2], id)); err != nil {
			t.Fatal(err)
		}
	}
	for i := 1500; i < 2100; i++ {
		for _, scope := range []string{"camelot", "logres"} {
			if _, err := b.Put(scope, fact(i)); err != nil {
				t.Fatal(err)
			}
		}
	}
	res, err := s.Commit(b, NewMessage("edit", "materialize", "camelot"), CommitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return s, res.Commit
}

// shown is one change as ShowChanges reports it in these tests.
func shownString(c Change) string {
	sign := "+"
	if c.Removed {
		sign = "-"
	}
	return fmt.Sprintf("%s%s/%s/%s", sign, c.Scope, c.Kind, c.ID)
}

// TestShowChanges: every change Changes lists reaches emit, in the same
// order, with what prep made of its object (read as ChangeObject reads
// it); without load prep gets no object.
func TestShowChanges(t *testing.T) {
	s, commit := showStore(t)
	changes, err := s.Changes(commit)
	if err != nil {
		t.Fatal(err)
	}
	if len(changes) < 3*showChunk {
		t.Fatalf("only %d changes: the test wants several batches", len(changes))
	}
	var want []string
	for _, c := range changes {
		o, err := s.ChangeObject(c)
		if err != nil {
			t.Fatal(err)
		}
		data, err := objects.Canonical(o)
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, shownString(c)+" "+string(data))
	}
	for _, load := range []bool{true, false} {
		before := runtime.NumGoroutine()
		var got []string
		err := ShowChanges(s, commit, load, func(c Change, o objects.Object) (string, error) {
			if !load {
				if o != nil {
					return "", errors.New("an object without load")
				}
				return shownString(c), nil
			}
			data, err := objects.Canonical(o)
			return shownString(c) + " " + string(data), err
		}, func(c Change, s string) error {
			if !strings.HasPrefix(s, shownString(c)) {
				return fmt.Errorf("emit got %q with change %s", s, shownString(c))
			}
			got = append(got, s)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		w := want
		if !load {
			w = nil
			for _, c := range changes {
				w = append(w, shownString(c))
			}
		}
		if !slices.Equal(got, w) {
			t.Fatalf("load %v: %d changes shown, want %d in order", load, len(got), len(w))
		}
		testenv.QuietGoroutines(t, before)
	}
}

// TestShowChangesStops: the first error in the changes' order (from prep
// or emit) is returned, nothing after it is emitted, and no goroutine is
// left running; a walk that cannot read a tree fails the same way.
func TestShowChangesStops(t *testing.T) {
	s, commit := showStore(t)
	changes, err := s.Changes(commit)
	if err != nil {
		t.Fatal(err)
	}
	failAt := func(k int) string { return shownString(changes[k]) }
	for _, tc := range []struct {
		name           string
		prepAt, emitAt int // the change that fails (-1: none)
	}{
		{"prep-first", 0, -1},
		{"prep-middle", 2*showChunk + 17, -1},
		{"prep-last", len(changes) - 1, -1},
		{"emit-first", -1, 0},
		{"emit-middle", -1, showChunk + 3},
		{"both-prep-earlier", showChunk, 3 * showChunk},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := runtime.NumGoroutine()
			stop := errors.New("stop")
			var emitted []string
			err := ShowChanges(s, commit, true, func(c Change, _ objects.Object) (string, error) {
				if tc.prepAt >= 0 && shownString(c) == failAt(tc.prepAt) {
					return "", stop
				}
				return shownString(c), nil
			}, func(c Change, x string) error {
				if tc.emitAt >= 0 && x == failAt(tc.emitAt) {
					return stop
				}
				emitted = append(emitted, x)
				return nil
			})
			if err != stop {
				t.Fatalf("error %v, want %v", err, stop)
			}
			last := tc.emitAt
			if tc.prepAt >= 0 {
				last = tc.prepAt
			}
			for i, x := range emitted {
				if i >= last || x != shownString(changes[i]) {
					t.Fatalf("emitted %q as change %d, failing at %d", x, i, last)
				}
			}
			if tc.emitAt >= 0 && tc.prepAt < 0 && len(emitted) != tc.emitAt {
				t.Fatalf("%d changes emitted before the failing one, want %d", len(emitted), tc.emitAt)
			}
			testenv.QuietGoroutines(t, before)
		})
	}
	t.Run("missing-tree", func(t *testing.T) {
		before := runtime.NumGoroutine()
		b := s.db.NewBatch()
		gone := NewHash("00000000000000000000000000000000000000aa")
		data, err := encodeTree([]treeEntry{{name: "camelot", mode: modeTree, hash: gone}})
		if err != nil {
			t.Fatal(err)
		}
		scopes := b.Add(plumbing.TreeObject, data)
		if data, err = encodeTree([]treeEntry{{name: scopesDir, mode: modeTree, hash: Hash(scopes)}}); err != nil {
			t.Fatal(err)
		}
		root := b.Add(plumbing.TreeObject, data)
		broken := b.Add(plumbing.CommitObject, encodeCommit(s.newCommit(Hash(root), []Hash{commit}, NewMessage("broken", "materialize", ""))))
		if err := b.Write(); err != nil {
			t.Fatal(err)
		}
		err = ShowChanges(s, Hash(broken), false, func(Change, objects.Object) (int, error) { return 0, nil },
			func(Change, int) error { return nil })
		if err == nil {
			t.Fatal("a diff through a missing tree succeeded")
		}
		testenv.QuietGoroutines(t, before)
	})
}
