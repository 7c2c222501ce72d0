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

// canonical returns the entry of a fact given once with support and its
// handle (facts.go): for One or a unit support, the one entry every such
// fact shares, named by polyOne or polyUnit and the variable's literal;
// any other support gets an entry of its own (handle zero). Entries are
// never written, so sharing one is invisible but for memory.
func (t *litTable) canonical(p *Program, support Poly) (*factEntry, uint32) {
	if d := support.d; d != nil && !d.trunc && d.exact == nil && support.IsOne() {
		return oneEntry, polyOne
	}
	name, ok := unitVar(support)
	if !ok {
		return &factEntry{pub: support, sup: p.internPoly(support)}, polyZero
	}
	lit := t.varLit(name)
	if u := t.unitEntry(lit); u != nil {
		return u, polyUnit | lit
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	slot := &t.units.chunk(int(lit>>unitChunkBits), func(int) *unitEntries { return new(unitEntries) })[lit&unitChunkMask]
	if u := slot.Load(); u != nil {
		return u, polyUnit | lit
	}
	u := &factEntry{pub: support, sup: unitPoly(lit)}
	slot.Store(u)
	return u, polyUnit | lit
}

// unitEntry returns the shared entry of the unit support of literal lit,
// nil when none was made.
func (t *litTable) unitEntry(lit uint32) *factEntry {
	if ch := t.units.peek(int(lit >> unitChunkBits)); ch != nil {
		return ch[lit&unitChunkMask].Load()
	}
	return nil
}

// unitEntries holds the unit entries of 1<<unitChunkBits consecutive
// literals.
type unitEntries [1 << unitChunkBits]atomic.Pointer[factEntry]

// unitLit returns the literal of a polynomial of one literal alone.
func unitLit(p ipoly) (uint32, bool) {
	if len(p) != 1 || len(p[0].lits) != 1 {
		return 0, false
	}
	return p[0].lits[0], true
}

// unitChunkBits sets the literals per chunk of a literal table.
const (
	unitChunkBits = 10
	unitChunkMask = 1<<unitChunkBits - 1
)

// chunkTable holds chunks by index, each made on first use and never
// replaced; the spine doubles when an index is past its end (its old
// versions stay valid), so readers go without a lock.
type chunkTable[C any] struct {
	mu    sync.Mutex
	spine atomic.Pointer[[]atomic.Pointer[C]]
}

// peek returns chunk c, nil when it was not made.
func (t *chunkTable[C]) peek(c int) *C {
	if sp := t.spine.Load(); sp != nil && c < len(*sp) {
		return (*sp)[c].Load()
	}
	return nil
}

// chunk returns chunk c, made by mk if it was not.
func (t *chunkTable[C]) chunk(c int, mk func(c int) *C) *C {
	if ch := t.peek(c); ch != nil {
		return ch
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	sp := t.spine.Load()
	if sp == nil || c >= len(*sp) {
		n := 16
		if sp != nil {
			n = len(*sp)
		}
		for n <= c {
			n *= 2
		}
		ns := make([]atomic.Pointer[C], n)
		if sp != nil {
			for i := range *sp {
				ns[i].Store((*sp)[i].Load())
			}
		}
		t.spine.Store(&ns)
		sp = &ns
	}
	if ch := (*sp)[c].Load(); ch != nil {
		return ch
	}
	ch := mk(c)
	(*sp)[c].Store(ch)
	return ch
}

// unitChunk holds the polynomials of 1<<unitChunkBits consecutive literals
// alone, each mono's literal slice a view of ids.
type unitChunk struct {
	mons [1 << unitChunkBits]mono
	ids  [1 << unitChunkBits]uint32
}

// unitPolys holds the polynomials of literals alone. The polynomial of a
// literal depends on nothing but its id, so one table serves every
// program.
var unitPolys chunkTable[unitChunk]

// unitPoly returns the shared polynomial of literal l alone; the caller
// must not write it (its capacity ends at its one monomial).
func unitPoly(l uint32) ipoly {
	o := l & unitChunkMask
	return unitPolys.chunk(int(l>>unitChunkBits), newUnitChunk).mons[o : o+1 : o+1]
}

func newUnitChunk(c int) *unitChunk {
	ch := new(unitChunk)
	base := uint32(c) << unitChunkBits
	for i := range ch.ids {
		ch.ids[i] = base + uint32(i)
		ch.mons[i] = mono{sig: 1 << (ch.ids[i] & 63), lits: ch.ids[i : i+1 : i+1]}
	}
	return ch
}
