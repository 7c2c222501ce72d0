package datalog

// EachFact calls f with every atom of pred and its support, in no
// particular order, until f returns false: Facts without its sort and its
// slice, for a caller that counts a predicate of millions of atoms (the
// consequence diff of a big import spent a seventh of its CPU sorting
// them). args is f's to keep.
func (m *Model) EachFact(pred string, f func(args []string, support Poly) bool) {
	pid, ok := m.preds.lookup(pred)
	rel := m.rel(pid)
	if !ok || rel == nil {
		return
	}
	consts := m.consts.snapshot()
	for i := range rel.n {
		if row := uint32(i); rel.alive(row) && !f(m.argStrings(rel, row, consts), m.publicPoly(pid, row)) {
			return
		}
	}
}
