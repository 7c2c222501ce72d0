// The storage interface (Snapshot, ChangeSet, Store) and Mem, the
// in-memory Store.

package claims

import (
	"errors"
	"sort"
	"strconv"
	"sync"
)

// Snapshot is a read-only view of a store at one version.
type Snapshot interface {
	// Claims returns every claim at the cell, oldest first.
	Claims(c Cell) []Claim
	// Cells returns the cells of a kind that hold at least one claim,
	// ordered (Cell.Less).
	Cells(kind string) []Cell
	// Kinds returns the kinds that hold at least one claim, sorted.
	Kinds() []string
	// Clock is the last logical instant recorded; 0 for a new store.
	Clock() int64
	// Version names the store's state; every commit changes it (a
	// forget-only commit too, which leaves the clock alone).
	Version() string
}

// ChangeSet is what a Tx changed: the claims to add and the claims to
// remove, and the clock after them. Base is the version of the snapshot
// the changes were made against, for the store's compare-and-swap.
type ChangeSet struct {
	Base    string
	Clock   int64
	Adds    []Claim
	Removes []Claim
}

// Empty reports whether the change set changes nothing.
func (cs ChangeSet) Empty() bool { return len(cs.Adds) == 0 && len(cs.Removes) == 0 }

// ErrConflict is returned by Commit when the store moved since the
// snapshot the changes were made against.
var ErrConflict = errors.New("claims: the store changed since the snapshot (conflict)")

// Store is where claims live. The DKE service binds it to the lorestore
// (dke/<store_id>/); Mem keeps it in memory.
type Store interface {
	// Snapshot returns the current version.
	Snapshot() (Snapshot, error)
	// Commit applies a change set atomically and returns the version it
	// made, or returns ErrConflict when the store's version is no longer
	// cs.Base.
	Commit(cs ChangeSet) (string, error)
}

// Mem is an in-memory Store. Each commit makes a new version; snapshots
// taken earlier keep seeing theirs. Every cell keeps its history of claim
// lists by version, so a commit costs what it touches and a snapshot is a
// version number; nothing is ever trimmed (it is the tests' store).
type Mem struct {
	mu      sync.RWMutex
	version int
	clocks  []int64 // the clock after each version; clocks[0] is 0
	cells   map[Cell][]memVersion
	kinds   map[string]map[Cell]bool // every cell a kind ever held
}

// memVersion is a cell's claims from a version on.
type memVersion struct {
	version int
	claims  []Claim
}

// NewMem returns an empty in-memory store.
func NewMem() *Mem {
	return &Mem{clocks: []int64{0}, cells: map[Cell][]memVersion{}, kinds: map[string]map[Cell]bool{}}
}

// Snapshot implements Store.
func (m *Mem) Snapshot() (Snapshot, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return &memSnap{m: m, version: m.version, clock: m.clocks[m.version]}, nil
}

// Commit implements Store.
func (m *Mem) Commit(cs ChangeSet) (string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	clock := m.clocks[m.version]
	if cs.Base != memVersionName(m.version) {
		return "", ErrConflict
	}
	next := map[Cell][]Claim{}
	get := func(c Cell) []Claim {
		if cl, ok := next[c]; ok {
			return cl
		}
		return append([]Claim(nil), m.at(c, m.version)...)
	}
	for _, r := range cs.Removes {
		old := get(r.Cell)
		kept := old[:0]
		for _, c := range old {
			if !(c.At == r.At && c.Source == r.Source && c.Value.Equal(r.Value)) {
				kept = append(kept, c)
			}
		}
		next[r.Cell] = kept
	}
	for _, a := range cs.Adds {
		next[a.Cell] = insertSorted(get(a.Cell), a)
	}
	m.version++
	for c, cl := range next {
		m.cells[c] = append(m.cells[c], memVersion{version: m.version, claims: cl})
		if m.kinds[c.Kind] == nil {
			m.kinds[c.Kind] = map[Cell]bool{}
		}
		m.kinds[c.Kind][c] = true
	}
	if cs.Clock > clock {
		clock = cs.Clock
	}
	m.clocks = append(m.clocks, clock)
	return memVersionName(m.version), nil
}

// at returns the claims of c at version v; the caller holds the lock.
func (m *Mem) at(c Cell, v int) []Claim {
	h := m.cells[c]
	i := sort.Search(len(h), func(i int) bool { return h[i].version > v })
	if i == 0 {
		return nil
	}
	return h[i-1].claims
}

// Len returns the number of claims in the current version.
func (m *Mem) Len() int {
	m.mu.RLock()
	defer m.mu.RUnlock()
	n := 0
	for c := range m.cells {
		n += len(m.at(c, m.version))
	}
	return n
}

func insertSorted(cl []Claim, c Claim) []Claim {
	i := sort.Search(len(cl), func(i int) bool { return before(c, cl[i]) })
	cl = append(cl, Claim{})
	copy(cl[i+1:], cl[i:])
	cl[i] = c
	return cl
}

type memSnap struct {
	m       *Mem
	version int
	clock   int64
}

func (s *memSnap) Clock() int64 { return s.clock }

func (s *memSnap) Version() string { return memVersionName(s.version) }

func memVersionName(v int) string { return "mem:" + strconv.Itoa(v) }

func (s *memSnap) Claims(c Cell) []Claim {
	s.m.mu.RLock()
	defer s.m.mu.RUnlock()
	return append([]Claim(nil), s.m.at(c, s.version)...)
}

func (s *memSnap) Cells(kind string) []Cell {
	s.m.mu.RLock()
	defer s.m.mu.RUnlock()
	out := make([]Cell, 0, len(s.m.kinds[kind]))
	for c := range s.m.kinds[kind] {
		if len(s.m.at(c, s.version)) > 0 {
			out = append(out, c)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Less(out[j]) })
	return out
}

func (s *memSnap) Kinds() []string {
	s.m.mu.RLock()
	defer s.m.mu.RUnlock()
	var out []string
	for k, cells := range s.m.kinds {
		for c := range cells {
			if len(s.m.at(c, s.version)) > 0 {
				out = append(out, k)
				break
			}
		}
	}
	sort.Strings(out)
	return out
}
