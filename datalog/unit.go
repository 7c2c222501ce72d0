// This file holds the shared forms of unit supports: a fact supported by
// one provenance variable alone (a claim citing one decision, a
// hypothesis) is the common case among authored facts, and every such fact
// of a variable shares one entry, public and internal polynomial, instead
// of holding copies of its own (DL-0311, DL-0354); and a relation row
// whose support is one literal stores the literal in its handle and reads
// back the one shared internal polynomial of that literal (DL-0355).

package datalog

import (
	"sync"
	"sync/atomic"
)

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

// canonical returns the entry of a fact given once with support, shared
// by every fact of the same unit support; any other support gets an entry
// of its own. Entries are never written, so sharing one is invisible but
// for memory.
func (t *litTable) canonical(p *Program, support Poly) *factEntry {
	name, ok := unitVar(support)
	if !ok {
		return &factEntry{pub: support, sup: p.internPoly(support)}
	}
	lit := t.varLit(name)
	t.mu.RLock()
	u, ok := t.units[lit]
	t.mu.RUnlock()
	if ok {
		return u
	}
	u = &factEntry{pub: support, sup: unitPoly(lit)}
	t.mu.Lock()
	defer t.mu.Unlock()
	if cur, ok := t.units[lit]; ok {
		return cur
	}
	t.units[lit] = u
	return u
}

// unitLit returns the literal of a polynomial of one literal alone.
func unitLit(p ipoly) (uint32, bool) {
	if len(p) != 1 || len(p[0].lits) != 1 {
		return 0, false
	}
	return p[0].lits[0], true
}

// unitChunkBits sets the literals per chunk of the unit polynomials.
const unitChunkBits = 10

// unitChunk holds the polynomials of 1<<unitChunkBits consecutive literals
// alone, each mono's literal slice a view of ids.
type unitChunk struct {
	mons [1 << unitChunkBits]mono
	ids  [1 << unitChunkBits]uint32
}

// unitPolys holds the chunks by literal>>unitChunkBits. A chunk is made
// on first use and never written after; the spine doubles when a literal
// is past its end (its old versions stay valid), so readers go without a
// lock. The polynomial of a literal depends on nothing but its id, so one
// table serves every program.
var unitPolys struct {
	mu    sync.Mutex
	spine atomic.Pointer[[]atomic.Pointer[unitChunk]]
}

// unitPoly returns the shared polynomial of literal l alone; the caller
// must not write it (its capacity ends at its one monomial).
func unitPoly(l uint32) ipoly {
	c, o := int(l>>unitChunkBits), l&(1<<unitChunkBits-1)
	if sp := unitPolys.spine.Load(); sp != nil && c < len(*sp) {
		if ch := (*sp)[c].Load(); ch != nil {
			return ch.mons[o : o+1 : o+1]
		}
	}
	return unitChunkOf(c).mons[o : o+1 : o+1]
}

// unitChunkOf makes chunk c of the unit polynomials.
func unitChunkOf(c int) *unitChunk {
	unitPolys.mu.Lock()
	defer unitPolys.mu.Unlock()
	sp := unitPolys.spine.Load()
	if sp == nil || c >= len(*sp) {
		n := 16
		if sp != nil {
			n = len(*sp)
		}
		for n <= c {
			n *= 2
		}
		ns := make([]atomic.Pointer[unitChunk], n)
		if sp != nil {
			for i := range *sp {
				ns[i].Store((*sp)[i].Load())
			}
		}
		unitPolys.spine.Store(&ns)
		sp = &ns
	}
	if ch := (*sp)[c].Load(); ch != nil {
		return ch
	}
	ch := new(unitChunk)
	base := uint32(c) << unitChunkBits
	for i := range ch.ids {
		ch.ids[i] = base + uint32(i)
		ch.mons[i] = mono{sig: 1 << (ch.ids[i] & 63), lits: ch.ids[i : i+1 : i+1]}
	}
	(*sp)[c].Store(ch)
	return ch
}
