// Integrity at the boundary: content that real git put on a branch behind
// the store's back is verified before a merge, fast-forward, branch or
// clone makes it reachable from a lore branch; remote-tracking refs hold
// anything (quarantine). Also: unique roots per store, and the changes of
// a root commit.

package lorestore

import (
	"errors"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/deloreis/deloreis/internal/testenv"
	"github.com/deloreis/deloreis/objects"
)

// claimPath is where fact n is filed in scope.
func claimPath(t testing.TB, scope string, n int) string {
	id := factID(t, n).String()
	return "scopes/" + scope + "/claims/" + id[:2] + "/" + id + ".json"
}

func canonical(t testing.TB, o objects.Object) ([]byte, string) {
	t.Helper()
	data, err := objects.Canonical(o)
	if err != nil {
		t.Fatal(err)
	}
	return data, objects.ID(sumID(data)).String()
}

// badEdits are the members of the class "content a lore branch must not
// hold", each as an edit of a store holding facts 0..3 of scope camelot.
func badEdits(t testing.TB) map[string]map[string][]byte {
	t.Helper()
	f9, id9 := canonical(t, fact(9))
	broken := []byte(`{"broken":true}`)
	brokenID := objects.ID(sumID(broken)).String()
	nonCanon := append([]byte(" "), f9...)
	nonCanonID := objects.ID(sumID(nonCanon)).String()
	return map[string]map[string][]byte{
		"claim-rewritten":      {claimPath(t, "camelot", 1): broken},
		"not-its-id":           {"scopes/camelot/claims/" + id9[:2] + "/" + strings.Repeat("ab", 32) + ".json": f9},
		"wrong-shard":          {"scopes/camelot/claims/zz/" + id9 + ".json": f9},
		"wrong-section":        {"scopes/camelot/decisions/" + id9 + ".json": f9},
		"unknown-section":      {"scopes/camelot/gossip/" + id9 + ".json": f9},
		"bad-scope-name":       {"scopes/Not A Scope/claims/" + id9[:2] + "/" + id9 + ".json": f9},
		"name-not-an-id":       {"scopes/camelot/claims/" + id9[:2] + "/readme.json": f9},
		"hashes-but-no-object": {"scopes/camelot/claims/" + brokenID[:2] + "/" + brokenID + ".json": broken},
		"not-canonical":        {"scopes/camelot/claims/" + nonCanonID[:2] + "/" + nonCanonID + ".json": nonCanon},
		"executable":           {"100755:scopes/camelot/claims/" + id9[:2] + "/" + id9 + ".json": f9},
		"symlink":              {"120000:scopes/camelot/claims/" + id9[:2] + "/" + id9 + ".json": f9},
		"stray-root-file":      {"README": []byte("hello\n")},
		"no-header":            {headerPath: nil},
		"bad-header":           {headerPath: []byte(`{"kind":"something-else"}`)},
	}
}

// corruptSide builds a store with main at facts 0..3 and a branch side
// rewritten by real git with edits; it returns the store, its dir and the
// side commit.
func corruptSide(t *testing.T, edits map[string][]byte, diverge bool) (*Store, string, Hash) {
	t.Helper()
	s, dir := newStore(t)
	commitFacts(t, s, "camelot", 0, 4)
	if _, err := s.CreateBranch("side", ""); err != nil {
		t.Fatal(err)
	}
	b := NewBatch()
	b.Put("camelot", fact(5))
	if _, err := s.Commit(b, NewMessage("side work", "materialize", "camelot"), CommitOptions{Branch: "side"}); err != nil {
		t.Fatal(err)
	}
	side := rewriteBranch(t, dir, "side", edits)
	// A good commit on top: the bad one is deep in the history, not the tip.
	b = NewBatch()
	b.Put("camelot", fact(6))
	res, err := s.Commit(b, NewMessage("more side work", "materialize", "camelot"), CommitOptions{Branch: "side"})
	if err != nil {
		// The edit broke the layout so the store itself cannot build on
		// it: the bad commit stays the tip.
		res.Commit = side
	}
	if diverge {
		commitFacts(t, s, "camelot", 10, 11)
	}
	return s, dir, res.Commit
}

func wantRefused(t *testing.T, err error) {
	t.Helper()
	var ce *ContentError
	if !errors.As(err, &ce) || !errors.Is(err, ErrInvalidContent) {
		t.Fatalf("got %v, want a *ContentError", err)
	}
	if ce.Path == "" || ce.Object.IsZero() && ce.Reason == "" {
		t.Fatalf("refusal names no path or object: %+v", ce)
	}
	if strings.Count(err.Error(), "\n") != 0 {
		t.Fatalf("refusal is not one line: %q", err)
	}
}

// corruptOpsEach is how many of its ways in each bad edit of a
// corrupt-content test is tried by: all of them (0), or under the race
// detector a few (race_test.go).
var corruptOpsEach = 0

// eachCorruptCase calls fn with every bad edit, in name order, and each
// way in it is tried by; with corruptOpsEach set, the i-th edit is tried
// by that many ways from the i-th on, so every way still meets several
// edits and every edit is tried.
func eachCorruptCase(edits map[string]map[string][]byte, ops []string, fn func(name string, edit map[string][]byte, op string)) {
	for i, name := range slices.Sorted(maps.Keys(edits)) {
		n := len(ops)
		if corruptOpsEach > 0 {
			n = min(n, corruptOpsEach)
		}
		for k := range n {
			fn(name, edits[name], ops[(i+k)%len(ops)])
		}
	}
}

func TestCorruptContentNeverReachesABranch(t *testing.T) {
	ops := []string{"merge", "merge-ff", "branch", "fetch-then-merge", "clone"}
	eachCorruptCase(badEdits(t), ops, func(name string, edits map[string][]byte, op string) {
		t.Run(name+"/"+op, func(t *testing.T) {
			s, dir, _ := corruptSide(t, edits, op == "merge")
			// HEAD, packed-refs and every ref, byte for byte (DL-0431).
			before := testenv.Branches(t, dir)
			var err error
			switch op {
			case "merge":
				_, err = s.Merge("side", MergeOptions{})
			case "merge-ff":
				_, err = s.Merge("side", MergeOptions{FastForward: true})
			case "branch":
				_, err = s.CreateBranch("copy", "side^0")
				if err == nil {
					// A copy of a lore branch adds nothing new; from
					// quarantine it must be checked.
					s.DeleteBranch("copy", ZeroHash)
					c := cloneOf(t, dir)
					dir = c.Dir()
					before = testenv.Branches(t, dir)
					_, err = c.CreateBranch("copy", "origin/side")
				}
			case "fetch-then-merge":
				wantPullRefused(t, dir)
				return
			case "clone":
				wantCloneRefused(t, dir)
				return
			}
			wantRefused(t, err)
			testenv.SameBranches(t, "the refused "+op, before, testenv.Branches(t, dir))
		})
	})
}

// wantPullRefused fetches the side branch of the store at dir into a
// clone, where quarantine takes it as origin/side, and wants its
// fast-forward onto a branch refused, every branch of the clone as it was.
func wantPullRefused(t *testing.T, dir string) {
	t.Helper()
	c := cloneOf(t, dir)
	if _, err := c.Fetch(t.Context(), "origin", FetchOptions{}); err != nil {
		t.Fatalf("fetch into quarantine refused: %v", err)
	}
	if _, err := c.Resolve("origin/side"); err != nil {
		t.Fatalf("origin/side not tracked: %v", err)
	}
	before := testenv.Branches(t, c.Dir())
	_, err := c.Merge("origin/side", MergeOptions{FastForward: true})
	wantRefused(t, err)
	testenv.SameBranches(t, "the refused pull", before, testenv.Branches(t, c.Dir()))
}

// wantCloneRefused points the HEAD of the store at dir at its side branch
// and wants a clone of it refused, leaving nothing behind.
func wantCloneRefused(t *testing.T, dir string) {
	t.Helper()
	git(t, dir, "--git-dir", dir, "symbolic-ref", "HEAD", "refs/heads/side")
	dst := filepath.Join(t.TempDir(), "copy")
	_, err := Clone(t.Context(), dir, dst, CloneOptions{})
	wantRefused(t, err)
	if _, serr := os.Stat(dst); !os.IsNotExist(serr) {
		t.Fatalf("a refused clone left %s behind", dst)
	}
}

// wantFsckFinds wants fsck of s to name first a bad file of side under
// folder (dke, project).
func wantFsckFinds(t *testing.T, s *Store, folder string) {
	t.Helper()
	ps, err := s.Fsck()
	if err != nil || len(ps) == 0 {
		t.Fatalf("fsck found %v (%v), want the bad %s file", ps, err, folder)
	}
	if !strings.Contains(ps[0].Where, "on side at "+folder) {
		t.Fatalf("fsck names %q, want a %s/ path on side", ps[0], folder)
	}
}

// wantFolderKeptOff holds every bad edit of a lore folder (dke, project:
// content the lorestore checks only an envelope of) to be refused by a
// merge, a fast-forward, a pull and a clone, each naming a path under the
// folder and leaving every branch as it was, and to be found by fsck. side
// builds the store whose side branch real git edited.
func wantFolderKeptOff(t *testing.T, folder string, edits map[string]map[string][]byte, side func(*testing.T, map[string][]byte, bool) (*Store, string)) {
	ops := []string{"merge", "merge-ff", "pull", "clone", "fsck"}
	eachCorruptCase(edits, ops, func(name string, edits map[string][]byte, op string) {
		t.Run(name+"/"+op, func(t *testing.T) {
			s, dir := side(t, edits, op == "merge")
			// HEAD, packed-refs and every ref, byte for byte (DL-0431).
			before := testenv.Branches(t, dir)
			var err error
			switch op {
			case "merge":
				_, err = s.Merge("side", MergeOptions{})
			case "merge-ff":
				_, err = s.Merge("side", MergeOptions{FastForward: true})
			case "pull":
				wantPullRefused(t, dir)
				return
			case "clone":
				wantCloneRefused(t, dir)
				return
			case "fsck":
				wantFsckFinds(t, s, folder)
				return
			}
			wantRefused(t, err)
			if ce := err.(*ContentError); !strings.HasPrefix(ce.Path, folder) {
				t.Fatalf("refusal names %q, want a %s/ path", ce.Path, folder)
			}
			testenv.SameBranches(t, "the refused "+op, before, testenv.Branches(t, dir))
		})
	})
}

// cloneOf clones the store at dir (only main is checked; side stays in
// quarantine as origin/side).
func cloneOf(t *testing.T, dir string) *Store {
	t.Helper()
	c, err := Clone(t.Context(), dir, filepath.Join(t.TempDir(), "c.git"), CloneOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// TestGoodContentStillMerges: real git may write a valid object on a
// branch; that merges like our own.
func TestGoodContentStillMerges(t *testing.T) {
	f9, id9 := canonical(t, fact(9))
	s, _, _ := corruptSide(t, map[string][]byte{"scopes/camelot/claims/" + id9[:2] + "/" + id9 + ".json": f9}, true)
	if _, err := s.Merge("side", MergeOptions{}); err != nil {
		t.Fatal(err)
	}
	if ids := allIDs(t, s, "main"); len(ids) != 8 {
		t.Fatalf("merged main holds %d objects, want 8", len(ids))
	}
}

// TestVerifyWalksOnlyWhatIsNew: a merge of one new commit into a long
// history reads the new commit's objects, not the history's.
func TestVerifyWalksOnlyWhatIsNew(t *testing.T) {
	s, _ := newStore(t)
	for c := 0; c < 50; c++ {
		commitFacts(t, s, "camelot", c*20, c*20+20)
	}
	s.CreateBranch("side", "")
	b := NewBatch()
	b.Put("camelot", fact(5000))
	side, err := s.Commit(b, NewMessage("side", "materialize", "camelot"), CommitOptions{Branch: "side"})
	if err != nil {
		t.Fatal(err)
	}
	head, _ := s.Head("main")
	v := newVerifier(s)
	if err := v.verify(side.Commit, []Hash{head}); err != nil {
		t.Fatal(err)
	}
	if v.commits != 1 || v.blobs != 1 {
		t.Fatalf("verified %d commits and %d blobs, want 1 and 1", v.commits, v.blobs)
	}
	v = newVerifier(s)
	if err := v.verify(side.Commit, nil); err != nil {
		t.Fatal(err)
	}
	if v.commits != 52 || v.blobs != 1001 {
		t.Fatalf("a full check verified %d commits and %d blobs, want 52 and 1001", v.commits, v.blobs)
	}
}
