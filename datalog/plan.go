// This file compiles a rule into join plans: one plan per body position a
// semi-naive round can take its delta from (that atom first), and one full
// plan for the first round and for grounding. Atoms are ordered greedily,
// most bound columns first; each atom is read by a full-tuple probe, a hash
// index on its bound columns, or a scan. Negated literals and comparisons
// are tested as soon as their variables are bound.

package datalog

// Join step modes.
const (
	modeScan  uint8 = iota // every visible row
	modeDelta              // the rows that changed last round
	modeIndex              // rows sharing the bound columns, by hash index
	modeProbe              // every column bound: one lookup in the primary set
	modeSeed               // the seed tuple of a seeded plan (evaluator.seed)
)

// Seeds of a seeded plan: the matches of a rule in which one body atom, one
// negated literal or the head is a given tuple.
const (
	seedPos uint8 = iota
	seedNeg
	seedHead
)

// colSlot binds or checks one column against a variable slot.
type colSlot struct {
	col  int
	slot int32
}

// colConst checks one column against a constant.
type colConst struct {
	col int
	c   uint32
}

// step reads one positive body atom.
type step struct {
	pos    int // index in ruleRec.pos
	rel    *relation
	cur    int // index of rel among the stratum's relations, -1 if finished
	mode   uint8
	ix     *index
	key    []cterm    // probe: the whole tuple; index: values of ix.cols
	binds  []colSlot  // first occurrences of variables: slot = row[col]
	checks []colSlot  // later occurrences: row[col] must equal slot
	consts []colConst // (scan and delta) row[col] must equal the constant
	negs   []int      // indexes of ruleRec.neg to test after this step
	cmps   []int      // indexes of ruleRec.cmps to test after this step
}

// plan is a join order for one rule.
type plan struct {
	rule    *ruleRec
	delta   int // position read from the delta, -1 for a full plan
	preNegs []int
	preCmps []int // comparisons of constants alone
	steps   []step
}

// planner compiles plans against a model's relations.
type planner struct {
	rels   *ptab[*relation] // by pred id
	curIdx []int            // by pred id: index among the stratum's relations, or -1
}

// compile builds the plan that reads body position first (-1: choose).
func (pl *planner) compile(r *ruleRec, first int) *plan {
	p := &plan{rule: r, delta: first}
	bound := make([]bool, r.nvars)
	done := make([]bool, len(r.pos))
	negDone := make([]bool, len(r.neg))
	cmpDone := make([]bool, len(r.cmps))
	p.preNegs = placeNegs(r, bound, negDone)
	p.preCmps = placeCmps(r, bound, cmpDone)
	for range r.pos {
		next := first
		if next < 0 || done[next] {
			next = pickNext(r, bound, done)
		}
		first = -1
		done[next] = true
		st := pl.compileStep(r, next, bound, next == p.delta)
		st.negs = placeNegs(r, bound, negDone)
		st.cmps = placeCmps(r, bound, cmpDone)
		p.steps = append(p.steps, st)
	}
	return p
}

// compileSeeded builds the plan that starts from a seed: positive body
// atom idx, negated literal idx, or the head (idx ignored), bound to the
// tuple in evaluator.seed. A positive seed reads its monomials from
// evaluator.seedMons.
func (pl *planner) compileSeeded(r *ruleRec, kind uint8, idx int) *plan {
	p := &plan{rule: r, delta: -1}
	bound := make([]bool, r.nvars)
	done := make([]bool, len(r.pos))
	negDone := make([]bool, len(r.neg))
	cmpDone := make([]bool, len(r.cmps))
	p.preNegs = placeNegs(r, bound, negDone)
	p.preCmps = placeCmps(r, bound, cmpDone)
	var a catom
	switch kind {
	case seedPos:
		a, done[idx], p.delta = r.pos[idx], true, idx
	case seedNeg:
		a = r.neg[idx]
	default:
		a = r.head
	}
	st := step{pos: -1, cur: -1, mode: modeSeed}
	if kind == seedPos {
		st.pos = idx
	}
	for c, t := range a.args {
		switch {
		case t.slot < 0:
			st.consts = append(st.consts, colConst{c, t.c})
		case bound[t.slot]:
			st.checks = append(st.checks, colSlot{c, t.slot})
		default:
			bound[t.slot] = true
			st.binds = append(st.binds, colSlot{c, t.slot})
		}
	}
	st.negs = placeNegs(r, bound, negDone)
	st.cmps = placeCmps(r, bound, cmpDone)
	p.steps = append(p.steps, st)
	for range len(r.pos) - btoi(kind == seedPos) {
		next := pickNext(r, bound, done)
		done[next] = true
		s := pl.compileStep(r, next, bound, false)
		s.negs = placeNegs(r, bound, negDone)
		s.cmps = placeCmps(r, bound, cmpDone)
		p.steps = append(p.steps, s)
	}
	return p
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// pickNext returns the unread atom with the most bound columns; ties go to
// fully bound atoms, then to body order.
func pickNext(r *ruleRec, bound, done []bool) int {
	best, bestScore := -1, -1
	for i, a := range r.pos {
		if done[i] {
			continue
		}
		score := 0
		for _, t := range a.args {
			if t.slot < 0 || bound[t.slot] {
				score += 2
			}
		}
		if score == 2*len(a.args) {
			score++
		}
		if score > bestScore {
			best, bestScore = i, score
		}
	}
	return best
}

// placeNegs returns the negated literals whose variables are all bound and
// that are not placed yet, marking them placed.
func placeNegs(r *ruleRec, bound, placed []bool) []int {
	var out []int
	for i, a := range r.neg {
		if placed[i] {
			continue
		}
		ok := true
		for _, t := range a.args {
			if t.slot >= 0 && !bound[t.slot] {
				ok = false
				break
			}
		}
		if ok {
			placed[i] = true
			out = append(out, i)
		}
	}
	return out
}

// compileStep chooses how to read atom i given the bound variables, and
// marks the atom's variables bound.
func (pl *planner) compileStep(r *ruleRec, i int, bound []bool, delta bool) step {
	a := r.pos[i]
	st := step{pos: i, rel: pl.rels.at(int(a.pred)), cur: pl.curIdx[a.pred]}
	var keyCols []int
	var key []cterm
	seenHere := map[int32]bool{}
	for c, t := range a.args {
		switch {
		case t.slot < 0:
			keyCols, key = append(keyCols, c), append(key, t)
			st.consts = append(st.consts, colConst{c, t.c})
		case bound[t.slot]:
			keyCols, key = append(keyCols, c), append(key, t)
			st.checks = append(st.checks, colSlot{c, t.slot})
		case seenHere[t.slot]:
			st.checks = append(st.checks, colSlot{c, t.slot})
		default:
			seenHere[t.slot] = true
			st.binds = append(st.binds, colSlot{c, t.slot})
		}
	}
	switch {
	case delta:
		st.mode = modeDelta
	case len(keyCols) == 0:
		st.mode = modeScan
	case len(keyCols) == len(a.args):
		st.mode, st.key = modeProbe, key
		st.consts, st.checks = nil, nil
	default:
		st.mode, st.key = modeIndex, key
		st.ix = st.rel.index(keyCols)
		st.consts = nil
		// Only repeats inside the atom remain to be checked.
		var rep []colSlot
		for _, ch := range st.checks {
			if seenHere[ch.slot] {
				rep = append(rep, ch)
			}
		}
		st.checks = rep
	}
	for s := range seenHere {
		bound[s] = true
	}
	return st
}
