// The authored atoms the functional check reads, enumerated from the index
// rather than kept: a list of every authored atom with its claim cost about
// a hundred bytes per object of a compiled world (DL-0312), and the check
// reads only the binary ones, once per run.

package world

import (
	"iter"

	"github.com/deloreis/deloreis/objects"
)

// authoredPair is a binary authored atom and the claim it came from.
type authoredPair struct {
	pred, subj, val string
	claim           objects.ID
}

// binaryAtom is the binary atom lowerUnder makes of o, if it makes one:
// the only atoms of arity two among a claim's (the language lane's are
// wider, an entity's and an event's first atom unary).
func binaryAtom(o objects.Object) (pred, subj, val string, ok bool) {
	switch o := o.(type) {
	case *objects.Fact:
		return o.Key, o.Entity, o.Value, true
	case *objects.Relation:
		return o.Relation, o.From, o.To, true
	case *objects.Event:
		return predDuring, o.Ident, o.Era, true
	case *objects.Before:
		return predBefore, o.Earlier, o.Later, true
	case *objects.State:
		return o.Key, o.Entity, o.Value, true
	}
	return "", "", "", false
}

// binaryAuthored yields the binary authored atoms of the world in the
// order they were lowered (the index's), those an arity conflict left out
// excepted: a predicate's facts keep the arity of the first atom lowered,
// so a binary atom went in exactly when its predicate's facts are binary.
func (w *World) binaryAuthored() iter.Seq[authoredPair] {
	return func(yield func(authoredPair) bool) {
		binary := map[string]bool{}
		for e := range w.ix.entries.all() {
			pred, subj, val, ok := binaryAtom(e.Object)
			if !ok {
				continue
			}
			in, seen := binary[pred]
			if !seen {
				n, has := w.prog.FactArity(pred)
				in = has && n == 2
				binary[pred] = in
			}
			if in && !yield(authoredPair{pred, subj, val, e.ID}) {
				return
			}
		}
	}
}
