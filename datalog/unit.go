// This file holds the shared forms of unit supports: a fact supported by
// one provenance variable alone (a claim citing one decision, a
// hypothesis) is the common case among authored facts, and every such fact
// of a variable shares one public and one internal polynomial instead of
// holding copies of its own (DL-0311).

package datalog

// unitSupport is the shared public and internal form of the polynomial of
// one variable.
type unitSupport struct {
	pub Poly
	sup ipoly
}

// unitVar returns the variable a polynomial consists of, when it is
// exactly one variable: one monomial of one positive literal, not
// truncated.
func unitVar(q Poly) (string, bool) {
	if q.d == nil || q.d.trunc || q.d.exact != nil || len(q.d.mons) != 1 || len(q.d.mons[0]) != 1 {
		return "", false
	}
	l := q.d.mons[0][0]
	if l.neg != nil {
		return "", false
	}
	return l.name, true
}

// canonical returns support and its internal form, both shared by every
// fact of the same unit support; any other support is interned anew.
// Polynomials are immutable, so sharing one is invisible but for memory.
func (t *litTable) canonical(p *Program, support Poly) (Poly, ipoly) {
	name, ok := unitVar(support)
	if !ok {
		return support, p.internPoly(support)
	}
	lit := t.varLit(name)
	t.mu.RLock()
	u, ok := t.units[lit]
	t.mu.RUnlock()
	if ok {
		return u.pub, u.sup
	}
	lits := []uint32{lit}
	u = unitSupport{pub: support, sup: ipoly{{sig: sigOf(lits), lits: lits}}}
	t.mu.Lock()
	defer t.mu.Unlock()
	if cur, ok := t.units[lit]; ok {
		return cur.pub, cur.sup
	}
	t.units[lit] = u
	return u.pub, u.sup
}
