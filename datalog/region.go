// This file records, for a stratum whose polynomials were truncated, the
// ground rule instances that derive its truncated atoms, and solves them
// under a valuation: a three-valued least fixpoint by counter propagation,
// linear in the instances. Grades of truncated atoms come from here, never
// from their cut polynomials, so they are exact.

package datalog

// Reference kinds inside a ground instance.
const (
	refLocal uint8 = iota // a truncated atom of the same stratum (row = local id)
	refPos                // any other atom: its grade
	refNeg                // a negated atom: the negation of its grade
)

// rref packs a reference: kind in the top 2 bits, the predicate in the next
// 30, the row (or local id) in the low 32.
type rref uint64

func mkref(kind uint8, pred, row uint32) rref {
	return rref(uint64(kind)<<62 | uint64(pred)<<32 | uint64(row))
}

func (r rref) kind() uint8  { return uint8(r >> 62) }
func (r rref) pred() uint32 { return uint32(r>>32) & (1<<30 - 1) }
func (r rref) row() uint32  { return uint32(r) }

// rinst is one ground rule instance: rule, head, and refs[lo:hi].
type rinst struct {
	rule   int32
	head   int32
	lo, hi uint32
}

// rfact is a program fact whose atom is truncated: a body-less instance.
type rfact struct {
	local int32
	fact  factEntry // a copy: the program may change its facts later
}

// aref names an atom of a model.
type aref struct{ pred, row uint32 }

// region is the ground program of a stratum's truncated atoms.
type region struct {
	atoms   []aref
	local   map[uint32][]int32 // pred → row → local id, -1 when not truncated
	rules   []*ruleRec
	inst    []rinst
	refs    []rref
	facts   []rfact
	userOff []uint32 // CSR: instances reading local atom a are users[userOff[a]:userOff[a+1]]
	users   []uint32
}

// grounder collects instances during the grounding pass.
type grounder struct {
	reg    *region
	ruleIx map[*ruleRec]int32
}

// groundRegion enumerates every rule instance of the stratum once over the
// final relations and keeps those whose head is truncated.
func (e *evaluator) groundRegion(p *Program, s *strat) *region {
	reg := &region{local: map[uint32][]int32{}, rules: s.rules}
	for i, rel := range e.cur {
		loc := make([]int32, rel.n)
		for row := range loc {
			loc[row] = -1
			if rel.tainted(uint32(row)) {
				loc[row] = int32(len(reg.atoms))
				reg.atoms = append(reg.atoms, aref{rel.pred, uint32(row)})
			}
		}
		reg.local[s.preds[i]] = loc
		e.lim[i] = uint32(rel.n)
	}
	reg.inst = make([]rinst, 0, 2*len(reg.atoms))
	reg.refs = make([]rref, 0, 4*len(reg.atoms))
	g := &grounder{reg: reg, ruleIx: map[*ruleRec]int32{}}
	for i, r := range s.rules {
		g.ruleIx[r] = int32(i)
	}
	e.ground = g
	for _, ps := range e.plans {
		e.exec(ps[0])
	}
	e.ground = nil
	for i, pred := range s.preds {
		p.fact(pred).each(func(_ uint32, args []uint32, fe *factEntry) {
			row, _ := e.cur[i].find(args)
			if l := reg.local[pred][row]; l >= 0 {
				reg.facts = append(reg.facts, rfact{local: l, fact: *fe})
			}
		})
	}
	reg.buildUsers()
	return reg
}

// record keeps the current match as an instance if its head is truncated.
func (g *grounder) record(e *evaluator, rel *relation, head []uint32) {
	hrow, ok := rel.find(head)
	if !ok || !rel.tainted(hrow) {
		return
	}
	reg := g.reg
	r := e.pl.rule
	in := rinst{rule: g.ruleIx[r], head: reg.local[rel.pred][hrow], lo: uint32(len(reg.refs))}
	for i, a := range r.pos {
		row := e.rows[i]
		if loc, ok := reg.local[a.pred]; ok && loc[row] >= 0 {
			reg.refs = append(reg.refs, mkref(refLocal, 0, uint32(loc[row])))
			continue
		}
		br := e.m.rel(a.pred)
		if br.allOne() || (!br.tainted(row) && br.poly(row).isOne()) {
			continue // always true
		}
		reg.refs = append(reg.refs, mkref(refPos, a.pred, row))
	}
	for k, a := range r.neg {
		if row := e.negRow[k]; row >= 0 {
			reg.refs = append(reg.refs, mkref(refNeg, a.pred, uint32(row)))
		}
	}
	in.hi = uint32(len(reg.refs))
	reg.inst = append(reg.inst, in)
}

// buildUsers indexes, for each local atom, the instances that read it (once
// per occurrence).
func (reg *region) buildUsers() {
	reg.userOff = make([]uint32, len(reg.atoms)+1)
	for _, in := range reg.inst {
		for _, rf := range reg.refs[in.lo:in.hi] {
			if rf.kind() == refLocal {
				reg.userOff[rf.row()+1]++
			}
		}
	}
	for i := 1; i < len(reg.userOff); i++ {
		reg.userOff[i] += reg.userOff[i-1]
	}
	reg.users = make([]uint32, reg.userOff[len(reg.atoms)])
	fill := append([]uint32(nil), reg.userOff[:len(reg.atoms)]...)
	for i, in := range reg.inst {
		for _, rf := range reg.refs[in.lo:in.hi] {
			if rf.kind() == refLocal {
				reg.users[fill[rf.row()]] = uint32(i)
				fill[rf.row()]++
			}
		}
	}
}

// solve grades every atom of the region under g's valuation: an atom is
// certain when some derivation tree has only true leaves, possible when
// some has only true-or-unknown leaves, dead otherwise — the Kleene value
// of its full (uncut) support polynomial.
func (g *Grader) solve(reg *region) {
	ext := make([]Truth, len(reg.inst))
	need := make([]int32, len(reg.inst))
	ruleT := make([]int8, len(reg.rules))
	for i := range ruleT {
		ruleT[i] = -1
	}
	for i, in := range reg.inst {
		if ruleT[in.rule] < 0 {
			ruleT[in.rule] = int8(g.evalPoly(reg.rules[in.rule].support))
		}
		t := Truth(ruleT[in.rule])
		for _, rf := range reg.refs[in.lo:in.hi] {
			switch rf.kind() {
			case refLocal:
				need[i]++
			case refPos:
				t = min(t, g.gradeAtom(rf.pred(), rf.row()).Truth())
			case refNeg:
				t = min(t, g.gradeAtom(rf.pred(), rf.row()).Truth().Not())
			}
		}
		ext[i] = t
	}
	base := make([]Truth, len(reg.atoms))
	for _, f := range reg.facts {
		var t Truth
		if f.fact.truncated() {
			t = f.fact.eval(g.v)
		} else {
			t = g.evalPoly(f.fact.sup)
		}
		base[f.local] = max(base[f.local], t)
	}
	certain := reg.propagate(True, ext, need, base)
	possible := reg.propagate(Unknown, ext, need, base)
	for a, at := range reg.atoms {
		gr := Dead
		switch {
		case certain[a]:
			gr = Certain
		case possible[a]:
			gr = Possible
		}
		g.setGrade(at.pred, at.row, gr)
	}
}

// propagate computes the atoms derivable using only instances and facts
// whose own truth is at least floor (Horn propagation with counters).
func (reg *region) propagate(floor Truth, ext []Truth, need0 []int32, base []Truth) []bool {
	need := append([]int32(nil), need0...)
	holds := make([]bool, len(reg.atoms))
	var queue []uint32
	mark := func(a int32) {
		if !holds[a] {
			holds[a] = true
			queue = append(queue, uint32(a))
		}
	}
	for a, t := range base {
		if t >= floor {
			mark(int32(a))
		}
	}
	for i, in := range reg.inst {
		if ext[i] >= floor && need[i] == 0 {
			mark(in.head)
		}
	}
	for len(queue) > 0 {
		a := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		for _, i := range reg.users[reg.userOff[a]:reg.userOff[a+1]] {
			if ext[i] < floor {
				continue
			}
			if need[i]--; need[i] == 0 {
				mark(reg.inst[i].head)
			}
		}
	}
	return holds
}
