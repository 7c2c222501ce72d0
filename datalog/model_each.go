package datalog

// EachFact calls f with every atom of pred and its support, in no
// particular order, until f returns false: Facts without its sort and its
// slice, for a caller that counts a predicate of millions of atoms (the
// consequence diff of a big import spent a seventh of its CPU sorting
// them). args is f's to keep.
func (m *Model) EachFact(pred string, f func(args []string, support Poly) bool) {
	m.eachRow(pred, func(pid, row uint32, args []string) bool { return f(args, m.publicPoly(pid, row)) })
}

// EachAtom calls f with every atom of pred and its grade under g's
// valuation, in no particular order, until f returns false: EachFact
// graded by the grader, which renders no atom's support and grades each
// literal once for all the atoms reading it, where Poly.Eval of each
// atom's support rendered it and graded its negated atoms afresh (the
// tally of a big import's consequences made half a gigabyte of garbage
// supports). args is f's to keep.
func (g *Grader) EachAtom(pred string, f func(args []string, gr Grade) bool) {
	g.m.eachRow(pred, func(pid, row uint32, args []string) bool { return f(args, g.gradeAtom(pid, row)) })
}

// eachRow calls f with every live row of pred, its predicate id and its
// arguments as strings, until f returns false.
func (m *Model) eachRow(pred string, f func(pid, row uint32, args []string) bool) {
	pid, ok := m.preds.lookup(pred)
	rel := m.rel(pid)
	if !ok || rel == nil {
		return
	}
	consts := m.consts.snapshot()
	for i := range rel.n {
		if row := uint32(i); rel.alive(row) && !f(pid, row, m.argStrings(rel, row, consts)) {
			return
		}
	}
}
