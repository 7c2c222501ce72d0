// Tests of the store's core: init, commit, snapshot reads, branches, and
// the promise that a refused call changes nothing.

package lorestore

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deloreis/deloreis/lorestore/refs"
	"github.com/deloreis/deloreis/objects"
)

func TestInitOpenAndHeader(t *testing.T) {
	s, dir := newStore(t)
	sn, err := s.Snapshot("")
	if err != nil {
		t.Fatal(err)
	}
	if h := sn.Header(); h.Format != FormatVersion || h.Contract != ContractVersion {
		t.Fatalf("header = %+v", h)
	}
	if scopes, _ := sn.Scopes(); len(scopes) != 0 {
		t.Fatalf("new store has scopes %v", scopes)
	}
	if _, err := Init(dir, Options{}); !errors.Is(err, ErrExists) {
		t.Fatalf("Init over a store: %v, want ErrExists", err)
	}
	if _, err := Open(t.TempDir(), Options{}); !errors.Is(err, ErrNotLorestore) {
		t.Fatalf("Open of an empty folder: %v, want ErrNotLorestore", err)
	}
	s.WaitBackground()
	fsckClean(t, dir)
	if got := git(t, dir, "log", "--format=%s%n%(trailers:key=Lore-Op,valueonly)"); !strings.Contains(got, "init lorestore") || !strings.Contains(got, "init") {
		t.Fatalf("git log of a new store: %q", got)
	}
}

func TestCommitAndRead(t *testing.T) {
	s, dir := newStore(t)
	res := commitFacts(t, s, "camelot", 0, 50)
	if res.Empty || res.Retries != 0 {
		t.Fatalf("commit result %+v", res)
	}
	dec := &objects.Decision{Ident: "canon-1", Rationale: "because"}
	b := NewBatch()
	decID, err := b.Put("camelot", dec)
	if err != nil {
		t.Fatal(err)
	}
	claim := factID(t, 3)
	rev := &objects.Standing{Claim: claim, Standing: objects.StandingRatified, Decision: "canon-1"}
	revID, err := b.Put("camelot", rev)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Put("avalon", fact(1)); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Commit(b, NewMessage("record decision canon-1", "record_decision", "camelot"), CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	sn, err := s.Snapshot("main")
	if err != nil {
		t.Fatal(err)
	}
	scopes, _ := sn.Scopes()
	if strings.Join(scopes, ",") != "avalon,camelot" {
		t.Fatalf("scopes = %v", scopes)
	}
	ids, err := sn.IDs("camelot", Claims)
	if err != nil || len(ids) != 50 {
		t.Fatalf("claims: %d ids, %v", len(ids), err)
	}
	for _, tc := range []struct {
		id   objects.ID
		want objects.Type
	}{{factID(t, 7), objects.TypeFact}, {decID, objects.TypeDecision}, {revID, objects.TypeStanding}} {
		o, err := sn.Get("camelot", tc.id)
		if err != nil || o.Type() != tc.want {
			t.Fatalf("Get %s = %v, %v; want a %s", tc.id, o, err, tc.want)
		}
	}
	if _, err := sn.Get("camelot", factID(t, 999)); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Get of an absent id: %v", err)
	}
	revs, err := sn.Revisions("camelot", claim)
	if err != nil || len(revs) != 1 || revs[0].ID != revID {
		t.Fatalf("Revisions = %v, %v", revs, err)
	}
	// The earlier commit still reads as it was.
	old, err := s.SnapshotAt(res.Commit)
	if err != nil {
		t.Fatal(err)
	}
	if ids, _ := old.IDs("camelot", Decisions); len(ids) != 0 {
		t.Fatalf("old snapshot sees decisions %v", ids)
	}
	s.WaitBackground()
	fsckClean(t, dir)
	// Real git sees the same file layout.
	ls := git(t, dir, "ls-tree", "-r", "--name-only", "main")
	if !strings.Contains(ls, "scopes/camelot/decisions/"+decID.String()+".json") ||
		!strings.Contains(ls, "scopes/camelot/standing/"+claim.String()+"/"+revID.String()+".json") ||
		!strings.Contains(ls, "scopes/camelot/claims/"+factID(t, 7).String()[:2]+"/"+factID(t, 7).String()+".json") {
		t.Fatalf("git ls-tree:\n%s", ls)
	}
	blob := git(t, dir, "cat-file", "-p", "main:scopes/camelot/decisions/"+decID.String()+".json")
	if want, _ := objects.Canonical(dec); blob != string(want) {
		t.Fatalf("git reads %q, want %q", blob, want)
	}
}

func TestEmptyCommitWritesNothing(t *testing.T) {
	s, _ := newStore(t)
	first := commitFacts(t, s, "camelot", 0, 5)
	again := commitFacts(t, s, "camelot", 0, 5)
	if !again.Empty || again.Commit != first.Commit {
		t.Fatalf("recommit of the same objects = %+v, want empty at %s", again, first.Commit)
	}
}

func TestSubtreeReuse(t *testing.T) {
	s, _ := newStore(t)
	commitFacts(t, s, "camelot", 0, 2000)
	commitFacts(t, s, "avalon", 0, 10)
	before, _ := s.Head("main")
	res := commitFacts(t, s, "camelot", 5000, 5001)
	b, _ := s.readCommit(before)
	a, _ := s.readCommit(res.Commit)
	oldAvalon, _ := s.subtree(b.tree, scopesDir, "avalon")
	newAvalon, _ := s.subtree(a.tree, scopesDir, "avalon")
	if oldAvalon != newAvalon || oldAvalon.IsZero() {
		t.Fatal("an untouched scope was rewritten")
	}
	// Only the root, scopes, camelot, claims and one shard tree change:
	// count the shard trees that differ.
	oc, _ := s.subtree(b.tree, scopesDir, "camelot", "claims")
	nc, _ := s.subtree(a.tree, scopesDir, "camelot", "claims")
	oes, _ := s.readTree(oc)
	nes, _ := s.readTree(nc)
	changed := 0
	for _, e := range nes {
		if o, ok := findEntry(oes, e.name); !ok || o.hash != e.hash {
			changed++
		}
	}
	if changed != 1 {
		t.Fatalf("%d shard trees changed for a one-object commit, want 1", changed)
	}
}

func TestBranches(t *testing.T) {
	s, _ := newStore(t)
	commitFacts(t, s, "camelot", 0, 3)
	main, _ := s.Head("main")
	if _, err := s.CreateBranch("exploration", ""); err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreateBranch("exploration", ""); !errors.Is(err, ErrBranchExists) {
		t.Fatalf("second create: %v", err)
	}
	b := NewBatch()
	b.Put("camelot", fact(100))
	if _, err := s.Commit(b, NewMessage("on a branch", "materialize", "camelot"), CommitOptions{Branch: "exploration"}); err != nil {
		t.Fatal(err)
	}
	if h, _ := s.Head("main"); h != main {
		t.Fatal("a commit on a branch moved main")
	}
	bs, err := s.Branches()
	if err != nil || len(bs) != 2 || bs[0].Name != "exploration" || bs[1].Name != "main" {
		t.Fatalf("Branches = %v, %v", bs, err)
	}
	if err := s.DeleteBranch("main", ZeroHash); err == nil {
		t.Fatal("deleted the default branch")
	}
	if err := s.DeleteBranch("exploration", main); !errors.Is(err, ErrStale) {
		t.Fatalf("delete with a stale expectation: %v", err)
	}
	if err := s.DeleteBranch("exploration", ZeroHash); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Head("exploration"); !errors.Is(err, ErrBranchNotFound) {
		t.Fatalf("deleted branch still there: %v", err)
	}
}

// badInput is a call that must fail, and the check its error must pass.
type badInput struct {
	name  string
	call  func() error
	check func(error) bool
}

// badInputs are the refused calls on s, whose main moved on from head: an
// invalid object, scope or message, a stale compare-and-swap and an
// unknown branch.
func badInputs(s *Store, head Hash) []badInput {
	bad := &objects.Fact{Entity: "mireth", Key: "tongue", Value: "low\x07saltish", Provenance: objects.Proposed("s")}
	return []badInput{
		{"invalid object", func() error {
			_, err := NewBatch().Put("camelot", bad)
			return err
		}, func(err error) bool {
			var fe *objects.FieldError
			var el objects.ErrorList
			return errors.As(err, &fe) && fe.Code == "field.control-char" || errors.As(err, &el)
		}},
		{"invalid scope", func() error {
			_, err := NewBatch().Put("../x", fact(1))
			return err
		}, func(err error) bool { var se *ScopeError; return errors.As(err, &se) }},
		{"stale CAS refused", func() error {
			b := NewBatch()
			b.Put("camelot", fact(77))
			_, err := s.Commit(b, NewMessage("stale", "materialize", "camelot"), CommitOptions{Parent: head, Refuse: true})
			return err
		}, func(err error) bool { var se *StaleError; return errors.As(err, &se) && errors.Is(err, ErrStale) }},
		{"bad message", func() error {
			b := NewBatch()
			b.Put("camelot", fact(78))
			_, err := s.Commit(b, Message{Summary: "two\nlines"}, CommitOptions{})
			return err
		}, func(err error) bool { var me *MessageError; return errors.As(err, &me) }},
		{"unknown branch", func() error {
			b := NewBatch()
			b.Put("camelot", fact(79))
			_, err := s.Commit(b, NewMessage("x", "materialize", "camelot"), CommitOptions{Branch: "nowhere"})
			return err
		}, func(err error) bool { return errors.Is(err, ErrBranchNotFound) }},
	}
}

// badRefNames are a branch creation and a commit on s for each invalid
// ref name, each refused with a *refs.NameError.
func badRefNames(s *Store) []badInput {
	var cases []badInput
	for _, name := range []string{"../x", "a..b", "main.lock", "bad\x01name", "bad name", "x/../../config", "-", ".hidden", "a//b", "a/", "@", "a@{b", "a~1", "a^", "a:b", "a?b", "a*b", "a[b", "a\\b"} {
		name := name
		cases = append(cases,
			badInput{"branch create " + name, func() error { _, err := s.CreateBranch(name, ""); return err },
				func(err error) bool { var ne *refs.NameError; return errors.As(err, &ne) }},
			badInput{"commit to " + name, func() error {
				b := NewBatch()
				b.Put("camelot", fact(80))
				_, err := s.Commit(b, NewMessage("x", "materialize", "camelot"), CommitOptions{Branch: name})
				return err
			}, func(err error) bool { var ne *refs.NameError; return errors.As(err, &ne) }},
		)
	}
	return cases
}

// TestBadInputChangesNothing: an invalid object, an invalid ref name or a
// stale compare-and-swap returns a typed error and leaves refs and objects
// as they were.
func TestBadInputChangesNothing(t *testing.T) {
	s, dir := newStore(t)
	commitFacts(t, s, "camelot", 0, 10)
	head, _ := s.Head("main")
	if _, err := s.CreateBranch("side", ""); err != nil {
		t.Fatal(err)
	}
	b := NewBatch()
	b.Put("camelot", fact(50))
	if _, err := s.Commit(b, NewMessage("move main", "materialize", "camelot"), CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	before := dirState(t, dir)

	for _, tc := range append(badInputs(s, head), badRefNames(s)...) {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.call()
			if err == nil || !tc.check(err) {
				t.Fatalf("got %T %v", err, err)
			}
			sameState(t, before, dirState(t, dir))
		})
	}
	if _, err := os.Stat(filepath.Join(dir, "config")); err != nil {
		t.Fatal(err)
	}
}

func TestPinnedStoreIsReadOnly(t *testing.T) {
	s, dir := newStore(t)
	first := commitFacts(t, s, "camelot", 0, 3)
	commitFacts(t, s, "camelot", 3, 6)
	p, err := OpenAt(dir, first.Commit.String(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	sn, err := p.Snapshot("")
	if err != nil || sn.Commit() != first.Commit {
		t.Fatalf("pinned snapshot at %v, %v", sn, err)
	}
	if ids, _ := sn.IDs("camelot", Claims); len(ids) != 3 {
		t.Fatalf("pinned snapshot sees %d claims", len(ids))
	}
	b := NewBatch()
	b.Put("camelot", fact(9))
	if _, err := p.Commit(b, NewMessage("x", "materialize", "camelot"), CommitOptions{}); !errors.Is(err, ErrReadOnly) {
		t.Fatalf("commit on a pinned store: %v", err)
	}
	if _, err := p.CreateBranch("x", ""); !errors.Is(err, ErrReadOnly) {
		t.Fatalf("branch on a pinned store: %v", err)
	}
}

func TestCorruptBlobIsReported(t *testing.T) {
	s, dir := newStore(t)
	commitFacts(t, s, "camelot", 0, 1)
	// Forge a commit with real git whose claim file holds other bytes.
	id := factID(t, 0)
	path := "scopes/camelot/claims/" + id.String()[:2] + "/" + id.String() + ".json"
	work := t.TempDir()
	git(t, work, "clone", "-q", dir, "w")
	w := filepath.Join(work, "w")
	if err := os.WriteFile(filepath.Join(w, path), []byte(`{"tampered":true}`), 0o644); err != nil {
		t.Fatal(err)
	}
	git(t, w, "commit", "-qam", "tamper")
	git(t, w, "push", "-q", "origin", "HEAD:refs/heads/tampered")
	sn, err := s.Snapshot("tampered")
	if err != nil {
		t.Fatal(err)
	}
	_, err = sn.Objects("camelot", Claims)
	var ce *CorruptError
	if !errors.As(err, &ce) {
		t.Fatalf("reading a tampered blob: %v, want *CorruptError", err)
	}
}
