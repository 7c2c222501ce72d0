// This file reads snapshots (snapshot.go) back into a program and its
// model. Every count is checked against the bytes left and every id
// against what it names, so that bytes Snapshot did not write make an
// error rather than a state that fails later.

package datalog

import (
	"encoding/binary"

	"github.com/deloreis/deloreis/base/hugemem"
	"slices"
	"weak"
)

// LoadSnapshot returns the program and model a snapshot holds. The model
// is the program's last, so the program's next Eval is incremental from
// it; both are independent of every other program and of data, which the
// caller may change or free once it returns.
func LoadSnapshot(data []byte) (*Program, *Model, error) {
	return loadSnapshot(data, false, nil)
}

// LoadSnapshotAliased is LoadSnapshot for bytes that outlive the program,
// the model and every program and model derived from them (in practice,
// the process): a read-only mapping of a file that is never written in
// place, say. Columns of literals, rows, supports and index chains and
// the slots of hashes are then used in place, not copied, wherever their
// bytes lie aligned in memory (and the machine is little-endian); the
// rest is copied as LoadSnapshot copies it. Every value is checked all the same.
// The caller must never change data, and must not unmap or free it while
// anything loaded from it may be used.
//
// Nothing writes into the columns used in place: a pvec or phash writes
// in place only under the generation that owns its flat form or chunk
// (pvec.set/push, phash.put/regrow), the loaded fact sets and relations
// belong to generations (factGen, the model's) that nothing writes under
// once the load returns (the program moves on to a generation of its own,
// and each evaluation makes a model of a new one), chunks and pages cut
// from the columns keep the loaded generation, and every adopted segment
// has its length as capacity, so an append copies it. The literal table
// files the literals interned after the load, and their negated atoms,
// in records and a hash of its own (lits.go). On a read-only mapping a
// write would fault, never corrupt.
//
// release, when not nil, is handed each stretch of data the load is done
// with, in order, as it goes (a mapping's pages can then leave the
// process's resident set: read again, they are mapped again); the last
// stretch is the caller's to give back.
func LoadSnapshotAliased(data []byte, release func([]byte)) (*Program, *Model, error) {
	return loadSnapshot(data, true, release)
}

func loadSnapshot(data []byte, alias bool, release func([]byte)) (*Program, *Model, error) {
	r := &snapReader{b: data, size: len(data), alias: alias, all: data, release: release}
	if string(r.take(len(snapMagic))) != snapMagic {
		r.fail("not a snapshot")
		return nil, nil, r.err
	}
	p := NewProgram()
	p.bounds = Bounds{MaxMonomials: int(r.small(1 << 40)), MaxMonomialSize: int(r.small(1 << 40)), MaxStratumMonomials: int(r.small(1 << 40))}
	if p.bounds.withDefaults() != p.bounds {
		r.fail("bounds")
	}
	readNames(r, p.consts)
	readNames(r, p.preds)
	npred := r.n(1)
	if r.err == nil && npred > p.preds.n {
		r.fail("%d arities for %d predicates", npred, p.preds.n)
	}
	p.arity, p.facts = ptab[int]{}, ptab[*factSet]{}
	p.facts.grow(npred, nil, p.gen.Load())
	for i := range npred {
		a := int(r.small(1<<16)) - 1
		p.arity.push(a, p.gen.Load())
		if a >= 0 {
			p.uses.push(uint32(i), p.gen.Load())
		}
	}
	readLits(r, p)
	r.giveBack()
	for range r.n(1) {
		if r.err != nil {
			break
		}
		if err := p.AddRule(readRule(r)); err != nil {
			r.fail("rule: %v", err)
		}
	}
	if r.err != nil {
		return nil, nil, r.err
	}
	factGen := versionClock.Add(1)
	for pred := range p.facts.len() {
		if r.flag() {
			p.facts.set(pred, readFactSet(r, p, uint32(pred), factGen), p.gen.Load())
		}
	}
	m, err := readModel(r, p)
	if err != nil {
		return nil, nil, err
	}
	if len(r.b) != 0 {
		r.fail("%d bytes after the model", len(r.b))
		return nil, nil, r.err
	}
	p.last = m
	p.gen.Store(versionClock.Add(1)) // the fact sets are the model's: read-only
	return p, m, nil
}

// readNames interns the names in order; they must be distinct.
func readNames(r *snapReader, in *interner) {
	for i := range r.n(1) {
		s := r.str()
		if r.err != nil {
			return
		}
		if in.intern(s) != uint32(i) {
			r.fail("name %q twice", s)
			return
		}
	}
}

func readPoly(r *snapReader) Poly {
	mons := make([][]string, r.n(1))
	for i := range mons {
		m := make([]string, r.n(1))
		for k := range m {
			m[k] = r.str()
		}
		mons[i] = m
	}
	if len(mons) == 0 {
		return Poly{}
	}
	return NewPoly(mons...)
}

func readAtom(r *snapReader) Atom {
	a := Atom{Pred: r.str()}
	a.Args = make([]Term, r.n(1))
	for i := range a.Args {
		a.Args[i] = readTerm(r)
	}
	return a
}

func readTerm(r *snapReader) Term {
	if r.flag() {
		return Term{Var: r.str()}
	}
	return Term{Const: r.str()}
}

func readRule(r *snapReader) Rule {
	ru := Rule{Name: r.str(), Head: readAtom(r)}
	ru.Body = make([]Literal, r.n(1))
	for i := range ru.Body {
		switch r.small(3) {
		case 2: // a comparison (writeRule)
			op := CmpOp(r.small(uint64(numCmpOps)))
			ru.Body[i].Cmp = Comparison{Op: op, X: readTerm(r), Y: readTerm(r)}
		case 1:
			ru.Body[i].Negated = true
			ru.Body[i].Atom = readAtom(r)
		default:
			ru.Body[i].Atom = readAtom(r)
		}
	}
	ru.Support = readPoly(r)
	return ru
}

func readFactSet(r *snapReader, p *Program, pred uint32, gen uint64) *factSet {
	f := newFactSet(pred, p.arityOf(uint32(pred)), gen, p.lits)
	f.tab = readRelation(r, p, gen)
	if r.err == nil && (f.tab.pred != pred || f.tab.arity != p.arityOf(uint32(pred))) {
		r.fail("fact set of predicate %d holds another", pred)
	}
	f.ents = readU32s(r, newPvec[uint32](1, gen))
	nmore := r.n(1)
	more := make([]*factEntry, nmore)
	for i := range more {
		if !r.flag() {
			continue
		}
		e := &factEntry{}
		if r.flag() {
			pubs := make([]Poly, r.n(1))
			for k := range pubs {
				pubs[k] = readPoly(r)
			}
			e.pubs = &pubs
		}
		e.pub = readPoly(r)
		if r.err != nil {
			return f
		}
		e.sup = p.internPoly(e.pub)
		more[i] = e
	}
	for i, e := range more {
		f.more.push1(uint32(i), e, gen)
	}
	f.nonOne = r.num()
	if r.err != nil {
		return f
	}
	if f.ents.rows() != f.tab.n {
		r.fail("%d supports for %d facts", f.ents.rows(), f.tab.n)
		return f
	}
	for i := range f.tab.n {
		row := uint32(i)
		h := f.ents.get(row)
		switch {
		case !checkHandle(h, nmore, uint32(p.lits.n)):
			r.fail("support handle of fact %d", i)
		case !f.tab.alive(row):
		case h&polyUnit != 0 && p.lits.unitEntry(h&^polyUnit) == nil:
			r.fail("fact %d names a unit support with no entry", i)
		case h >= polyStored && h&polyUnit == 0 && more[h-polyStored] == nil:
			r.fail("fact %d names no entry", i)
		}
		if r.err != nil {
			return f
		}
	}
	f.version = versionClock.Add(1)
	f.base = f.version
	r.giveBack()
	return f
}

// checkHandle reports whether h is a support handle whose stored row is
// below stored and whose literal is below lits.
func checkHandle(h uint32, stored int, lits uint32) bool {
	switch {
	case h&polyUnit != 0:
		return h&^polyUnit < lits
	case h >= polyStored:
		return int(h-polyStored) < stored
	}
	return true
}

// readU32s reads a stride-1 vector of uint32 into v, empty and flat.
func readU32s(r *snapReader, v pvec[uint32]) pvec[uint32] {
	v.adoptFlat(r.u32s(r.n(4)))
	return v
}

func readRelation(r *snapReader, p *Program, gen uint64) *relation {
	pred := uint32(r.small(uint64(p.npred())))
	arity := int(r.small(1 << 16))
	rel := newRelation(pred, arity, gen)
	rel.n = r.n(4 * max(arity, 1))
	rel.live, rel.dead = r.num(), r.num()
	if r.err == nil && (rel.live+rel.dead != rel.n || (arity == 0 && rel.n > 1)) {
		r.fail("relation of %d rows, %d live and %d dead", rel.n, rel.live, rel.dead)
	}
	nconst := uint64(p.consts.n)
	vals := r.u32s(rel.n * arity)
	for _, v := range vals {
		if uint64(v) >= nconst {
			r.fail("constant %d of %d", v, nconst)
			return rel
		}
	}
	rel.data.adoptFlat(vals)
	if arity == 0 && rel.n == 1 {
		rel.data.push(0, nil, gen) // the empty tuple's row, as insert makes it
	}
	rel.nf = r.n(1)
	if rel.nf > rel.n {
		r.fail("flags past the rows")
	}
	for i := range rel.nf {
		rel.flags.push1(uint32(i), uint8(r.small(256)), gen)
	}
	rel.set = readHash(r, gen, uint32(rel.n))
	if r.err == nil && rel.set.n != rel.live+rel.dead {
		r.fail("hash of %d entries for %d rows", rel.set.n, rel.n)
	}
	readProvenance(r, p, rel, nil)
	readIndexes(r, rel)
	r.giveBack()
	return rel
}

// readProvenance reads a relation's supports; prefs, when not nil, are
// its handles (shared with its fact set).
func readProvenance(r *snapReader, p *Program, rel *relation, prefs *pvec[uint32]) {
	rel.hasPolys = r.flag()
	if !rel.hasPolys {
		return
	}
	if prefs != nil {
		rel.prefs = *prefs
	} else {
		rel.prefs = readU32s(r, newPvec[uint32](1, rel.gen))
	}
	rel.pstore = newPvecShift[ipoly](1, wideShift, rel.gen)
	nlits := uint64(p.lits.n)
	rel.pbase = readPolyBase(r, int(nlits))
	nstored := rel.pbase.len()
	if r.err != nil {
		return
	}
	if rel.prefs.rows() != rel.n {
		r.fail("%d supports for %d rows", rel.prefs.rows(), rel.n)
		return
	}
	for i := range rel.n {
		if !checkHandle(rel.prefs.get(uint32(i)), nstored, uint32(nlits)) {
			r.fail("support handle of row %d", i)
			return
		}
	}
}

func readIndexes(r *snapReader, rel *relation) {
	for range r.n(1) {
		cols := make([]int, r.n(1))
		for i := range cols {
			cols[i] = int(r.small(uint64(max(rel.arity, 1))))
		}
		ix := &index{cols: cols}
		ix.heads = readHash(r, rel.gen, uint32(rel.n))
		ix.next = readU32s(r, newPvec[uint32](1, rel.gen))
		if r.err != nil {
			return
		}
		if ix.next.rows() != rel.n {
			r.fail("index of %d rows on %d", ix.next.rows(), rel.n)
			return
		}
		for i := range rel.n {
			if ix.next.get(uint32(i)) > uint32(rel.n) {
				r.fail("index chain past the rows")
				return
			}
		}
		rel.idx[colsKey(cols)] = ix
	}
}

// readHash reads a hash whose values are below lim.
func readHash(r *snapReader, gen uint64, lim uint32) phash {
	h := newPhash(gen)
	n := r.num()
	if !r.flag() {
		if n > len(r.b)/8 {
			r.fail("hash of %d entries past the end", n)
			return h
		}
		for range n {
			x := r.u64()
			if uint32(x) == 0 || uint32(x)-1 >= lim {
				r.fail("hash entry past the rows")
				return h
			}
			h.add(uint32(x>>32), uint32(x)-1, gen)
		}
		return h
	}
	gd, fk := r.small(hmaxLD+1), r.small(hpageBits+1)
	cnt := make([]int32, r.n(1))
	if r.err == nil && len(cnt) != 1<<gd {
		r.fail("hash of %d pages at depth %d", len(cnt), gd)
		return h
	}
	total := 0
	for i := range cnt {
		cnt[i] = int32(r.small(1<<hpageBits + 1))
		total += int(cnt[i])
	}
	size := 1 << (gd + fk)
	segs, ok := readHashSegs(r, size)
	if !ok {
		return h
	}
	if !checkHashPages(r, segs, cnt, gd, fk, lim, n, total) {
		return h
	}
	h.segs, h.cnt, h.gd, h.fk, h.n = segs, cnt, uint8(gd), uint8(fk), n
	r.giveBack()
	return h
}

// readHashSegs reads the size slots of a flat hash, segment by segment:
// each aliases the snapshot's bytes where it can, else is copied. It is
// apart from readHash because it only reads: whether the slots make a
// hash is checkHashPages's to say. ok is false once r has failed.
func readHashSegs(r *snapReader, size int) (segs [][]uint64, ok bool) {
	var slots []uint64 // the segments copied, end to end
	for got := 0; got < size && r.err == nil; {
		k := r.n(8)
		if k != min(size, 1<<hsegBits) {
			r.fail("hash segment of %d slots", k)
			return nil, false
		}
		r.align(8)
		b := r.take(8 * k)
		if b == nil {
			return nil, false
		}
		seg := aliasAs[uint64](r, b)
		if seg == nil {
			if slots == nil {
				// At most what the bytes left can hold: bad counts make no
				// huge allocation.
				slots = hugemem.Make[uint64](min(size, got+k+len(r.b)/8))
			}
			seg = slots[got : got+k : got+k]
			for i := range seg {
				seg[i] = binary.LittleEndian.Uint64(b[8*i:])
			}
		}
		segs = append(segs, seg)
		got += k
	}
	return segs, r.err == nil
}

// checkHashPages checks the slots readHashSegs read against the page
// counts cnt (which add up to total) and the n entries the hash claims,
// failing r at the first mismatch. It is apart because the slots may
// alias the snapshot's bytes: nothing in them is trusted until it passes.
func checkHashPages(r *snapReader, segs [][]uint64, cnt []int32, gd, fk uint64, lim uint32, n, total int) bool {
	// Every entry must lie in its page and name a row; the counts must add up.
	seen := 0
	for p := range cnt {
		lo := p << fk
		pg := segs[lo>>hsegBits][lo&hsegMask : lo&hsegMask+1<<fk]
		k := 0
		for _, x := range pg {
			if x == 0 {
				continue
			}
			if uint32(x) == 0 || uint32(x)-1 >= lim || int(uint32(x>>32)>>(32-gd)) != p && gd > 0 {
				r.fail("hash entry out of place")
				return false
			}
			k++
		}
		if k != int(cnt[p]) || k == len(pg) {
			r.fail("hash page %d holds %d entries, counted %d", p, k, cnt[p])
			return false
		}
		seen += k
	}
	if seen != n || total != n {
		r.fail("hash of %d entries counted %d", seen, n)
		return false
	}
	return true
}

// readModel reads a model of p: its strata, then its relations, each
// checked against what p's rules and facts make of them.
func readModel(r *snapReader, p *Program) (*Model, error) {
	nstrata := r.n(1)
	st, err := p.stratify()
	if err != nil {
		r.fail("the rules do not stratify: %v", err)
		return nil, r.err
	}
	if nstrata != st.strata.len() {
		r.fail("%d strata, the rules make %d", nstrata, st.strata.len())
		return nil, r.err
	}
	m := &Model{
		serial: modelSerial.Add(1), gen: versionClock.Add(1), bounds: p.bounds,
		consts: p.consts, preds: p.preds, lits: p.lits,
		predNames: p.preds.snapshot(),
		strat:     st,
	}
	m.rels.grow(p.npred(), nil, m.gen)
	m.strata.grow(nstrata, nil, m.gen)
	readStrata(r, p, m, st)
	if r.err == nil && r.n(1) != m.rels.len() {
		r.fail("relations of another number of predicates")
	}
	readRelations(r, p, m)
	if r.err != nil {
		return nil, r.err
	}
	for pred, rel := range m.rels.all() {
		if rel != nil && rel.arity != p.arityOf(uint32(pred)) {
			r.fail("relation of arity %d for a predicate of %d", rel.arity, p.arityOf(uint32(pred)))
			return nil, r.err
		}
	}
	m.info = p.lits.snapshot()
	return m, nil
}

// readStrata reads each stratum's record into m, in the order Snapshot
// writes them, failing r when one holds other predicates than st's.
func readStrata(r *snapReader, p *Program, m *Model, st *stratification) {
	for _, i := range st.order(m.predNames) { // the order Snapshot writes
		s := st.strata.at(i)
		preds := make([]uint32, r.n(1))
		for k := range preds {
			preds[k] = uint32(r.small(uint64(p.npred())))
		}
		if r.err == nil && !slices.Equal(preds, s.preds) {
			r.fail("stratum %d holds other predicates", i)
		}
		res := &stratResult{preds: s.preds, rules: s.rules, ruleID: ruleIDs(nil, s.rules)}
		for _, pred := range s.preds {
			res.facts = append(res.facts, p.fact(pred))
		}
		res.poly = r.flag()
		res.mode = uint8(r.small(uint64(modeCut) + 1))
		res.held = r.num()
		res.reused, res.kept = r.flag(), r.flag()
		m.strata.set(i, res, m.gen)
	}
}

// readRelations reads m's relations, predicate by predicate: none, one
// of its own, or one over the predicate's facts with its provenance and
// indexes. It stops at r's first failure.
func readRelations(r *snapReader, p *Program, m *Model) {
	for pred := range m.rels.all() {
		if r.err != nil {
			break
		}
		switch r.small(3) {
		case 1:
			m.rels.set(pred, readRelation(r, p, m.gen), m.gen)
			if r.err == nil && m.rel(uint32(pred)).pred != uint32(pred) {
				r.fail("relation of predicate %d holds another", pred)
			}
		case 2:
			f := p.fact(uint32(pred))
			if f == nil {
				r.fail("relation over the facts of %d, which has none", pred)
				break
			}
			rel := f.tab.derive(m.gen)
			rel.parent, rel.pn = weak.Pointer[relation]{}, 0
			rel.idx = map[string]*index{}
			var prefs *pvec[uint32]
			if r.flag() {
				prefs = &f.ents
			}
			readProvenance(r, p, rel, prefs)
			readIndexes(r, rel)
			m.rels.set(pred, rel, m.gen)
		}
	}
}
