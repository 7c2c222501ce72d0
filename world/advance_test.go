// The world of a commit advanced from its parent's equals a fresh compile
// of the commit, over random commit chains with merges of branches.

package world

import (
	"bytes"
	"cmp"
	"errors"
	"flag"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/deloreis/deloreis/datalog"
	"github.com/deloreis/deloreis/objects"
)

// More chains explore further: go test ./world -run AdvanceEqualsCompile -args -advance.seeds=2000
var (
	advanceSeeds = flag.Uint64("advance.seeds", 10, "random commit chains TestAdvanceEqualsCompile follows")
	advanceSeed  = flag.Uint64("advance.seed", 0, "the first of them")
	advanceSteps = 24 // commits per chain (fewer under the race detector)
)

// chain is one branch of a random history: its objects by id and the
// world advanced commit by commit.
type chain struct {
	objs map[objects.ID]objects.Object
	w    *World
}

func (c chain) entries() []Entry {
	out := make([]Entry, 0, len(c.objs))
	for id, o := range c.objs {
		out = append(out, Entry{ID: id, Object: o})
	}
	return out
}

// commit advances c by a random commit: new objects (those of randomStep,
// now and then an attack on a claim it holds), and now and then the
// removal of a committed object. It returns what it added and removed.
func (c *chain) commit(t *testing.T, r *rand.Rand, n int) ([]Entry, []objects.ID) {
	t.Helper()
	var add []Entry
	for range 1 + r.IntN(3) {
		add = append(add, entriesOf(t, []objects.Object{randomStep(r, n)})...)
	}
	if r.IntN(4) == 0 {
		ids := slices.Collect(maps.Keys(c.objs))
		slices.SortFunc(ids, func(a, b objects.ID) int { return slices.Compare(a[:], b[:]) })
		ds := []string{"d1", "d2", "d3"}
		a := &objects.Attack{Attacker: ds[r.IntN(3)], Target: ds[r.IntN(3)], Claim: ids[r.IntN(len(ids))]}
		add = append(add, entriesOf(t, []objects.Object{a})...)
	}
	var remove []objects.ID
	if r.IntN(12) == 0 {
		ids := slices.Collect(maps.Keys(c.objs))
		slices.SortFunc(ids, func(a, b objects.ID) int { return slices.Compare(a[:], b[:]) })
		remove = append(remove, ids[r.IntN(len(ids))])
	}
	c.apply(add, remove)
	return add, remove
}

func (c *chain) apply(add []Entry, remove []objects.ID) {
	for _, e := range add {
		c.objs[e.ID] = e.Object
	}
	for _, id := range remove {
		delete(c.objs, id)
	}
}

func (c chain) fork() chain { return chain{objs: maps.Clone(c.objs), w: c.w} }

// advanceDiff says where an advanced world first reads differently from a
// fresh compile ("" when it does not): the identity oracle's findings,
// grades, queries and explanations, every claim's grade, the valuation,
// the listings with their staged flags, and where the staged tails begin.
func advanceDiff(got, want *World) string {
	if d := oracleDiff(got, want); d != "" {
		return d
	}
	for e := range want.ix.entries.all() {
		if g, w := got.ClaimGrade(e.ID), want.ClaimGrade(e.ID); g != w {
			return fmt.Sprintf("claim %s (%s) grades %s, want %s", e.ID, e.Object.Type(), g, w)
		}
	}
	if got.ix.entries.n != want.ix.entries.n {
		return fmt.Sprintf("%d entries, want %d", got.ix.entries.n, want.ix.entries.n)
	}
	if !maps.Equal(got.val, want.val) {
		return fmt.Sprintf("valuation %v, want %v", got.val, want.val)
	}
	if g, w := fmt.Sprint(got.Entities()), fmt.Sprint(want.Entities()); g != w {
		return fmt.Sprintf("entities %s, want %s", g, w)
	}
	if g, w := questionList(got), questionList(want); g != w {
		return fmt.Sprintf("questions %s, want %s", g, w)
	}
	// An advanced world's entries follow in the order they came, a
	// compile's in id order: the atoms are compared as sets.
	byClaim := func(a, b authoredPair) int {
		return cmp.Or(bytes.Compare(a.claim[:], b.claim[:]), strings.Compare(a.pred, b.pred))
	}
	g := slices.SortedFunc(got.binaryAuthored(), byClaim)
	w := slices.SortedFunc(want.binaryAuthored(), byClaim)
	if got.ix.stagedFrom != want.ix.stagedFrom || !slices.Equal(g, w) {
		return fmt.Sprintf("staged tails at %+v, binary atoms %d, want %+v, %d", got.ix.stagedFrom, len(g), want.ix.stagedFrom, len(w))
	}
	return ""
}

// questionList renders a world's questions by value (a question is named
// by its claim id; the same object may be another pointer on each side).
func questionList(w *World) string {
	var b strings.Builder
	for _, q := range w.Questions() {
		fmt.Fprintf(&b, "%s %s staged %v answer %q\n", q.Question.Ident, q.Claim, q.Staged, q.Answer)
	}
	return b.String()
}

func TestAdvanceEqualsCompile(t *testing.T) {
	startAdv, startCompiles, startSettles, startRestores := advances.Load(), advanceCompiles.Load(), settles.Load(), restores.Load()
	merges := 0
	defer func() {
		if n := restores.Load() - startRestores; n < int64(*advanceSeeds)*int64(advanceSteps)/2 {
			t.Errorf("only %d worlds restored from a snapshot", n)
		}
		if n := settles.Load() - startSettles; n < int64(*advanceSeeds)/2 {
			t.Errorf("only %d staged layers settled", n)
		}
		if merges < int(*advanceSeeds)/2 {
			t.Errorf("only %d merges in %d chains", merges, *advanceSeeds)
		}
		adv, comp := advances.Load()-startAdv, advanceCompiles.Load()-startCompiles
		t.Logf("advanced %d commits incrementally, compiled %d; %d merges; %d worlds restored from a snapshot", adv, comp, merges, restores.Load()-startRestores)
		// Most commits are atom claims: they must take the incremental path.
		if adv < int64(*advanceSeeds)*int64(advanceSteps)/4 || comp == 0 {
			t.Errorf("only %d commits advanced incrementally (%d compiled): the property test does not exercise both paths", adv, comp)
		}
	}()
	for seed := *advanceSeed; seed < *advanceSeed+*advanceSeeds; seed++ {
		r := rand.New(rand.NewPCG(seed, 13))
		main := chain{objs: map[objects.ID]objects.Object{}}
		main.apply(entriesOf(t, randomWorld(r)), nil)
		var err error
		if main.w, err = Compile(Input{Scope: "camelot", Base: main.entries()}); err != nil {
			t.Fatal(err)
		}
		var branches []chain
		for step := 0; step < advanceSteps; step++ {
			label := fmt.Sprintf("seed %d step %d", seed, step)
			switch k := r.IntN(8); {
			case k == 0:
				branches = append(branches, main.fork()) // a branch off the head
			case k == 1 && len(branches) > 0:
				// A commit on a branch, followed there.
				b := &branches[r.IntN(len(branches))]
				add, remove := b.commit(t, r, step)
				b.w = followed(t, label+" (branch)", b.w, add, remove, b.entries())
			case k == 2 && len(branches) > 0:
				// A merge: the branch's objects the head lacks come in.
				i := r.IntN(len(branches))
				var add []Entry
				for _, e := range branches[i].entries() {
					if _, ok := main.objs[e.ID]; !ok {
						add = append(add, e)
					}
				}
				main.apply(add, nil)
				main.w = followed(t, label+" (merge)", main.w, add, nil, main.entries())
				branches = slices.Delete(branches, i, i+1)
				merges++
			default:
				add, remove := main.commit(t, r, step)
				main.w = followed(t, label, main.w, add, remove, main.entries())
			}
			if t.Failed() {
				return
			}
		}
	}
}

// followed advances w by a commit and holds the result to a fresh compile
// of the commit's objects, then stages one more object over both: the
// advanced world must stay a good base to stage over.
func followed(t *testing.T, label string, w *World, add []Entry, remove []objects.ID, all []Entry) *World {
	t.Helper()
	before := dump(w)
	got := advanceOnce(t, w, add, remove, len(all))
	if dump(w) != before {
		t.Fatalf("%s: advancing changed the parent's world", label)
	}
	want := mustCompile(t, Input{Scope: "camelot", Base: all})
	if d := advanceDiff(got, want); d != "" {
		t.Fatalf("%s: the advanced world differs from a fresh compile: %s", label, d)
	}
	// A snapshot of the compile, or of the advanced world (a file is
	// written for whichever a process holds), restores to the compile.
	src := want
	if len(all)%2 == 1 {
		src = got
	}
	if restored, ok := restoredOf(t, src, Input{Scope: "camelot", Base: all}); ok {
		if d := advanceDiff(restored, want); d != "" || dump(restored) != dump(want) {
			t.Fatalf("%s: the world restored from its snapshot differs from the compile: %s", label, d)
		}
		if len(all)%2 == 0 {
			got = restored // the chain goes on from it: it must advance as well
		}
	}
	extra := randomStep(rand.New(rand.NewPCG(uint64(len(all)), 5)), len(all))
	sg, err := got.Stage([]objects.Object{extra}, nil)
	if err != nil {
		t.Fatal(err)
	}
	sw, err := want.Stage([]objects.Object{extra}, nil)
	if err != nil {
		t.Fatal(err)
	}
	// The full oracle ran above; these read findings and grades only.
	if g, w := dump(sg), dump(sw); g != w || sg.ix.stagedFrom != sw.ix.stagedFrom {
		t.Fatalf("%s: staging over the advanced world differs:\n%s", label, firstDiff(g, w))
	}
	id, _ := extra.ID()
	if dg, err := sg.Stage(nil, []objects.ID{id}); err != nil || dump(dg) != dump(want) {
		t.Fatalf("%s: discarding from the advanced world: %v", label, err)
	}
	return got
}

// advanceOnce is mostly w.Advance; now and then (no removal) the commit
// comes as a staged layer that was then committed (a standing op files
// such a world for its commit): staged over w, then settled, or advanced
// by nothing.
func advanceOnce(t *testing.T, w *World, add []Entry, remove []objects.ID, n int) *World {
	t.Helper()
	if n%3 != 0 || len(remove) > 0 {
		got, _, err := w.Advance(add, remove)
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	objs := make([]objects.Object, len(add))
	for i, e := range add {
		objs[i] = e.Object
	}
	sw, err := w.Stage(objs, nil)
	if err != nil {
		t.Fatal(err)
	}
	if n%2 == 0 {
		if got, ok := sw.Settle(); ok {
			settles.Add(1)
			return got
		}
	}
	got, _, err := sw.Advance(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

var settles atomic.Int64 // staged layers settled by the property test

// TestSettle: a world with staged objects settles into the world that
// compiles them as committed ones; one that left a staged rule out does
// not settle (which rule a compile leaves out depends on what is staged),
// and Advance compiles it instead.
func TestSettle(t *testing.T) {
	objs := randomWorld(rand.New(rand.NewPCG(3, 4)))
	w := compile(t, objs...)
	sw, ok := w.Settle()
	if !ok {
		t.Fatal("a world with no rule left out did not settle")
	}
	if d := advanceDiff(sw, mustCompile(t, Input{Scope: "camelot", Base: entriesOf(t, objs)})); d != "" {
		t.Fatal(d)
	}
	if sw.Entities()[0].Staged || !w.Entities()[0].Staged {
		t.Fatal("settling did not commit the entities, or changed the world it settled")
	}
	checkKindRefs(t, w.ix, true)
	checkKindRefs(t, sw.ix, false)
	X := objects.Var("X")
	rule := func(neg bool) *objects.Rule {
		return &objects.Rule{Name: "dup", Head: objects.Atom{Pred: "h", Args: []objects.Term{X}},
			Body: []objects.Literal{{Atom: objects.Atom{Pred: "q", Args: []objects.Term{X, X}}}, {Atom: objects.Atom{Pred: "p", Args: []objects.Term{X, X}}, Negated: neg}}, Provenance: prop}
	}
	dup := compile(t, rule(false), rule(true))
	if _, ok := dup.Settle(); ok {
		t.Fatal("a world that left a staged duplicate rule out settled")
	}
	got, incremental, err := dup.Advance(nil, nil)
	if err != nil || incremental {
		t.Fatalf("advance of an unsettled world: incremental %v, %v", incremental, err)
	}
	if d := advanceDiff(got, mustCompile(t, Input{Scope: "camelot", Base: entriesOf(t, []objects.Object{rule(false), rule(true)})})); d != "" {
		t.Fatal(d)
	}
}

var restores atomic.Int64 // worlds the property test restored from a snapshot

// restoredOf compiles in again from w's snapshot (w must be in's world,
// compiled or advanced), reporting false when w's state is one snapshots
// do not hold.
func restoredOf(t *testing.T, w *World, in Input) (*World, bool) {
	t.Helper()
	var buf bytes.Buffer
	if err := w.WriteCompiled(&buf); err != nil {
		if !errors.Is(err, datalog.ErrNoSnapshot) {
			t.Fatal(err)
		}
		return nil, false
	}
	c, err := LoadCompiled(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	in.Compiled = c
	got := mustCompile(t, in)
	if !got.Restored() {
		t.Fatal("a world compiled from its own snapshot evaluated instead")
	}
	restores.Add(1)
	return got, true
}

func mustCompile(t *testing.T, in Input) *World {
	t.Helper()
	w, err := Compile(in)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// TestAdvanceIsIncremental: a commit of one fact over a world is derived,
// shares the parent's index, and re-evaluates strata no compile would skip.
func TestAdvanceIsIncremental(t *testing.T) {
	base := entriesOf(t, randomWorld(rand.New(rand.NewPCG(1, 2))))
	w, err := Compile(Input{Scope: "camelot", Base: base})
	if err != nil {
		t.Fatal(err)
	}
	add := entriesOf(t, []objects.Object{fact("a", "p", "b", prop)})
	nw, incremental, err := w.Advance(add, nil)
	if err != nil || !incremental {
		t.Fatalf("advance: incremental %v, %v", incremental, err)
	}
	if !sharesIDIndex(w.ix.byID, nw.ix.byID) || nw.ix.byID.n != w.ix.byID.n+1 {
		t.Fatal("the advanced world does not share its parent's index")
	}
	if st := nw.EvalStats(); st.Strata > 0 && st.Reused+st.Maintained == 0 {
		t.Fatalf("the advanced world evaluated every stratum again: %+v", st)
	}
	// A removal of a committed object compiles.
	if _, incremental, err := nw.Advance(nil, []objects.ID{add[0].ID}); err != nil || incremental {
		t.Fatalf("a removal advanced incrementally (%v, %v)", incremental, err)
	}
}

// checkKindRefs checks that every entry the big kinds' vectors point to is
// the one the id index holds, with the staged flag want.
func checkKindRefs(t *testing.T, ix *index, want bool) {
	t.Helper()
	n := 0
	for _, v := range []kindVec{ix.facts, ix.relations, ix.befores, ix.states, ix.sameAs, ix.lang} {
		for p := range v.all() {
			q, ok := ix.byID.get(p.ID)
			if !ok || *p != *q || p.Staged != want {
				t.Fatalf("kind vector entry %s: staged %v, index %v (found %v), want staged %v", p.ID.String()[:12], p.Staged, q, ok, want)
			}
			n++
		}
	}
	if n == 0 {
		t.Fatal("no entries in the big kinds")
	}
}
