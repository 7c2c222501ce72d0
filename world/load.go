// Loading a scope from a lorestore snapshot as the committed base of a
// world.

package world

import "github.com/deloreis/deloreis/lorestore"

// LoadScope reads every object of one scope of a snapshot (claims,
// decisions, attacks and standing revisions) as committed entries.
func LoadScope(sn *lorestore.Snapshot, scope string) ([]Entry, error) {
	var out []Entry
	for _, k := range lorestore.Kinds {
		es, err := sn.Objects(scope, k)
		if err != nil {
			return nil, err
		}
		for _, e := range es {
			out = append(out, Entry{ID: e.ID, Object: e.Object})
		}
	}
	return out, nil
}
