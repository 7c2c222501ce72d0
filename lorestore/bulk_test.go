// Bulk commits: the same trees as a batch commit of the same objects, real
// git accepts them, and a refused or dropped bulk commit leaves nothing.

package lorestore

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/deloreis/deloreis/objects"
)

// mixedObject is object n of a mix of every section: mostly facts, and
// decisions, attacks and standing revisions of earlier facts.
func mixedObject(t testing.TB, n int) objects.Object {
	switch n % 10 {
	case 3:
		return &objects.Decision{Ident: fmt.Sprintf("dec-%d", n), Rationale: "because"}
	case 6:
		return &objects.Attack{Attacker: fmt.Sprintf("dec-%d", n-3), Target: "dec-3", Claim: factID(t, n/10)}
	case 9:
		return &objects.Standing{Claim: factID(t, n%50), Standing: objects.StandingRatified, Decision: fmt.Sprintf("dec-%d", n-6)}
	}
	return fact(n)
}

// bulkCase is one TestBulkMatchesBatch case: a bulk commit over a base,
// and how its objects are put.
type bulkCase struct {
	name       string
	base       [2]int // objects [from, to) committed first, through a batch
	from, to   int    // the bulk's objects
	repeat     int    // every repeat-th object is put twice (0: never)
	runRecords int    // file records per sorted run
	putAll     int    // put by PutAll in slices of this many, at GOMAXPROCS procs (0: by Put)
	procs      int
}

// bulkMatchCases are TestBulkMatchesBatch's cases: over no base and over
// one, with repeats, in one sorted run and in many, by Put and by PutAll.
var bulkMatchCases = []bulkCase{
	{"empty-store", [2]int{}, 0, 3000, 0, 1 << 20, 0, 0},
	{"many-runs", [2]int{}, 0, 3000, 0, 113, 0, 0},
	{"repeats", [2]int{}, 0, 2000, 3, 97, 0, 0},
	{"over-a-base", [2]int{0, 1500}, 1000, 4000, 0, 211, 0, 0},
	{"all-in-base", [2]int{0, 800}, 0, 800, 0, 50, 0, 0},
	{"put-all-one-core", [2]int{}, 0, 9000, 0, 1 << 20, 9000, 1},
	{"put-all-three-cores", [2]int{}, 0, 9000, 0, 307, 5000, 3},
	{"put-all-repeats-over-a-base", [2]int{0, 1500}, 1000, 6000, 3, 211, 777, 2},
}

// bulkObjects are the bulk's objects of tc, in the order they are put.
func bulkObjects(t *testing.T, tc bulkCase) []objects.Object {
	t.Helper()
	var objs []objects.Object
	for i := tc.from; i < tc.to; i++ {
		objs = append(objs, mixedObject(t, i))
		if tc.repeat > 0 && i%tc.repeat == 0 {
			objs = append(objs, mixedObject(t, i))
		}
	}
	return objs
}

// batchCommitted commits objs through one batch on a store with base, the
// commit a bulk commit of them must match.
func batchCommitted(t *testing.T, base [2]int, objs []objects.Object, m Message) (*Store, CommitResult) {
	t.Helper()
	want, _ := storeWithBase(t, base)
	b := NewBatch()
	for _, o := range objs {
		if _, err := b.Put("camelot", o); err != nil {
			t.Fatal(err)
		}
	}
	wantRes, err := want.Commit(b, m, CommitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return want, wantRes
}

// putBulk puts objs into bulk one by one, checking each id Put returns,
// or by PutAll in slices of putAll when putAll > 0.
func putBulk(t *testing.T, bulk *Bulk, objs []objects.Object, putAll int) {
	t.Helper()
	for i, o := range objs {
		if putAll > 0 {
			break
		}
		id, err := bulk.Put(o)
		if err != nil {
			t.Fatal(err)
		}
		if wid, _ := o.ID(); wid != id {
			t.Fatalf("object %d: id %s, want %s", i, id, wid)
		}
	}
	for lo := 0; putAll > 0 && lo < len(objs); lo += putAll {
		if err := bulk.PutAll(objs[lo:min(len(objs), lo+putAll)]); err != nil {
			t.Fatal(err)
		}
	}
	if bulk.Len() != len(objs) {
		t.Fatalf("Len %d after putting %d objects", bulk.Len(), len(objs))
	}
}

func TestBulkMatchesBatch(t *testing.T) {
	for _, tc := range bulkMatchCases {
		t.Run(tc.name, func(t *testing.T) {
			old := fileRunRecords
			fileRunRecords = tc.runRecords
			defer func() { fileRunRecords = old }()
			if tc.procs > 0 {
				defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(tc.procs))
			}
			objs := bulkObjects(t, tc)
			m := NewMessage("bulk import", "import", "camelot")
			want, wantRes := batchCommitted(t, tc.base, objs, m)
			got, dir := storeWithBase(t, tc.base)
			bulk, err := got.NewBulk("camelot")
			if err != nil {
				t.Fatal(err)
			}
			putBulk(t, bulk, objs, tc.putAll)
			gotRes, err := bulk.Commit(m, CommitOptions{})
			if err != nil {
				t.Fatal(err)
			}
			// Each store's root holds its own random store id: compare
			// the scopes folders, which must be the same objects.
			if gotRes.Empty != wantRes.Empty || treeOf(t, got, gotRes.Commit) != treeOf(t, want, wantRes.Commit) {
				t.Fatalf("bulk commit %+v (tree %s), batch commit %+v (tree %s)", gotRes,
					treeOf(t, got, gotRes.Commit), wantRes, treeOf(t, want, wantRes.Commit))
			}
			if gotRes.Empty {
				return
			}
			got.WaitBackground()
			fsckClean(t, dir)
			logged := git(t, dir, "log", "--format=%H %s", "-n", "1", "main")
			if want := gotRes.Commit.String() + " bulk import\n"; logged != want {
				t.Fatalf("git log: %q, want %q", logged, want)
			}
			if n := len(allIDs(t, got, "main")); n != len(allIDs(t, want, "main")) {
				t.Fatalf("%d objects read back", n)
			}
			if tmp := spooled(t, dir); len(tmp) > 0 {
				t.Fatalf("temporary files left: %v", tmp)
			}
		})
	}
}

// treeOf returns the scopes folder of commit c.
func treeOf(t *testing.T, s *Store, c Hash) Hash {
	t.Helper()
	pc, err := s.readCommit(c)
	if err != nil {
		t.Fatal(err)
	}
	root, err := s.readTree(pc.tree)
	if err != nil {
		t.Fatal(err)
	}
	h, err := subtree(root, scopesDir, scopesDir)
	if err != nil || h.IsZero() {
		t.Fatalf("no scopes folder: %v", err)
	}
	return h
}

// storeWithBase makes a store whose main holds mixed objects [from, to) of
// scope camelot and one fact of scope avalon.
func storeWithBase(t *testing.T, base [2]int) (*Store, string) {
	t.Helper()
	s, dir := newStore(t)
	b := NewBatch()
	if _, err := b.Put("avalon", fact(1)); err != nil {
		t.Fatal(err)
	}
	for i := base[0]; i < base[1]; i++ {
		if _, err := b.Put("camelot", mixedObject(t, i)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.Commit(b, NewMessage("base", "import", "camelot"), CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	return s, dir
}

// TestBulkAllOrNothing: a bulk commit that is refused, that meets a bad
// object, or that is dropped leaves the repository byte-identical and no
// temporary file behind.
func TestBulkAllOrNothing(t *testing.T) {
	const n = 4000 // several sorted runs and pack chunks
	tests := []struct {
		name string
		run  func(s *Store, b *Bulk, old Hash) error
		want func(error) bool
	}{
		{"stale-refused", func(s *Store, b *Bulk, old Hash) error {
			_, err := b.Commit(NewMessage("bulk", "import", "camelot"), CommitOptions{Parent: old, Refuse: true})
			return err
		}, func(err error) bool { var se *StaleError; return errors.As(err, &se) }},
		{"bad-message", func(s *Store, b *Bulk, _ Hash) error {
			_, err := b.Commit(NewMessage("", "import", "camelot"), CommitOptions{})
			return err
		}, func(err error) bool { var me *MessageError; return errors.As(err, &me) }},
		{"unknown-branch", func(s *Store, b *Bulk, _ Hash) error {
			_, err := b.Commit(NewMessage("bulk", "import", "camelot"), CommitOptions{Branch: "nosuch"})
			return err
		}, func(err error) bool { return errors.Is(err, ErrBranchNotFound) }},
		{"bad-object-then-closed", func(s *Store, b *Bulk, _ Hash) error {
			_, err := b.Put(&objects.Fact{Entity: "-bad", Key: "k", Value: "v", Provenance: objects.Proposed("s")})
			b.Close()
			return err
		}, func(err error) bool { return err != nil }},
		{"spent", func(s *Store, b *Bulk, _ Hash) error {
			b.Close()
			_, err := b.Commit(NewMessage("bulk", "import", "camelot"), CommitOptions{})
			return err
		}, func(err error) bool { return errors.Is(err, ErrBatchSpent) }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			old := fileRunRecords
			fileRunRecords = 300
			defer func() { fileRunRecords = old }()
			s, dir := newStore(t)
			first := commitFacts(t, s, "camelot", 0, 1)
			commitFacts(t, s, "camelot", 1, 2)
			s.WaitBackground()
			before := dirState(t, dir)
			b, err := s.NewBulk("camelot")
			if err != nil {
				t.Fatal(err)
			}
			for i := 2; i < n; i++ {
				if _, err := b.Put(mixedObject(t, i)); err != nil {
					t.Fatal(err)
				}
			}
			if err := tc.run(s, b, first.Commit); !tc.want(err) {
				t.Fatalf("unexpected result: %v", err)
			}
			s.WaitBackground()
			sameState(t, before, dirState(t, dir))
			if ts := spooled(t, dir); len(ts) != 0 {
				t.Fatalf("temporary files left: %v", ts)
			}
		})
	}
}

// TestBulkPutAllStopsAtBadObject: PutAll puts the objects before the
// first it refuses, returns that object's error, and puts none after it,
// wherever it falls among the batches it encodes together.
func TestBulkPutAllStopsAtBadObject(t *testing.T) {
	bad := &objects.Fact{Entity: "-bad", Key: "k", Value: "v", Provenance: objects.Proposed("s")}
	for _, at := range []int{0, 1, putAllBatch - 1, putAllBatch, putAllBatch + 5, 2*putAllBatch + 100} {
		s, _ := newStore(t)
		b, err := s.NewBulk("camelot")
		if err != nil {
			t.Fatal(err)
		}
		var objs []objects.Object
		for i := range 2*putAllBatch + 300 {
			if i == at || i == at+50 {
				objs = append(objs, bad)
				continue
			}
			objs = append(objs, mixedObject(t, i))
		}
		_, want := b.Put(bad)
		if err := b.PutAll(objs); err == nil || err.Error() != want.Error() {
			t.Fatalf("bad object at %d: PutAll returned %v, want %v", at, err, want)
		}
		if b.Len() != at {
			t.Fatalf("bad object at %d: %d objects put, want the %d before it", at, b.Len(), at)
		}
		b.Close()
	}
}

func TestBulkRefusesBadScope(t *testing.T) {
	s, _ := newStore(t)
	for _, scope := range []string{"", "a/b", ".."} {
		if _, err := s.NewBulk(scope); err == nil || !strings.Contains(err.Error(), "scope") {
			t.Fatalf("NewBulk(%q): %v, want a scope error", scope, err)
		}
	}
}
