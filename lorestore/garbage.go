package lorestore

import "github.com/deloreis/deloreis/lorestore/odb"

// Garbage is a file in objects/ that no reader uses (DL-0438).
type Garbage = odb.Garbage

// Garbage lists the temporary files of writers that did not finish and
// the packs whose index never came, older than odb.GarbageAge and held by
// no live writer. They cost disk, never correctness: every reader skips
// them, as git does.
func (s *Store) Garbage() ([]Garbage, error) { return s.db.Garbage(odb.GarbageAge) }

// GC removes what Garbage lists and returns it. A store pinned read-only
// is refused.
func (s *Store) GC() ([]Garbage, error) {
	if s.ReadOnly() {
		return nil, ErrReadOnly
	}
	return s.db.RemoveGarbage(odb.GarbageAge)
}
