// This file writes snapshots: a program and the model it last evaluated,
// as bytes that LoadSnapshot (snapshot_load.go) turns back into a program
// and model that answer, and go on evaluating incrementally, exactly as
// the originals would, without lowering a fact or running a rule
// (DL-0384). Interned names, literals and their negated atoms' table,
// every relation's rows, hashes, supports and indexes are written as they
// stand; what is cheap to make again (the interners' hash tables, the
// variables' map, the stratification) is made again on load.
//
// A snapshot holds the common state only. Snapshot refuses
// (ErrNoSnapshot) a model with truncated atoms (their grounding regions),
// literals of another model's atoms, or supports it cannot name by
// variables alone; the caller then evaluates as before.

package datalog

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
)

// ErrNoSnapshot says a program's state is one a snapshot does not hold.
var ErrNoSnapshot = errors.New("datalog: no snapshot of this state")

// snapMagic begins every snapshot; its last byte is the format's version
// (2: columns aligned, snapshot_codec.go; 3: literals and their hash in
// columns, snapshot_lits.go; 4: stored supports in columns, pbase.go), so
// that a snapshot of another format is refused whole.
const snapMagic = "DLSNAP\x00\x04"

// Snapshot writes p and m, the model p last evaluated, to w. It refuses
// with ErrNoSnapshot when m is not p's last model, p changed since, or
// the state is one a snapshot does not hold (see the file comment); it
// writes nothing then.
func (p *Program) Snapshot(w io.Writer, m *Model) error {
	if err := p.Snapshotable(m); err != nil {
		return err
	}
	s := &snapWriter{w: w, buf: make([]byte, 0, 2*snapFlush)}
	s.buf = append(s.buf, snapMagic...)
	s.n(p.bounds.MaxMonomials)
	s.n(p.bounds.MaxMonomialSize)
	s.n(p.bounds.MaxStratumMonomials)
	// The interners and literals are shared with p's clones, which may
	// have added to them since: the predicates and literals are written
	// as m knew them (none it holds is newer), the constants all.
	writeNames(s, p.consts.snapshot())
	writeNames(s, m.predNames)
	s.n(p.npred())
	for _, a := range p.arity.all() {
		s.n(a + 1)
	}
	writeLits(s, p.lits, m.info.len())
	s.n(len(p.rules))
	for _, r := range p.rules {
		writeRule(s, r.rule)
	}
	for pred := range p.facts.len() {
		f := p.facts.at(pred)
		s.flag(f != nil)
		if f != nil {
			writeFactSet(s, f)
		}
	}
	s.n(m.strata.len())
	for _, i := range m.strat.order(m.predNames) { // the order a load's fresh stratification gives
		st := m.strata.at(i)
		s.n(len(st.preds))
		for _, pred := range st.preds {
			s.n(int(pred))
		}
		s.flag(st.poly)
		s.n(int(st.mode))
		s.n(st.held)
		reused, kept := m.stratFlags(i)
		s.flag(reused)
		s.flag(kept)
	}
	s.n(m.rels.len())
	for pred, rel := range m.rels.all() {
		switch f := factSetOf(p, pred); {
		case rel == nil:
			s.n(0)
		case f != nil && sharesTable(rel, f.tab):
			s.n(2)
			writeRelationOver(s, rel, f)
		default:
			s.n(1)
			writeRelation(s, rel)
		}
	}
	s.flush()
	return s.err
}

func factSetOf(p *Program, pred int) *factSet {
	return p.fact(uint32(pred))
}

// Snapshotable says whether Snapshot can write p with m: nil, or
// ErrNoSnapshot.
func (p *Program) Snapshotable(m *Model) error {
	if m == nil || p.last != m || m.consts != p.consts || m.preds != p.preds || m.lits != p.lits || m.bounds != p.bounds {
		return ErrNoSnapshot
	}
	if m.rels.len() != p.npred() || m.predNames.len() < p.npred() {
		return ErrNoSnapshot // a predicate came after the evaluation
	}
	for i := range m.strata.len() {
		st := m.strata.at(i)
		if st.region != nil {
			return ErrNoSnapshot
		}
		for k, pred := range st.preds {
			if st.facts[k] != p.fact(pred) {
				return ErrNoSnapshot // a fact changed after the evaluation
			}
		}
	}
	for _, r := range p.rules {
		if !varsOnly(r.rule.Support) {
			return ErrNoSnapshot
		}
	}
	for _, rel := range m.rels.all() {
		if rel != nil && rel.ntaint > 0 {
			return ErrNoSnapshot
		}
	}
	lits := p.lits.snapshot()
	nargs := 0
	for id := range uint32(m.info.len()) {
		li := lits.at(id)
		nargs += len(li.args)
		if li.kind == litForeign || li.pred > litXMask || nargs > 1<<32-1 {
			return ErrNoSnapshot // past what the literals' columns hold
		}
	}
	for pred := range p.facts.len() {
		f := p.facts.at(pred)
		if f == nil {
			continue
		}
		if f.ntrunc > 0 {
			return ErrNoSnapshot
		}
		for i := range f.more.rows() {
			if e := f.more.get(uint32(i)); e != nil {
				for _, q := range e.given() {
					if !varsOnly(q) {
						return ErrNoSnapshot
					}
				}
			}
		}
	}
	return nil
}

// varsOnly reports whether q is a plain sum of products of variables.
func varsOnly(q Poly) bool {
	if q.d == nil {
		return true
	}
	if q.d.trunc || q.d.exact != nil {
		return false
	}
	for _, m := range q.d.mons {
		for _, l := range m {
			if l.neg != nil {
				return false
			}
		}
	}
	return true
}

func writeNames(s *snapWriter, names nameList) {
	s.n(names.len())
	for id := range names.len() {
		s.str(names.at(uint32(id)))
	}
}

func writePoly(s *snapWriter, q Poly) {
	mons := q.mons()
	s.n(len(mons))
	for _, m := range mons {
		s.n(len(m))
		for _, l := range m {
			s.str(l.name)
		}
	}
}

func writeAtom(s *snapWriter, a Atom) {
	s.str(a.Pred)
	s.n(len(a.Args))
	for _, t := range a.Args {
		writeTerm(s, t)
	}
}

func writeTerm(s *snapWriter, t Term) {
	s.flag(t.Var != "")
	if t.Var != "" {
		s.str(t.Var)
	} else {
		s.str(t.Const)
	}
}

func writeRule(s *snapWriter, r Rule) {
	s.str(r.Name)
	writeAtom(s, r.Head)
	s.n(len(r.Body))
	for _, l := range r.Body {
		if l.IsComparison() {
			// 2 in place of the negation flag: a comparison, its operator
			// and terms (the rules of earlier snapshots have none).
			s.uv(2)
			s.uv(uint64(l.Cmp.Op))
			writeTerm(s, l.Cmp.X)
			writeTerm(s, l.Cmp.Y)
			continue
		}
		s.flag(l.Negated)
		writeAtom(s, l.Atom)
	}
	writePoly(s, r.Support)
}

func writeFactSet(s *snapWriter, f *factSet) {
	writeRelation(s, f.tab)
	writeU32s(s, &f.ents)
	s.n(f.more.rows())
	for i := range f.more.rows() {
		e := f.more.get(uint32(i))
		s.flag(e != nil)
		if e != nil {
			given := e.given()
			s.flag(e.pubs != nil)
			if e.pubs != nil {
				s.n(len(given))
				for _, q := range given {
					writePoly(s, q)
				}
			}
			writePoly(s, e.pub)
		}
	}
	s.n(f.nonOne)
}

// writeU32s writes a stride-1 vector of uint32.
func writeU32s(s *snapWriter, v *pvec[uint32]) {
	n := v.rows()
	s.n(n)
	s.align(4)
	if v.isFlat {
		for _, seg := range v.segs {
			s.u32s(seg)
		}
		return
	}
	for i := range n {
		s.u32(v.get(uint32(i)))
	}
}

// writeRelation writes a relation whole.
func writeRelation(s *snapWriter, r *relation) {
	s.n(int(r.pred))
	s.n(r.arity)
	s.n(r.n)
	s.n(r.live)
	s.n(r.dead)
	s.align(4)
	if r.data.isFlat {
		for _, seg := range r.data.segs {
			s.u32s(seg)
		}
	} else {
		for i := range r.n {
			s.u32s(r.row(uint32(i)))
		}
	}
	s.n(r.nf)
	for i := range r.nf {
		s.n(int(r.flags.get(uint32(i))))
	}
	writeHash(s, &r.set)
	writeProvenance(s, r, false)
	writeIndexes(s, r)
}

// writeRelationOver writes a model's relation that shares its rows, flags
// and hash with the fact table of f: what it has of its own.
func writeRelationOver(s *snapWriter, r *relation, f *factSet) {
	sharesEnts := r.hasPolys && sameU32s(&r.prefs, &f.ents)
	s.flag(sharesEnts)
	writeProvenance(s, r, sharesEnts)
	writeIndexes(s, r)
}

func writeProvenance(s *snapWriter, r *relation, sharedPrefs bool) {
	s.flag(r.hasPolys)
	if !r.hasPolys {
		return
	}
	if !sharedPrefs {
		writeU32s(s, &r.prefs)
	}
	writePolyColumns(s, r)
}

func writeIndexes(s *snapWriter, r *relation) {
	r.mu.Lock()
	defer r.mu.Unlock()
	keys := slices.Sorted(maps.Keys(r.idx)) // the same state, the same bytes
	s.n(len(keys))
	for _, k := range keys {
		ix := r.idx[k]
		s.n(len(ix.cols))
		for _, c := range ix.cols {
			s.n(c)
		}
		writeHash(s, &ix.heads)
		writeU32s(s, &ix.next)
	}
}

// writeHash writes a hash's entries: its flat table as it lies, or the
// entries of its pages, to be placed anew.
func writeHash(s *snapWriter, h *phash) {
	s.n(h.n)
	s.flag(h.segs != nil)
	if h.segs != nil {
		s.n(int(h.gd))
		s.n(int(h.fk))
		s.n(len(h.cnt))
		for _, c := range h.cnt {
			s.n(int(c))
		}
		for _, seg := range h.segs {
			s.n(len(seg))
			s.align(8)
			s.u64s(seg)
		}
		return
	}
	for i := 0; i < h.dir.n; {
		pg := *h.dir.at(i)
		for _, x := range pg.s {
			if x != 0 {
				s.u64(x)
			}
		}
		i += 1 << (h.gd - pg.ld) // the page's span: every slot of it names it
	}
}

// sharesTable reports whether a model's relation holds its fact table's
// rows, flags and hash as they stand (factRel).
func sharesTable(r, tab *relation) bool {
	return r.n == tab.n && r.nf == tab.nf && r.live == tab.live && r.dead == tab.dead &&
		sameU32s(&r.data, &tab.data) && sameFlat(r.flags.segs, tab.flags.segs, r.flags.isFlat && tab.flags.isFlat) &&
		r.set.segs != nil && tab.set.segs != nil && sameFlat(r.set.segs, tab.set.segs, true) && r.set.n == tab.set.n
}

func sameU32s(a, b *pvec[uint32]) bool {
	return a.isFlat && b.isFlat && a.rows() == b.rows() && sameFlat(a.segs, b.segs, true)
}

// sameFlat reports whether two flat forms lie in the same arrays.
func sameFlat[T any](a, b [][]T, flat bool) bool {
	if !flat || len(a) != len(b) {
		return false
	}
	for i := range a {
		if len(a[i]) != len(b[i]) || cap(a[i]) == 0 || cap(b[i]) == 0 || &a[i][:1][0] != &b[i][:1][0] {
			return false
		}
	}
	return true
}

// SameShape reports whether p and q have the same bounds, the same rules
// (in any order: a program advanced commit by commit added them in
// another than a lowering of the whole) and the same arity for every
// predicate: whether a lowering that built p (a shape program, say) would
// have built q's program, facts aside.
func (p *Program) SameShape(q *Program) bool {
	if p.bounds != q.bounds || len(p.rules) != len(q.rules) {
		return false
	}
	pr, qr := sortedRules(p), sortedRules(q)
	for i := range pr {
		if !sameRule(pr[i], qr[i]) {
			return false
		}
	}
	arities := func(x *Program) map[string]int {
		names := x.preds.snapshot()
		out := map[string]int{}
		for id, a := range x.arity.all() {
			if a >= 0 {
				out[names.at(uint32(id))] = a
			}
		}
		return out
	}
	return maps.Equal(arities(p), arities(q))
}

// sortedRules returns p's rules ordered by name, then rendering.
func sortedRules(p *Program) []Rule {
	rs := p.Rules()
	key := func(r Rule) string { return fmt.Sprint(r.Name, "\x00", r.Head, r.Body, "\x00", r.Support) }
	slices.SortFunc(rs, func(a, b Rule) int { return strings.Compare(key(a), key(b)) })
	return rs
}

func sameRule(a, b Rule) bool {
	sameAtom := func(x, y Atom) bool { return x.Pred == y.Pred && slices.Equal(x.Args, y.Args) }
	return a.Name == b.Name && sameAtom(a.Head, b.Head) && a.Support.Equal(b.Support) &&
		slices.EqualFunc(a.Body, b.Body, func(x, y Literal) bool {
			return x.Negated == y.Negated && sameAtom(x.Atom, y.Atom) && x.Cmp == y.Cmp
		})
}
