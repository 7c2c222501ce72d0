// Lowering: lore objects become datalog facts and clauses (DESIGN.md
// section 4), each annotated with its claim's support. Predicate identity
// becomes annotated bridging rules; entity identity becomes @sameas facts,
// and bridging rules only for the predicates rules read (the rest is
// closed at read time, closure.go), so that defeating the citing decision
// un-merges on the next read with no re-fixpoint.

package world

import (
	"errors"
	"fmt"
	"maps"
	"runtime"
	"slices"
	"sort"
	"sync/atomic"

	"github.com/deloreis/deloreis/datalog"
	"github.com/deloreis/deloreis/objects"
)

// Internal predicates. '@' cannot occur in an id, so they never collide
// with a lore predicate.
const (
	predSameAs = "@sameas" // an authored same-as claim, left to right
	predSame   = "@same"   // its symmetric-transitive closure
	predEvent  = "event"
	predDuring = "during"
	predBefore = "before"
)

// lower builds the program of the world into p, a new program: authored
// atoms, rules, identity.
func (w *World) lower(p *datalog.Program) (*datalog.Program, error) {
	return w.lowerFrom(p, nil)
}

// lowerFrom is lower with the entries' own part taken from el instead of
// walking every entry, when el is not nil (a compiled world's, DL-0386).
func (w *World) lowerFrom(p *datalog.Program, el *entryLowering) (*datalog.Program, error) {
	p.SetBounds(datalog.Bounds{MaxStratumMonomials: stratumBudget(w.ix.entries.n)})
	w.groups[groupArityClaims] = nil // lowering again (a rule left out) finds them again
	if el != nil {
		if err := w.replayEntries(p, el); err != nil {
			return nil, err
		}
	} else if err := w.lowerEntries(p); err != nil {
		return nil, err
	}
	for _, q := range sortedQuestions(w.ix) {
		for _, opt := range q.Options {
			if opt.Implies != nil {
				if err := p.AddFact(opt.Implies.Pred, opt.Implies.Args, datalog.VarPoly(optionVar(opt.Ident))); err != nil {
					if !w.arityConflict(err, opt.Implies.Pred, len(opt.Implies.Args), w.ix.questions[q.Ident].id()) {
						return nil, err
					}
					continue
				}
				w.arity.note(opt.Implies.Pred, len(opt.Implies.Args))
			}
		}
	}
	w.lowerRules(p)
	if err := w.lowerIdentity(p); err != nil {
		return nil, err
	}
	w.lowerPredicateIdentity(p)
	return p, nil
}

// lowerEntries lowers every entry's atoms into p and records what that
// left in the world (the arities the atoms use, and the findings of atoms
// left out) as w.lowered, for a compiled section (entryLowering).
func (w *World) lowerEntries(p *datalog.Program) error {
	entryWalks.Add(1)
	add, flush, closePipe := w.factAdder(p)
	defer closePipe()
	var batch [lowerBatch]Entry
	n := 0
	lowerBatched := func() error {
		touchEntries(batch[:n])
		for _, e := range batch[:n] {
			if err := w.lowerOne(e, add); err != nil {
				return err
			}
		}
		n = 0
		return nil
	}
	for e := range w.ix.entries.all() {
		batch[n] = e
		if n++; n == lowerBatch {
			if err := lowerBatched(); err != nil {
				return err
			}
		}
	}
	if err := lowerBatched(); err != nil {
		return err
	}
	if err := flush(); err != nil {
		return err
	}
	closePipe()
	el := &entryLowering{ix: w.ix, arity: make(map[string]int, w.arity.len())}
	for pred, ns := range w.arity.all() {
		for n := range ns {
			el.arity[pred] = n // one each: an atom of another arity is left out
		}
	}
	el.claims = slices.Clone(w.groups[groupArityClaims])
	w.lowered = el
	return nil
}

// lowerBatch is how many entries lowering reads ahead (touchEntries).
const lowerBatch = 32

// touchEntries reads the objects of es, then the first bytes of the
// strings they hold that lowering hashes, each kind of read for all of
// them before the next. The objects and their strings lie all over the
// heap (a scope's entries are in id order, not the order they were
// made in): reads that do not wait on one another let their cache misses
// overlap, where lowering one entry after another waits out each.
func touchEntries(es []Entry) {
	var strs [3 * lowerBatch]string
	n := 0
	for _, e := range es {
		switch o := e.Object.(type) {
		case *objects.Fact:
			strs[n], strs[n+1], strs[n+2] = o.Entity, o.Value, o.Key
			n += 3
		case *objects.Relation:
			strs[n], strs[n+1] = o.From, o.To
			n += 2
		case *objects.Entity:
			strs[n] = o.Ident
			n++
		}
	}
	var x byte
	for _, s := range strs[:n] {
		if len(s) > 0 {
			x ^= s[0]
		}
	}
	runtime.KeepAlive(x)
}

// entryWalks counts the walks of lowerEntries, for tests.
var entryWalks atomic.Int64

// entryLowering is what lowering a world's entries leaves besides the
// program's facts (DL-0386): the arity each predicate of an entry's atom
// has, and the arity-claim findings of the atoms left out. A compiled
// section keeps it, so that a world restored from one lowers its rules
// and identity over the arities instead of walking every entry again.
type entryLowering struct {
	ix     *index // the index it was taken from: another world's does not count
	arity  map[string]int
	claims []Finding
}

// replayEntries declares in p the predicates el says the entries use, and
// takes its arities and findings as lowerEntries would have left them.
func (w *World) replayEntries(p *datalog.Program, el *entryLowering) error {
	preds := slices.Sorted(maps.Keys(el.arity))
	for _, pred := range preds {
		if _, err := p.FactPred(pred, el.arity[pred]); err != nil {
			return err
		}
		w.arity.note(pred, el.arity[pred])
	}
	w.groups[groupArityClaims] = slices.Clone(el.claims)
	w.lowered = &entryLowering{ix: w.ix, arity: el.arity, claims: el.claims}
	return nil
}

// entryLoweringOf returns what lowering w's entries leaves: the record of
// its own lowering when that was of this index, else a walk of the
// entries into a program that keeps no facts.
func (w *World) entryLoweringOf() (*entryLowering, error) {
	if w.lowered != nil && w.lowered.ix == w.ix {
		return w.lowered, nil
	}
	s := &World{ix: w.ix, attacked: w.attacked, arity: newArities(), groups: map[string][]Finding{}}
	if err := s.lowerEntries(datalog.NewShapeProgram()); err != nil {
		return nil, err
	}
	return s.lowered, nil
}

// factAdder returns lower's sink for authored atoms, the flush that
// adds what it holds, and the close after which p is the caller's again.
// Each predicate is resolved once for the facts after its first
// (DL-0368): a world adds millions of facts over a few predicates, and
// each used to pay lookups of the name in the program and a write to the
// arity table. The facts of resolved predicates wait in a batch, whose
// constants the program interns a batch at a time (DL-0367) and puts into
// their relations on a goroutine of its own while the next batch is made
// (datalog.FactPipe, DL-0383); the order of the facts is kept. An atom
// that conflicts with its predicate's arity is left out, with a finding:
// one bad claim must not brick the world.
func (w *World) factAdder(p *datalog.Program) (add func(objects.ID, datalog.Poly, string, ...string) error, flush func() error, closePipe func()) {
	known := map[string]datalog.FactPred{} // resolved, with the arity noted
	var batch datalog.FactBatch
	pipe := p.Pipe()
	flush = func() error { return pipe.Add(&batch) }
	add = func(id objects.ID, s datalog.Poly, pred string, args ...string) error {
		if fp, ok := known[pred]; ok && fp.Arity() == len(args) {
			batch.Add(fp, args, s)
			if batch.Len() == factBatch {
				return flush()
			}
			return nil
		}
		if err := flush(); err != nil { // the facts before this one come first
			return err
		}
		pipe.Wait() // the program is read and changed here
		if err := p.AddFact(pred, args, s); err != nil {
			if !w.arityConflict(err, pred, len(args), id) {
				return err
			}
			return nil
		}
		w.arity.note(pred, len(args))
		if _, ok := known[pred]; !ok {
			fp, err := p.FactPred(pred, len(args)) // cannot fail: AddFact just passed
			if err != nil {
				return err
			}
			known[pred] = fp
		}
		return nil
	}
	return add, flush, pipe.Close
}

// factBatch is how many facts lowering hands the program at once.
const factBatch = 1024

// stratumBudget is the most monomials one stratum may hold exactly in a
// world of n objects before its evaluation spills (DL-0366): the datalog
// default, doubled until it is at least twice the objects. A small world
// keeps the default, so a few kilobytes of lore still cannot hold more; a
// 10M-object world's recursion (4M monomials in the bench world) stays
// exact, and so incremental: a spilled stratum is evaluated again whole on
// every staged add that reaches it. Powers of two, so that a world and
// the world advanced from it almost always agree (Advance compiles afresh
// when they do not).
func stratumBudget(n int) int {
	b := datalog.DefaultBounds().MaxStratumMonomials
	for b < 2*n {
		b <<= 1
	}
	return b
}

// lowerOne lowers one claim to its atoms.
func (w *World) lowerOne(e Entry, add func(objects.ID, datalog.Poly, string, ...string) error) error {
	return lowerUnder(w.attacked, e, add)
}

// lowerUnder lowers one claim to its atoms, with the supports they have
// when attacked names the decisions attacked per claim.
func lowerUnder(attacked map[objects.ID]map[string]bool, e Entry, add func(objects.ID, datalog.Poly, string, ...string) error) error {
	support := func(p *objects.Provenance) datalog.Poly { return supportUnder(attacked, e.ID, p) }
	switch o := e.Object.(type) {
	case *objects.Entity:
		return add(e.ID, support(o.Provenance), string(o.Kind), o.Ident)
	case *objects.Fact:
		return add(e.ID, support(o.Provenance), o.Key, o.Entity, o.Value)
	case *objects.Relation:
		return add(e.ID, support(o.Provenance), o.Relation, o.From, o.To)
	case *objects.Event:
		s := support(o.Provenance)
		if err := add(e.ID, s, predEvent, o.Ident); err != nil {
			return err
		}
		return add(e.ID, s, predDuring, o.Ident, o.Era)
	case *objects.Before:
		return add(e.ID, support(o.Provenance), predBefore, o.Earlier, o.Later)
	case *objects.State:
		return add(e.ID, support(o.Provenance), o.Key, o.Entity, o.Value)
	}
	return lowerLanguage(e, support, add) // language.go
}

func sortedQuestions(ix *index) []*objects.Question {
	qs := make([]*objects.Question, 0, len(ix.questions))
	for _, q := range ix.questions {
		qs = append(qs, q.object())
	}
	sort.Slice(qs, func(i, j int) bool { return qs[i].Ident < qs[j].Ident })
	return qs
}

// lowerRules adds every rule the checks let through.
func (w *World) lowerRules(p *datalog.Program) {
	for _, e := range w.ix.rules {
		r := e.Object.(*objects.Rule)
		if w.droppedRules[r.Name] {
			continue
		}
		dr := toDatalogRule(r, scopedSupport(e.ID, r.Provenance))
		if err := p.AddRule(dr); err != nil {
			w.dropRule(r.Name, err)
			continue
		}
		w.arity.note(r.Head.Pred, len(r.Head.Args))
		for _, l := range r.Body {
			w.arity.note(l.Atom.Pred, len(l.Atom.Args))
		}
	}
}

func toDatalogRule(r *objects.Rule, support datalog.Poly) datalog.Rule {
	dr := datalog.Rule{Name: r.Name, Head: toAtom(r.Head), Support: support}
	for _, l := range r.Body {
		dr.Body = append(dr.Body, datalog.Literal{Atom: toAtom(l.Atom), Negated: l.Negated})
	}
	return dr
}

func toAtom(a objects.Atom) datalog.Atom {
	out := datalog.Atom{Pred: a.Pred, Args: make([]datalog.Term, len(a.Args))}
	for i, t := range a.Args {
		out.Args[i] = datalog.Term{Var: t.Var, Const: t.Const}
	}
	return out
}

// lowerIdentity adds the same-as claims and, when there are any and a
// rule reads a predicate identity carries, the closure rules and, for
// each such predicate and argument position, a rule that carries a fact
// across an identity: the rules must join over identity. Each derived
// fact's support is multiplied by the identity's, so a defeated same-as
// un-merges. Every other predicate is closed when it is read (closure.go).
func (w *World) lowerIdentity(p *datalog.Program) error {
	n := 0
	for e := range each(w.ix.sameAs) {
		args, ok := w.sameAsAtom(e)
		if !ok {
			continue
		}
		if err := p.AddFact(predSameAs, args, w.support(e.ID, e.Object.(*objects.SameAs).Provenance)); err != nil {
			return err
		}
		n++
	}
	carry := w.engineCarry(w.arity)
	w.identityActive = n > 0 && len(carry) > 0
	w.carry = nil
	if !w.identityActive {
		return nil
	}
	w.carry = carry
	x, y, z := datalog.Term{Var: "X"}, datalog.Term{Var: "Y"}, datalog.Term{Var: "Z"}
	rules := []datalog.Rule{
		{Name: "@same-forward", Head: datalog.Atom{Pred: predSame, Args: []datalog.Term{x, y}},
			Body: []datalog.Literal{{Atom: datalog.Atom{Pred: predSameAs, Args: []datalog.Term{x, y}}}}},
		{Name: "@same-backward", Head: datalog.Atom{Pred: predSame, Args: []datalog.Term{x, y}},
			Body: []datalog.Literal{{Atom: datalog.Atom{Pred: predSameAs, Args: []datalog.Term{y, x}}}}},
		{Name: "@same-transitive", Head: datalog.Atom{Pred: predSame, Args: []datalog.Term{x, z}},
			Body: []datalog.Literal{
				{Atom: datalog.Atom{Pred: predSame, Args: []datalog.Term{x, y}}},
				{Atom: datalog.Atom{Pred: predSame, Args: []datalog.Term{y, z}}}}},
	}
	preds := make([]string, 0, len(carry))
	for pred := range carry {
		preds = append(preds, pred)
	}
	sort.Strings(preds)
	for _, pred := range preds {
		for i := 0; i < carry[pred]; i++ {
			rules = append(rules, carryRule(pred, carry[pred], i))
		}
	}
	for _, r := range rules {
		r.Support = datalog.One()
		if err := p.AddRule(r); err != nil {
			return fmt.Errorf("world: identity rule %s: %w", r.Name, err)
		}
	}
	return nil
}

// engineCarry is the set of predicates the program must carry across
// identity under the arity table ar, with their arities: those a rule in
// the program reads (positively or under negation) and identity carries.
// The legacy lowering carries every predicate identity carries.
func (w *World) engineCarry(ar arities) map[string]int {
	out := map[string]int{}
	if w.legacy {
		for _, pred := range ar.preds() {
			if carried(pred) && ar.of(pred) > 0 {
				out[pred] = ar.of(pred)
			}
		}
		return out
	}
	for _, e := range w.ix.rules {
		r := e.Object.(*objects.Rule)
		if w.droppedRules[r.Name] {
			continue
		}
		for _, l := range r.Body {
			if carried(l.Atom.Pred) && ar.of(l.Atom.Pred) > 0 {
				out[l.Atom.Pred] = ar.of(l.Atom.Pred)
			}
		}
	}
	return out
}

// sameAsAtom is the @sameas atom a same-as claim lowers to; ok is false
// for a self-merge (a no-op) and for the chronology spine (refused).
func (w *World) sameAsAtom(e Entry) (args []string, ok bool) {
	s := e.Object.(*objects.SameAs)
	if s.Left == s.Right || w.temporal(s.Left) || w.temporal(s.Right) {
		return nil, false
	}
	return []string{s.Left, s.Right}, true
}

// identityCarries reports whether facts of pred follow an identity: lore
// predicates do; the chronology (events, eras, order) does not, since
// identity over the chronology spine is refused.
func (w *World) identityCarries(pred string) bool {
	return carried(pred) && w.arity.of(pred) > 0
}

// declaredArity is the set of arities the world's rules (those in the
// program) and its questions' current options use pred with: what the
// arity table holds for a predicate with no facts.
func (w *World) declaredArity(pred string) map[int]bool {
	ns := map[int]bool{}
	for _, e := range w.ix.rules {
		r := e.Object.(*objects.Rule)
		if w.droppedRules[r.Name] {
			continue
		}
		if r.Head.Pred == pred {
			ns[len(r.Head.Args)] = true
		}
		for _, l := range r.Body {
			if l.Atom.Pred == pred {
				ns[len(l.Atom.Args)] = true
			}
		}
	}
	for _, q := range w.ix.questions {
		for _, opt := range q.object().Options {
			if opt.Implies != nil && opt.Implies.Pred == pred {
				ns[len(opt.Implies.Args)] = true
			}
		}
	}
	return ns
}

// carried reports whether a predicate is one identity may carry at all.
func carried(pred string) bool {
	switch pred {
	case predEvent, predDuring, predBefore, predSameAs, predSame, string(objects.KindEra):
		return false
	}
	return true
}

// carryRule is pred(…Y…) :- pred(…X…), @same(X, Y) at argument position i.
func carryRule(pred string, arity, i int) datalog.Rule {
	head := make([]datalog.Term, arity)
	body := make([]datalog.Term, arity)
	for j := 0; j < arity; j++ {
		v := datalog.Term{Var: fmt.Sprintf("A%d", j)}
		head[j], body[j] = v, v
	}
	head[i] = datalog.Term{Var: "Y"}
	body[i] = datalog.Term{Var: "X"}
	return datalog.Rule{
		Name: fmt.Sprintf("@carry-%s-%d", pred, i),
		Head: datalog.Atom{Pred: pred, Args: head},
		Body: []datalog.Literal{
			{Atom: datalog.Atom{Pred: pred, Args: body}},
			{Atom: datalog.Atom{Pred: predSame, Args: []datalog.Term{{Var: "X"}, {Var: "Y"}}}},
		},
	}
}

// temporal reports whether an id names an era or an event.
func (w *World) temporal(id string) bool {
	_, ev := w.ix.events[id]
	return ev || w.ix.isEra(id)
}

// lowerPredicateIdentity adds, for each predicate same-as claim whose
// arity is known and agrees, the two rules that make each predicate imply
// the other under the claim's support. Chaining gives the closure.
func (w *World) lowerPredicateIdentity(p *datalog.Program) {
	for _, e := range w.ix.predSameAs {
		for _, r := range w.predIdentityRulesOf(e, w.arity) {
			if err := p.AddRule(r); err == nil {
				w.predIdentityRules++
			}
		}
	}
}

// predIdentityRulesOf is the pair of rules one predicate same-as claim
// lowers to under the arity table ar: none for a self-claim, or while the
// arity is unknown or conflicting (see the checks).
func (w *World) predIdentityRulesOf(e Entry, ar arities) []datalog.Rule {
	ps := e.Object.(*objects.PredicateSameAs)
	if ps.Left == ps.Right {
		return nil
	}
	n, ok := ar.agree(ps.Left, ps.Right)
	if !ok {
		return nil
	}
	s := scopedSupport(e.ID, ps.Provenance)
	var out []datalog.Rule
	for _, dir := range [][2]string{{ps.Left, ps.Right}, {ps.Right, ps.Left}} {
		args := make([]datalog.Term, n)
		for j := range args {
			args[j] = datalog.Term{Var: fmt.Sprintf("A%d", j)}
		}
		out = append(out, datalog.Rule{
			Name:    fmt.Sprintf("@pred-%s-%s-%s", dir[0], dir[1], e.ID.String()[:12]),
			Head:    datalog.Atom{Pred: dir[1], Args: args},
			Body:    []datalog.Literal{{Atom: datalog.Atom{Pred: dir[0], Args: args}}},
			Support: s,
		})
	}
	return out
}

// arityConflict reports whether err is a predicate used with two numbers
// of arguments; if so the atom is left out of the world and the claim that
// asserts it gets a predicate.arity-conflict finding. The claim lowered
// first (committed before staged, then by object id) keeps the predicate.
func (w *World) arityConflict(err error, pred string, n int, claim objects.ID) bool {
	var de *datalog.Error
	if !errors.As(err, &de) || de.Code != datalog.CodeArityMismatch {
		return false
	}
	f := newFinding(CodeArityConflict, "%s is used with another number of arguments elsewhere in the world; this claim's %s(…) with %d is left out. Rename one of the uses.", pred, pred, n)
	f.Citations = []string{claim.String()}
	f.Data = map[string]any{"predicate": pred, "arity": n}
	w.emit(groupArityClaims, f)
	return true
}
