// What the standing ops and canon export read of a world: the atoms a
// claim lowers to and their support paths, the decisions a path names, the
// recorded decisions, the attack graph of a claim, and every object in
// order. The ledger ops judge a ruling by these; none of them changes a
// world.

package world

import (
	"iter"
	"sort"
	"strings"

	"github.com/deloreis/deloreis/datalog"
	"github.com/deloreis/deloreis/objects"
)

// ClaimAtom is one ground atom a claim lowers to.
type ClaimAtom struct {
	Pred string
	Args []string
}

// ClaimAtoms lists the atoms a claim of the world lowers to (an event
// lowers to two), in lowering order; none for an unknown id or an object
// that lowers to no atom (declarations, ledger records, rules).
func (w *World) ClaimAtoms(id objects.ID) []ClaimAtom {
	e, ok := w.ix.byID.get(id)
	if !ok {
		return nil
	}
	var out []ClaimAtom
	_ = lowerUnder(w.attacked, *e, func(_ objects.ID, _ datalog.Poly, pred string, args ...string) error {
		out = append(out, ClaimAtom{Pred: pred, Args: append([]string(nil), args...)})
		return nil
	})
	return out
}

// SupportPaths is every support path of every atom the claim lowers to,
// each path a sorted list of provenance literals, as Why gives them (so
// another claim of the same atom adds its paths). A claim that lowers to
// no atom (a rule, a same-as link, a declaration) has the paths of its
// own support. Paths of a truncated explanation are cut: truncated
// reports it.
func (w *World) SupportPaths(id objects.ID) (paths [][]string, truncated bool) {
	atoms := w.ClaimAtoms(id)
	if len(atoms) == 0 {
		e, ok := w.ix.byID.get(id)
		if !ok {
			return nil, false
		}
		p, ok := objects.ProvenanceOf(e.Object)
		if !ok {
			return nil, false
		}
		return w.support(id, p).Monomials(), false
	}
	for _, a := range atoms {
		why := w.Why(a.Pred, a.Args...)
		paths = append(paths, why.Paths...)
		truncated = truncated || why.Truncated
	}
	return paths, truncated
}

// PathDecisions lists the decisions a support path names, by their
// recorded ids: a literal "d:<decision>" or a claim-scoped
// "d:<decision>@<claim>" names <decision>.
func PathDecisions(path []string) []string {
	var out []string
	for _, lit := range path {
		if d, ok := strings.CutPrefix(lit, "d:"); ok {
			d, _, _ = strings.Cut(d, "@")
			out = append(out, d)
		}
	}
	return out
}

// Decision returns the recorded decision of an id, with its object id.
func (w *World) Decision(ident string) (*objects.Decision, objects.ID, bool) {
	n, ok := w.ix.decisions[ident]
	return n.object(), n.id(), ok
}

// DecisionIDs lists the recorded decision ids, sorted.
func (w *World) DecisionIDs() []string {
	out := make([]string, 0, len(w.ix.decisions))
	for d := range w.ix.decisions {
		out = append(out, d)
	}
	sort.Strings(out)
	return out
}

// AttackGraph lists the attack edges (attacker, target) about one claim,
// in index order.
func (w *World) AttackGraph(claim objects.ID) [][2]string {
	return append([][2]string(nil), w.attacks[claim]...)
}

// Attacks lists every attack of the world, in id order.
func (w *World) Attacks() []Entry {
	return append([]Entry(nil), w.ix.attacks...)
}

// Objects yields every object of the world, committed ones first, each
// part in id order.
func (w *World) Objects() iter.Seq[Entry] {
	return w.ix.entries.all()
}

// ObjectsByID yields every object of the world in id order, committed
// and staged together: the order a lazily read base must be in (a world
// file written in it can be opened lazily).
func (w *World) ObjectsByID() iter.Seq[Entry] {
	return func(yield func(Entry) bool) {
		for _, e := range w.ix.byID.each() {
			if !yield(e) {
				return
			}
		}
	}
}

// LedgerRecords lists the attacks, standing revisions and ratify records
// of the world: the objects that name claims by their ids.
func (w *World) LedgerRecords() []Entry {
	out := make([]Entry, 0, len(w.ix.attacks)+len(w.ix.standing)+len(w.ix.ratify))
	out = append(out, w.ix.attacks...)
	out = append(out, w.ix.standing...)
	return append(out, w.ix.ratify...)
}
