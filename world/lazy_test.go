package world

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"iter"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/deloreis/deloreis/datalog"
	"github.com/deloreis/deloreis/objects"
)

// memBase is an EntryBase over canonical bytes: every Object call decodes
// afresh, as a world file's base does, and is counted.
type memBase struct {
	ids     []objects.ID
	canon   [][]byte
	types   []objects.Type
	names   []string
	decoded atomic.Int64
	// keyedAlso, when not -1, is an entry Keyed lists whatever it is.
	keyedAlso int
}

func newMemBase(t testing.TB, es []Entry) *memBase {
	es = slices.Clone(es)
	slices.SortFunc(es, byID)
	es = slices.CompactFunc(es, func(a, b Entry) bool { return a.ID == b.ID })
	b := &memBase{keyedAlso: -1}
	for _, e := range es {
		c, err := e.Object.AppendCanonical(nil)
		if err != nil {
			t.Fatal(err)
		}
		name := ""
		switch o := e.Object.(type) {
		case *objects.Fact:
			name = o.Key
		case *objects.Entity:
			name = o.Ident
		}
		b.ids, b.canon = append(b.ids, e.ID), append(b.canon, c)
		b.types, b.names = append(b.types, e.Object.Type()), append(b.names, name)
	}
	return b
}

func (b *memBase) Len() int                { return len(b.ids) }
func (b *memBase) ID(i int) objects.ID     { return b.ids[i] }
func (b *memBase) Type(i int) objects.Type { return b.types[i] }
func (b *memBase) Name(i int) string       { return b.names[i] }
func (b *memBase) Keyed(key string) []int {
	var out []int
	for i, ty := range b.types {
		if ty == objects.TypeFact && b.names[i] == key || b.keyedAlso == i {
			out = append(out, i)
		}
	}
	return out
}

func (b *memBase) OfType(t objects.Type) []uint32 {
	var out []uint32
	for i, ty := range b.types {
		if ty == t {
			out = append(out, uint32(i))
		}
	}
	return out
}

func (b *memBase) Entities() EntityIdents {
	var s memIdents
	for i, ty := range b.types {
		if ty == objects.TypeEntity {
			s = append(s, memIdent{strings.Clone(b.names[i]), i})
		}
	}
	slices.SortFunc(s, func(x, y memIdent) int { return cmp.Or(strings.Compare(x.name, y.name), x.pos-y.pos) })
	return s
}

// memIdents is a base's entities sorted by ident, then position.
type memIdents []memIdent

type memIdent struct {
	name string
	pos  int
}

func (s memIdents) Len() int {
	n := 0
	for k := range s {
		if k == 0 || s[k].name != s[k-1].name {
			n++
		}
	}
	return n
}

func (s memIdents) Find(ident string) (int, bool) {
	k, ok := slices.BinarySearchFunc(s, ident, func(x memIdent, id string) int { return strings.Compare(x.name, id) })
	if !ok {
		return 0, false
	}
	return s[k].pos, true
}

func (s memIdents) All() iter.Seq2[string, int] {
	return func(yield func(string, int) bool) {
		for k := range s {
			if (k == 0 || s[k].name != s[k-1].name) && !yield(s[k].name, s[k].pos) {
				return
			}
		}
	}
}

func (b *memBase) Object(i int) objects.Object {
	b.decoded.Add(1)
	o, err := objects.Decode(b.canon[i])
	if err != nil {
		panic(err)
	}
	return o
}

// restoreLazily compiles base eagerly, snapshots it, and restores it from
// the snapshot over a lazy base of the same entries; ok is false when the
// world is one a snapshot does not hold.
func restoreLazily(t *testing.T, base []Entry) (eager, lazy *World, mb *memBase, ok bool) {
	t.Helper()
	eager = mustCompile(t, Input{Scope: "camelot", Base: base})
	var buf bytes.Buffer
	if err := eager.WriteCompiled(&buf); err != nil {
		return eager, nil, nil, false
	}
	c, err := LoadCompiled(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	mb = newMemBase(t, base)
	lazy = mustCompile(t, Input{Scope: "camelot", Lazy: mb, Compiled: c})
	if !lazy.Restored() {
		t.Fatal("the lazy world did not take its snapshot")
	}
	return eager, lazy, mb, true
}

// lazySeeds random worlds TestLazyEqualsCompile restores (fewer under the
// race detector: see race_test.go).
var lazySeeds uint64 = 30

// TestLazyEqualsCompile: a world restored over a lazily read base reads as
// the compile of the same entries, and stays so through staging, discards,
// settling and advancing, step by step (the same steps as
// TestStageEqualsCompile); so does one compiled over a lazy base without a
// snapshot, which reads every entry.
func TestLazyEqualsCompile(t *testing.T) {
	restored := 0
	for seed := range lazySeeds {
		r := rand.New(rand.NewPCG(seed, 17))
		base := canonicalEntries(t, randomWorld(r))
		w, lw, _, ok := restoreLazily(t, base)
		if !ok {
			continue
		}
		restored++
		if g, x := dump(lw), dump(w); g != x {
			t.Fatalf("seed %d: the lazy world differs:\n--- lazy\n%s\n--- compile\n%s", seed, g, x)
		}
		if g, x := objectIDs(lw), objectIDs(w); !slices.Equal(g, x) {
			t.Fatalf("seed %d: the lazy world holds %d objects, the compile %d", seed, len(g), len(x))
		}
		fresh := mustCompile(t, Input{Scope: "camelot", Lazy: newMemBase(t, base)})
		if fresh.Restored() || dump(fresh) != dump(w) {
			t.Fatalf("seed %d: a lazy base compiled without a snapshot differs (restored %v)", seed, fresh.Restored())
		}
		var staged []objects.Object
		for step := range 30 {
			var add []objects.Object
			var discard []objects.ID
			if len(staged) > 0 && r.IntN(4) == 0 {
				i := r.IntN(len(staged))
				id, _ := staged[i].ID()
				discard = append(discard, id)
				staged = slices.Delete(staged, i, i+1)
			} else {
				o := randomStep(r, step)
				add = append(add, o)
				if !containsID(staged, o) {
					staged = append(staged, o)
				}
			}
			var err error
			if w, err = w.Stage(add, discard); err != nil {
				t.Fatal(err)
			}
			if lw, err = lw.Stage(add, discard); err != nil {
				t.Fatal(err)
			}
			where := fmt.Sprintf("seed %d step %d", seed, step)
			if g, x := dump(lw), dump(w); g != x {
				t.Fatalf("%s: staged over the lazy world:\n--- lazy\n%s\n--- compile\n%s", where, g, x)
			}
			if step%10 == 9 {
				sw, ok1 := w.Settle()
				slw, ok2 := lw.Settle()
				if ok1 != ok2 || ok1 && dump(slw) != dump(sw) {
					t.Fatalf("%s: settled, the lazy world differs (%v, %v)", where, ok1, ok2)
				}
			}
		}
		// A commit over the lazy world: one fact added, advanced.
		add := entriesOf(t, []objects.Object{&objects.Fact{Entity: "arthur", Key: "rank", Value: fmt.Sprint("r", seed), Provenance: objects.Proposed("s")}})
		w0, lw0, _, _ := restoreLazily(t, base)
		aw, _, err := w0.Advance(add, nil)
		if err != nil {
			t.Fatal(err)
		}
		alw, _, err := lw0.Advance(add, nil)
		if err != nil {
			t.Fatal(err)
		}
		if dump(alw) != dump(aw) {
			t.Fatalf("seed %d: advanced, the lazy world differs", seed)
		}
	}
	if restored < int(lazySeeds)*2/3 {
		t.Fatalf("only %d of %d worlds restored", restored, lazySeeds)
	}
}

// canonicalEntries is entriesOf of objs as decoded from their canonical
// bytes, as a store's objects are: the random worlds hold objects a
// canonical form normalizes (a provenance citing a decision twice).
func canonicalEntries(t *testing.T, objs []objects.Object) []Entry {
	t.Helper()
	out := make([]objects.Object, len(objs))
	for i, o := range objs {
		c, err := o.AppendCanonical(nil)
		if err != nil {
			t.Fatal(err)
		}
		if out[i], err = objects.Decode(c); err != nil {
			t.Fatal(err)
		}
	}
	return entriesOf(t, out)
}

func objectIDs(w *World) []objects.ID {
	var out []objects.ID
	for e := range w.Objects() {
		out = append(out, e.ID)
	}
	slices.SortFunc(out, func(a, b objects.ID) int { return bytes.Compare(a[:], b[:]) })
	return out
}

// TestLazyReadsWhatIsTouched: restoring a world of many facts over a lazy
// base decodes only its entities and the leaves of its few other objects;
// staging a fact, querying and reading one claim's support decode a
// handful more, never the facts at large.
func TestLazyReadsWhatIsTouched(t *testing.T) {
	prov := objects.Proposed("s")
	var objs []objects.Object
	const people, factsEach = 200, 50
	for i := range people {
		objs = append(objs, &objects.Entity{Kind: objects.KindPerson, Ident: fmt.Sprint("p", i), Name: fmt.Sprint("P", i), Provenance: prov})
		for k := range factsEach {
			objs = append(objs, &objects.Fact{Entity: fmt.Sprint("p", i), Key: "knows", Value: fmt.Sprint("p", (i+k+1)%people), Provenance: prov})
		}
	}
	objs = append(objs, &objects.Rule{Name: "met", Head: objects.Atom{Pred: "met", Args: []objects.Term{objects.Var("X"), objects.Var("Y")}},
		Body: []objects.Literal{{Atom: objects.Atom{Pred: "knows", Args: []objects.Term{objects.Var("X"), objects.Var("Y")}}}}, Provenance: prov})
	base := entriesOf(t, objs)
	w, lw, mb, ok := restoreLazily(t, base)
	if !ok {
		t.Fatal("no snapshot")
	}
	lz := lw.ix.entries.lz
	leaves := (len(base) + lazyLeafLen - 1) / lazyLeafLen
	// Only the rule's leaf is read.
	if got := mb.decoded.Load(); got > lazyLeafLen {
		t.Fatalf("the restore decoded %d objects of %d (%d entities)", got, len(base), people)
	}
	if got := lz.read.Load(); got > 1 {
		t.Fatalf("the restore read %d leaves of %d", got, leaves)
	}
	fact := &objects.Fact{Entity: "p3", Key: "knows", Value: "p7", Provenance: objects.Proposed("t")}
	sw, err := lw.Stage([]objects.Object{fact}, nil)
	if err != nil {
		t.Fatal(err)
	}
	ew, err := w.Stage([]objects.Object{fact}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if dump(sw) != dump(ew) {
		t.Fatal("the staged lazy world differs from the staged compile")
	}
	q := datalog.Atom{Pred: "met", Args: []datalog.Term{{Const: "p3"}, {Var: "Y"}}}
	if g, x := fmt.Sprint(sw.Query(q)), fmt.Sprint(ew.Query(q)); g != x {
		t.Fatalf("met(p3, Y): %s, the compile %s", g, x)
	}
	id, _ := objs[1].ID()
	if g, x := fmt.Sprint(sw.ClaimAtoms(id)), fmt.Sprint(ew.ClaimAtoms(id)); g != x || len(sw.ClaimAtoms(id)) == 0 {
		t.Fatalf("a committed fact's atoms: %s, the compile's %s", g, x)
	}
	if got := lz.read.Load(); got > 4 {
		t.Fatalf("staging, a query and a lookup read %d leaves of %d", got, leaves)
	}
	// A walk over every object keeps none of what it read.
	before := lz.read.Load()
	n := 0
	for range sw.Objects() {
		n++
	}
	for range sw.ObjectsByID() {
		n++
	}
	if n != 2*(len(base)+1) || lz.read.Load() != before {
		t.Fatalf("%d objects walked; the walks read %d more leaves", n, lz.read.Load()-before)
	}
}

// TestLazyLeavesConcurrent: readers racing for the same leaves get the
// same entries (one decode wins), under -race.
func TestLazyLeavesConcurrent(t *testing.T) {
	var objs []objects.Object
	for i := range 1000 {
		objs = append(objs, &objects.Fact{Entity: "e", Key: "k", Value: fmt.Sprint(i), Provenance: objects.Proposed("s")})
	}
	lz := newLazyEntries(newMemBase(t, entriesOf(t, objs)))
	ptrs := make([][]*Entry, 4)
	var wg sync.WaitGroup
	for g := range ptrs {
		wg.Go(func() {
			for i := range lz.n {
				ptrs[g] = append(ptrs[g], lz.ptr((i*7+g)%lz.n))
			}
		})
	}
	wg.Wait()
	for i := range lz.n {
		p := lz.ptr(i)
		if p.ID != lz.src.ID(i) {
			t.Fatalf("entry %d holds another id", i)
		}
	}
	for g := range ptrs {
		for i, p := range ptrs[g] {
			if p != lz.ptr((i*7+g)%lz.n) {
				t.Fatalf("reader %d: entry %d was decoded twice", g, i)
			}
		}
	}
	if got, want := lz.read.Load(), int64((lz.n+lazyLeafLen-1)/lazyLeafLen); got != want {
		t.Fatalf("%d leaves stored, want %d", got, want)
	}
}

// TestLazyBaseRefused: a base whose list of answers names an entry that
// is not a fact is refused, as is one both lazy and given.
func TestLazyBaseRefused(t *testing.T) {
	prov := objects.Proposed("s")
	base := entriesOf(t, []objects.Object{
		&objects.Entity{Kind: objects.KindPerson, Ident: "a", Name: "A", Provenance: prov},
		&objects.Fact{Entity: "a", Key: answerKey, Value: "v", Provenance: prov},
	})
	mb := newMemBase(t, base)
	if _, err := Compile(Input{Scope: "camelot", Lazy: mb}); err != nil {
		t.Fatal(err)
	}
	for i, ty := range mb.types {
		if ty == objects.TypeEntity {
			mb.keyedAlso = i
		}
	}
	if _, err := Compile(Input{Scope: "camelot", Lazy: mb}); err == nil {
		t.Error("a base listing an entity among the answers was taken")
	}
	mb.keyedAlso = -1
	for _, bad := range []func([]uint32) []uint32{
		func(ps []uint32) []uint32 { return append(ps, ps...) },           // listed twice
		func(ps []uint32) []uint32 { return ps[:len(ps)-1] },              // one left out
		func(ps []uint32) []uint32 { return append(ps, uint32(len(ps))) }, // one more
	} {
		if _, err := Compile(Input{Scope: "camelot", Lazy: &typesAltered{mb, bad}}); err == nil {
			t.Error("a base listing its entries by type wrongly was taken")
		}
	}
	if _, err := Compile(Input{Scope: "camelot", Lazy: newMemBase(t, base), Base: base}); err == nil {
		t.Error("a base both lazy and given was taken")
	}
}

// typesAltered is a base whose list of facts is altered.
type typesAltered struct {
	*memBase
	alter func([]uint32) []uint32
}

func (b *typesAltered) OfType(t objects.Type) []uint32 {
	ps := b.memBase.OfType(t)
	if t == objects.TypeFact {
		ps = b.alter(ps)
	}
	return ps
}

// TestRestoreOnly: under RestoreOnly a snapshot that does not fit its
// input is an error, not an evaluation over the lazily read entries.
func TestRestoreOnly(t *testing.T) {
	base := canonicalEntries(t, randomWorld(rand.New(rand.NewPCG(3, 17))))
	w := mustCompile(t, Input{Scope: "camelot", Base: base})
	compiled := compiledBytes(t, w)
	for _, tamper := range []bool{false, true} {
		c, err := LoadCompiled(compiled)
		if err != nil {
			t.Fatal(err)
		}
		if tamper {
			for pred := range c.lowering.arity {
				c.lowering.arity[pred] += 5
			}
		}
		mb := newMemBase(t, base)
		got, err := Compile(Input{Scope: "camelot", Lazy: mb, Compiled: c, RestoreOnly: true})
		switch {
		case tamper && !errors.Is(err, ErrNotRestored):
			t.Fatalf("a snapshot that does not fit: %v", err)
		case !tamper && (err != nil || !got.Restored()):
			t.Fatalf("a snapshot that fits: %v", err)
		}
	}
}
