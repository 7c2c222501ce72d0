// Advancing a base world to a later commit: the world of a commit derived
// from its parent's world and the objects the commit added (or removed),
// with the staging machinery, instead of compiled from scratch (DL-0280).
// Committed entries go through the same incremental path a staged add
// takes; the result is then settled: its new entries, atoms and findings
// are committed ones, so the staged tails begin at the end, exactly as in
// a fresh compile. Whatever the staging path would recompile for (a rule
// of a name already used, a rule left out, an arity conflict, a removal
// of a committed object), Advance compiles the new commit from scratch.
// Either way the result equals Compile of the new commit's objects; a
// property test holds it to that.

package world

import (
	"bytes"
	"cmp"
	"context"
	"encoding/binary"
	"slices"
	"sync/atomic"

	"github.com/deloreis/deloreis/objects"
)

// Advance returns the base world of the same scope with the committed
// objects add added and those named in remove removed: equal to Compile
// of w's objects so changed, with nothing staged. Objects staged in w
// count as committed (a caller that committed a staged layer advances
// its world; see Settle). incremental reports whether it was derived
// through the engine's incremental path (false: compiled from scratch).
// w is unchanged.
func (w *World) Advance(add []Entry, remove []objects.ID) (nw *World, incremental bool, err error) {
	adds := committedEntries(add)
	if w.hasStaged() {
		sw, ok := w.Settle()
		if !ok {
			nw, err = w.recompileBase(adds, remove)
			return nw, false, err
		}
		w = sw
	}
	removing := false
	for _, id := range remove {
		if w.ix.byID.has(id) {
			removing = true // taking back a committed object: the discard path is for staged ones
			break
		}
	}
	if removing || w.legacy || w.hasArityConflicts() {
		nw, err = w.recompileBase(adds, remove)
		return nw, false, err
	}
	if len(adds) == 0 {
		return w, true, nil
	}
	nw, ok, err := w.addEntries(context.Background(), adds)
	if err != nil {
		return nil, false, err
	}
	if ok && nw.prog.Bounds().MaxStratumMonomials != stratumBudget(nw.ix.entries.n) {
		ok = false // a fresh compile would evaluate under another budget (DL-0366)
	}
	if !ok {
		nw, err = w.recompileBase(adds, nil)
		return nw, false, err
	}
	nw.settle()
	advances.Add(1)
	return nw, true, nil
}

// committedEntries copies entries as committed ones, in id order and each
// id once, as a compile would file them.
func committedEntries(add []Entry) []Entry {
	out := make([]Entry, len(add))
	for i, e := range add {
		out[i] = Entry{ID: e.ID, Object: e.Object}
	}
	slices.SortFunc(out, byID)
	return slices.CompactFunc(out, func(a, b Entry) bool { return a.ID == b.ID })
}

// settle makes everything nw holds committed: the entries it was given
// were, so only the marks where the staged tails begin move to the end.
// nw's index and World are its own (addEntries made both).
func (nw *World) settle() {
	ix := nw.ix
	ix.stagedFrom = marks{
		entries: ix.entries.n, facts: ix.facts.n, relations: ix.relations.n, befores: ix.befores.n,
		states: ix.states.n, sameAs: ix.sameAs.n, lang: ix.lang.n,
	}
	// A compile files the small kinds in id order, and some readers take
	// the last of them (the answer to a question): the new entries, which
	// addEntries appended, are put in their places. The parent's slices
	// are shared, so a slice out of order is sorted in a copy.
	for _, small := range []*[]Entry{&ix.answers, &ix.rules, &ix.functional, &ix.inertial, &ix.predSameAs, &ix.attacks, &ix.standing, &ix.ratify} {
		if !slices.IsSortedFunc(*small, byID) {
			*small = slices.SortedFunc(slices.Values(*small), byID)
		}
	}
}

// byID orders entries by id. Ids are hashes, so their first eight bytes,
// compared as one word, almost always decide.
func byID(a, b Entry) int {
	if x, y := binary.BigEndian.Uint64(a.ID[:8]), binary.BigEndian.Uint64(b.ID[:8]); x != y {
		return cmp.Compare(x, y)
	}
	return bytes.Compare(a.ID[8:], b.ID[8:])
}

// recompileBase compiles w's committed objects with adds added and the
// ids of remove removed, from scratch.
func (w *World) recompileBase(adds []Entry, remove []objects.ID) (*World, error) {
	drop := make(map[objects.ID]bool, len(remove))
	for _, id := range remove {
		drop[id] = true
	}
	base := make([]Entry, 0, w.ix.entries.n+len(adds))
	for e := range w.ix.entries.all() {
		if !drop[e.ID] {
			base = append(base, Entry{ID: e.ID, Object: e.Object})
		}
	}
	for _, e := range adds {
		if !drop[e.ID] {
			base = append(base, e)
		}
	}
	advanceCompiles.Add(1)
	return Compile(Input{Scope: w.scope, Base: base, Supposed: w.supposed, Dialects: w.dialects, legacy: w.legacy})
}

// Counters of Advance's two paths, for the property test.
var (
	advances        atomic.Int64 // derived incrementally
	advanceCompiles atomic.Int64 // compiled from scratch
)

// hasStaged reports whether the world holds staged objects.
func (w *World) hasStaged() bool { return w.ix.stagedFrom.entries != w.ix.entries.n }

// Settle returns the world with its staged objects committed: equal to
// Compile of all its objects as committed ones, at the cost of the
// staged tails (a commit of a workspace's staged layer needs no
// compile). ok is false when staging left a rule out: which rule a
// compile leaves out depends on which are staged (the caller compiles).
func (w *World) Settle() (*World, bool) {
	if !w.hasStaged() {
		return w, true
	}
	if len(w.droppedRules) > 0 {
		return nil, false
	}
	nw := w.share(w.settledIndex())
	nw.inheritClosure(w, nil) // same links, same valuation: w's closure is nw's
	nw.settle()
	return nw, true
}

// settledIndex is a copy of w's index whose staged entries are committed
// ones: the tails are copied with the flag cleared, the prefixes shared.
func (w *World) settledIndex() *index {
	ix := *w.ix
	var moved []*Entry
	commit := func(v entryVec, from int) entryVec {
		tail := make([]Entry, 0, v.n-from)
		for i := from; i < v.n; i++ {
			e := v.at(i)
			e.Staged = false
			tail = append(tail, e)
		}
		return v.filterTail(from, func(Entry) bool { return false }).append(tail...)
	}
	ix.entries = commit(ix.entries, ix.stagedFrom.entries)
	for i := ix.stagedFrom.entries; i < ix.entries.n; i++ {
		moved = append(moved, ix.entries.ptr(i))
	}
	ix.byID = ix.byID.with(moved)
	// The big kinds' staged tails point at the committed copies (in
	// their own order, which is not the entries').
	repoint := func(v kindVec, from int) kindVec {
		tail := make([]*Entry, 0, v.n-from)
		for i := from; i < v.n; i++ {
			e, _ := ix.byID.get(v.at(i).ID)
			tail = append(tail, e)
		}
		return v.truncate(from).append(tail...)
	}
	ix.facts = repoint(ix.facts, ix.stagedFrom.facts)
	ix.relations = repoint(ix.relations, ix.stagedFrom.relations)
	ix.befores = repoint(ix.befores, ix.stagedFrom.befores)
	ix.states = repoint(ix.states, ix.stagedFrom.states)
	ix.sameAs = repoint(ix.sameAs, ix.stagedFrom.sameAs)
	ix.lang = repoint(ix.lang, ix.stagedFrom.lang)
	for _, small := range []*[]Entry{&ix.answers, &ix.rules, &ix.functional, &ix.inertial, &ix.predSameAs, &ix.attacks, &ix.standing, &ix.ratify} {
		if slices.ContainsFunc(*small, func(e Entry) bool { return e.Staged }) {
			c := slices.Clone(*small)
			for i := range c {
				c[i].Staged = false
			}
			*small = c
		}
	}
	return &ix
}
