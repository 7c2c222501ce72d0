// This file holds an index's entities by ident (DL-0401). Over a lazy
// base the base's own entities are its EntityIdents, read where the base
// keeps them (a world file's sorted ident column); the index holds only
// the entities filed since (staged, advanced) and the base's idents taken
// away. A world of a million entities then holds no map of a million
// keys, and staging an entity copies the few filed since, not the
// million.

package world

import (
	"iter"

	"github.com/deloreis/deloreis/objects"
)

// EntityIdents is a base's entities by ident: under each ident, the
// entity of least position (so of least id) that declares it. Its
// methods must be safe for concurrent use and must not fail.
type EntityIdents interface {
	// Len is the number of distinct idents.
	Len() int
	// Find returns the position of the entity filed under ident.
	Find(ident string) (int, bool)
	// All yields each ident once, with its entity's position.
	All() iter.Seq2[string, int]
}

// entityMap is the entities of an index by ident; the smallest object id
// wins. It is never written once an index shares it: a change copies
// what it writes (with, without).
type entityMap struct {
	base EntityIdents // a lazy base's, or nil
	lz   *lazyEntries // the base's entries
	over map[string]named[*objects.Entity]
	gone map[string]bool // idents of base taken away; over may file them again
	n    int
}

func newEntityMap(size int) entityMap {
	return entityMap{over: make(map[string]named[*objects.Entity], size)}
}

// lazyEntityMap is the entities of a lazy base, none filed over them.
func lazyEntityMap(base EntityIdents, lz *lazyEntries) entityMap {
	return entityMap{base: base, lz: lz, over: map[string]named[*objects.Entity]{}, n: base.Len()}
}

// get returns the entity filed under id.
func (m *entityMap) get(id string) (named[*objects.Entity], bool) {
	if v, ok := m.over[id]; ok {
		return v, true
	}
	if m.base == nil || m.gone[id] {
		return named[*objects.Entity]{}, false
	}
	pos, ok := m.base.Find(id)
	if !ok {
		return named[*objects.Entity]{}, false
	}
	return named[*objects.Entity]{lz: m.lz, pos: uint32(pos)}, true
}

func (m *entityMap) has(id string) bool {
	_, ok := m.get(id)
	return ok
}

func (m *entityMap) len() int { return m.n }

// set files v under id; the caller owns m (a copy made by with or
// without, or a map no index shares yet).
func (m *entityMap) set(id string, v named[*objects.Entity]) {
	if !m.has(id) {
		m.n++
	}
	m.over[id] = v
}

// with returns a copy of m that set may write.
func (m entityMap) with() entityMap {
	c := m
	c.over = cloneMap(m.over)
	if m.gone != nil {
		c.gone = cloneMap(m.gone)
	}
	return c
}

// without returns m less the idents in ids, copied when there are any.
func (m entityMap) without(ids map[string]bool) entityMap {
	if len(ids) == 0 {
		return m
	}
	c := m.with()
	for id := range ids {
		if !c.has(id) {
			continue
		}
		c.n--
		delete(c.over, id)
		if c.base != nil {
			if _, ok := c.base.Find(id); ok {
				if c.gone == nil {
					c.gone = map[string]bool{}
				}
				c.gone[id] = true
			}
		}
	}
	return c
}

// all yields every entity with its ident, in no set order.
func (m *entityMap) all() iter.Seq2[string, named[*objects.Entity]] {
	return func(yield func(string, named[*objects.Entity]) bool) {
		for id, v := range m.over {
			if !yield(id, v) {
				return
			}
		}
		if m.base == nil {
			return
		}
		for id, pos := range m.base.All() {
			if _, ok := m.over[id]; ok || m.gone[id] {
				continue
			}
			if !yield(id, named[*objects.Entity]{lz: m.lz, pos: uint32(pos)}) {
				return
			}
		}
	}
}
