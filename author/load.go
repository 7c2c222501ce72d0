// Loading worlds from the store: a scope at a commit as committed entries,
// its compiled world, and the world conflicts a merge commit brought. This
// is where a lorestore snapshot becomes world input; package world never
// reads a store.

package author

import (
	"github.com/deloreis/deloreis/base/hugemem"
	"github.com/deloreis/deloreis/base/phases"
	"github.com/deloreis/deloreis/lorestore"
	"github.com/deloreis/deloreis/world"
)

// LoadScope reads every object of one scope of a snapshot (claims,
// decisions, attacks and standing revisions) as committed entries. Every
// section is listed before any is read, so the entries are read straight
// into one slice of the exact size: a large scope is held once.
func LoadScope(sn *lorestore.Snapshot, scope string) ([]world.Entry, error) {
	endList := phases.Start(PhaseList)
	ls := make([]lorestore.Listing, len(lorestore.Kinds))
	n := 0
	for i, k := range lorestore.Kinds {
		l, err := sn.List(scope, k)
		if err != nil {
			return nil, err
		}
		ls[i], n = l, n+l.Len()
	}
	endList()
	defer phases.Start(PhaseRead)()
	// Backed at once, in huge pages where it is large: written entry by
	// entry, a 10M-entry scope's 560 MB faulted in 4 KiB at a time cost
	// about 1.7 s of the read's CPU (DL-0388).
	out := hugemem.Make[world.Entry](n)
	at := 0
	for i := range ls {
		part := out[at : at+ls[i].Len()]
		if err := ls[i].ReadInto(func(j int, e lorestore.Entry) { part[j] = world.Entry{ID: e.ID, Object: e.Object} }); err != nil {
			return nil, err
		}
		at += len(part)
		ls[i] = lorestore.Listing{} // its files are read: let the listing go
	}
	return out, nil
}

// The phases of reading a scope (DL-0503): its trees listed, then its
// objects read from the packs and decoded.
const (
	PhaseList = "read: list the scope's trees"
	PhaseRead = "read: pack sweep and decode"
)

// CompileAt compiles one scope of the snapshot at a commit.
func CompileAt(s *lorestore.Store, commit lorestore.Hash, scope string) (*world.World, error) {
	return compileAtWith(s, commit, scope, nil, fileBeside{})
}

// ScopeConflicts reports, for every scope of the merged commit, the
// conflicts merging ours and theirs over base brought (see
// world.MergeConflicts). Scopes without conflicts are left out. Only the
// base is compiled: both sides are derived from it, and the merge from
// ours, by their scope diffs (DL-0284).
func ScopeConflicts(s *lorestore.Store, base, ours, theirs, merged lorestore.Hash) (map[string][]world.Conflict, error) {
	sn, err := s.SnapshotAt(merged)
	if err != nil {
		return nil, err
	}
	scopes, err := sn.Scopes()
	if err != nil {
		return nil, err
	}
	out := map[string][]world.Conflict{}
	for _, scope := range scopes {
		ws, err := mergeWorlds(s, base, ours, theirs, merged, scope)
		if err != nil {
			return nil, err
		}
		if cs := world.MergeConflicts(ws[0], ws[1], ws[2], ws[3]); len(cs) > 0 {
			out[scope] = cs
		}
	}
	return out, nil
}

// mergeWorlds is the world of scope at base (compiled), ours and theirs
// (advanced from base) and merged (advanced from ours, the objects it
// brought taken from theirs).
func mergeWorlds(s *lorestore.Store, base, ours, theirs, merged lorestore.Hash, scope string) ([4]*world.World, error) {
	var ws [4]*world.World
	var err error
	if ws[0], err = CompileAt(s, base, scope); err != nil {
		return ws, err
	}
	if ws[1], _, err = advanceTo(s, base, ws[0], ours, scope, nil); err != nil {
		return ws, err
	}
	if ws[2], _, err = advanceTo(s, base, ws[0], theirs, scope, nil); err != nil {
		return ws, err
	}
	ws[3], _, err = advanceTo(s, ours, ws[1], merged, scope, ws[2])
	return ws, err
}
