// This file holds the Grader: grades of atoms under one valuation, computed
// from the stored polynomials (truncated atoms from their stratum's ground
// instances) and memoized, with no re-evaluation of rules.

package datalog

// Grader grades atoms of one model under one valuation, caching every
// literal truth and grade it computes. A Grader is not safe for concurrent
// use; make one per goroutine (they are cheap).
type Grader struct {
	m       *Model
	v       Valuation
	lit     memo   // by literal id: truth+1, 0 not yet computed
	grades  []memo // by pred id, by row: grade+1, 0 not yet computed
	foreign map[*Model]*Grader
}

// Grader returns a grader of m under v. Its caches grow page by page, so a
// grader that grades a few atoms of a large model stays small.
func (m *Model) Grader(v Valuation) *Grader {
	return &Grader{m: m, v: v, grades: make([]memo, m.rels.len())}
}

// memo is a byte array allocated lazily in pages of memoPage entries.
type memo struct {
	pages [][]uint8
}

const memoShift = 12
const memoPage = 1 << memoShift

func (c *memo) get(i uint32) uint8 {
	p := int(i >> memoShift)
	if p >= len(c.pages) || c.pages[p] == nil {
		return 0
	}
	return c.pages[p][i&(memoPage-1)]
}

func (c *memo) set(i uint32, v uint8) {
	p := int(i >> memoShift)
	if p >= len(c.pages) {
		c.pages = append(c.pages, make([][]uint8, p+1-len(c.pages))...)
	}
	if c.pages[p] == nil {
		c.pages[p] = make([]uint8, memoPage)
	}
	c.pages[p][i&(memoPage-1)] = v
}

func (c *memo) clone() memo {
	n := memo{pages: make([][]uint8, len(c.pages))}
	for i, pg := range c.pages {
		if pg != nil {
			n.pages[i] = append([]uint8(nil), pg...)
		}
	}
	return n
}

// Grade grades pred(args): Dead when the atom was not derived.
func (g *Grader) Grade(pred string, args ...string) Grade {
	pid, row, ok := g.m.lookupAtom(pred, args)
	if !ok {
		return Dead
	}
	return g.gradeAtom(pid, row)
}

// GradeFact grades a fact returned by the model (Facts, Mentions, Query).
func (g *Grader) GradeFact(f GroundFact) Grade { return g.Grade(f.Pred, f.Args...) }

// Grade grades pred(args) under v. To grade many atoms, use a Grader.
func (m *Model) Grade(pred string, args []string, v Valuation) Grade {
	return m.Grader(v).Grade(pred, args...)
}

func (g *Grader) setGrade(pred, row uint32, gr Grade) {
	g.grades[pred].set(row, uint8(gr)+1)
}

// gradeAtom grades one row: by its polynomial, or, when the row is
// truncated, by solving its stratum's region.
func (g *Grader) gradeAtom(pred, row uint32) Grade {
	rel := g.m.rel(pred)
	if rel.allOne() {
		return Certain
	}
	if c := g.grades[pred].get(row); c != 0 {
		return Grade(c - 1)
	}
	if rel.tainted(row) {
		g.solve(g.m.strata.at(g.m.stratOf(pred)).region)
		return Grade(g.grades[pred].get(row) - 1)
	}
	gr := Grade(g.evalPoly(rel.poly(row)))
	g.setGrade(pred, row, gr)
	return gr
}

// evalPoly is the Kleene value of p: OR over monomials of AND over literals.
func (g *Grader) evalPoly(p ipoly) Truth {
	best := False
	for _, mo := range p {
		t := True
		for _, id := range mo.lits {
			t = min(t, g.litTruth(id))
			if t == False {
				break
			}
		}
		if t > best {
			best = t
			if best == True {
				break
			}
		}
	}
	return best
}

// litTruth is the truth of one literal under the valuation.
func (g *Grader) litTruth(id uint32) Truth {
	if c := g.lit.get(id); c != 0 {
		return Truth(c - 1)
	}
	var t Truth
	li := g.m.info.at(id)
	switch li.kind {
	case litVar:
		t = g.v.Truth(g.m.info.extraOf(li).name)
		if t > True {
			t = Unknown
		}
	case litNeg:
		t = True
		if rel := g.m.rel(li.pred); rel != nil {
			if row, ok := rel.find(li.args); ok {
				t = g.gradeAtom(li.pred, row).Truth().Not()
			}
		}
	case litForeign:
		f := g.m.info.extraOf(li).foreign
		if g.foreign == nil {
			g.foreign = map[*Model]*Grader{}
		}
		fg := g.foreign[f.m]
		if fg == nil {
			fg = f.m.Grader(g.v)
			g.foreign[f.m] = fg
		}
		t = fg.gradeAtom(f.pred, f.row).Truth().Not()
	}
	g.lit.set(id, uint8(t)+1)
	return t
}
