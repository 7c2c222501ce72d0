// This file writes and reads the literals of a snapshot (snapshot.go):
// the names of the variables, then columns a load uses in place (DL-0399)
// — each literal's head (kind and predicate), the offsets of its
// arguments, the arguments, and the slots of the negated atoms' table —
// then the variables whose unit support has its shared entry.

package datalog

// writeLits writes the literals below n.
func writeLits(s *snapWriter, t *litTable, n int) {
	lits := t.snapshot()
	s.n(n)
	var vars, units []uint32
	for id := range uint32(n) {
		if lits.at(id).kind == litVar {
			vars = append(vars, id)
		}
	}
	s.n(len(vars))
	for _, id := range vars {
		s.str(lits.extraOf(lits.at(id)).name)
		if t.unitEntry(id) != nil {
			units = append(units, id)
		}
	}
	s.align(4)
	nvar := uint32(0)
	for id := range uint32(n) {
		li := lits.at(id)
		x := li.pred
		if li.kind == litVar {
			x, nvar = nvar, nvar+1 // the index of its name: its extra once loaded
		}
		s.u32(uint32(li.kind)<<litKindShift | x)
	}
	s.align(4)
	s.u32(0)
	end := uint32(0)
	for id := range uint32(n) {
		end += uint32(len(lits.at(id).args))
		s.u32(end)
	}
	s.align(4)
	for id := range uint32(n) {
		s.u32s(lits.at(id).args)
	}
	slots := t.negSlotsBelow(n)
	s.n(len(slots))
	s.align(8)
	s.u64s(slots)
	s.n(len(units))
	for _, u := range units {
		s.n(int(u))
	}
}

// readLits reads the literals into p's table, empty, checking every value
// first: the table then reads them where they lie.
func readLits(r *snapReader, p *Program) {
	t := p.lits
	n := r.n(8)
	names := make([]string, r.n(1))
	for i := range names {
		names[i] = r.str()
	}
	b := &litCols{n: n}
	b.heads = r.u32s(n)
	b.offs = r.u32s(n + 1)
	if r.err != nil {
		return
	}
	b.args = r.u32s(int(b.offs[n]))
	b.negs = r.u64s(r.n(8))
	if r.err != nil {
		return
	}
	vars, nneg := checkLits(r, p, b, len(names))
	checkNegs(r, b, nneg)
	if r.err != nil {
		return
	}
	t.mu.Lock()
	t.base, t.n = b, n
	for i, id := range vars {
		if _, dup := t.vars[names[i]]; dup {
			r.fail("variable %q twice", names[i])
			break
		}
		t.vars[names[i]] = id
		t.pushExtra(litExtra{name: names[i]})
	}
	t.mu.Unlock()
	for range r.n(1) {
		lit := uint32(r.small(uint64(n)))
		if r.err != nil {
			return
		}
		l := t.snapshot()
		li := l.at(lit)
		if li.kind != litVar {
			r.fail("unit entry of a negated literal")
			return
		}
		t.canonical(p, VarPoly(l.extraOf(li).name))
	}
}

// checkLits checks the literals' columns against p's constants,
// predicates and arities and nvar names of variables; it returns the ids
// of the variables and the number of negated atoms.
func checkLits(r *snapReader, p *Program, b *litCols, nvar int) (vars []uint32, nneg int) {
	nconst, npred := uint32(p.consts.n), uint32(p.preds.n)
	for _, a := range b.args {
		if a >= nconst {
			r.fail("constant %d of %d", a, nconst)
			return nil, 0
		}
	}
	if b.offs[0] != 0 {
		r.fail("arguments from %d", b.offs[0])
		return nil, 0
	}
	for id := range b.n {
		h, lo, hi := b.heads[id], b.offs[id], b.offs[id+1]
		if hi < lo {
			r.fail("arguments of literal %d out of order", id)
			return nil, 0
		}
		x := h & litXMask
		switch uint8(h >> litKindShift) {
		case litVar:
			if int(x) != len(vars) || len(vars) == nvar || hi != lo {
				r.fail("variable literal %d", id)
				return nil, 0
			}
			vars = append(vars, uint32(id))
		case litNeg:
			if x >= npred || p.arityOf(x) >= 0 && int(hi-lo) != p.arityOf(x) {
				r.fail("negated literal %d", id)
				return nil, 0
			}
			nneg++
		default:
			r.fail("literal %d of kind %d", id, h>>litKindShift)
			return nil, 0
		}
	}
	if len(vars) != nvar {
		r.fail("%d variable names for %d variables", nvar, len(vars))
	}
	return vars, nneg
}

// checkNegs checks the negated atoms' table of b, of nneg atoms, without
// allocating: as large as addNeg keeps it, as many entries as atoms, and
// each atom found by probing from its hash, past no entry of the same atom
// (which finds an atom twice among the literals).
func checkNegs(r *snapReader, b *litCols, nneg int) {
	slots := b.negs
	size := len(slots)
	if r.err != nil || size != 0 && (size < negMinSlots || size&(size-1) != 0) || 4*nneg > 3*size {
		r.fail("hash of %d slots for %d negated literals", size, nneg)
		return
	}
	full := 0
	for _, v := range slots {
		if v != 0 {
			full++
		}
	}
	if full != nneg {
		r.fail("hash of %d entries for %d negated literals", full, nneg)
		return
	}
	mask := uint64(size - 1)
	for id := range uint32(b.n) {
		li := b.at(id)
		if li.kind != litNeg {
			continue
		}
		h := negHash(li.pred, li.args)
		// The probe ends: fewer entries than slots.
		for i := h & mask; slots[i] != negSlot(id, h); i = (i + 1) & mask {
			v := slots[i]
			if v == 0 {
				r.fail("negated literal %d not in its hash", id)
				return
			}
			if v>>32 != h>>32 {
				continue
			}
			o := uint32(v) - 1
			if int(o) >= b.n || uint8(b.heads[o]>>litKindShift) != litNeg {
				r.fail("hash entry of literal %d", o)
				return
			}
			if ol := b.at(o); ol.pred == li.pred && sameVals(ol.args, li.args) {
				r.fail("literal %d twice", id)
				return
			}
		}
	}
}
