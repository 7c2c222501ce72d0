// The World: compiling a scope into a graded model, and reading grades,
// answers and explanations from it.

package world

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"maps"
	"slices"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/deloreis/deloreis/base/phases"
	"github.com/deloreis/deloreis/datalog"
	"github.com/deloreis/deloreis/objects"
)

// Input is what a world is compiled from: the committed objects of one
// scope (from a lorestore snapshot), the objects a workspace has staged
// over them, and the hypotheses supposed true in a fork.
type Input struct {
	Scope    string
	Base     []Entry          // committed objects
	Staged   []objects.Object // not yet committed, in staging order
	Supposed []string         // hypothesis ids supposed true (fork workspaces)
	// Dialects are the dialects the project file configures: the naming
	// oracle's fallback for a dialect the scope does not declare.
	Dialects []*objects.Dialect
	// Owned hands Base over to Compile, which may then reorder it and keep
	// it as the world's own storage instead of copying it: the caller
	// must never read or write Base again. A large scope loaded for one
	// compile is handed over, so that it is not held twice.
	Owned bool
	// Indexed, when set, is called once the input is indexed and before
	// the program is lowered, with the world's entries (committed and
	// staged, in id order): work over the entries alone, such as writing
	// them out, can then run beside the rest of the compile (DL-0373).
	// The sequence stays valid while and after Compile runs; Indexed is
	// called on Compile's goroutine and must hand slow work to another.
	Indexed func(entries iter.Seq[Entry])
	// Compiled, when set, is a snapshot WriteCompiled wrote of the world
	// of the same input, loaded: Compile lowers the input into a program
	// that keeps no facts and, when the snapshot's program has that shape
	// (the same rules, arities and bounds), takes the snapshot's program
	// and model instead of lowering and evaluating (DL-0384). Otherwise it
	// evaluates as without one. A Compiled is used by one Compile.
	Compiled *Compiled
	// Lazy, when set, is the committed objects read where they are kept,
	// in place of Base (which must then be empty, as Staged must): the
	// world decodes each only when something reads it (DL-0395). A
	// restore from Compiled reads none of them; a compile that evaluates
	// (a file another build wrote, DL-0400) reads them all, a leaf at a
	// time, and holds none of them decoded.
	Lazy EntryBase
	// RestoreOnly, with Compiled, makes a snapshot that does not load or
	// fit an error (ErrNotRestored) instead of an evaluation: a caller
	// reading its entries in place would rather decode them and evaluate
	// than evaluate over them and keep the mapping for nothing.
	RestoreOnly bool
	// Rebase, when set, is asked once the program is lowered and before
	// it is evaluated for the committed entries again, read where they
	// are kept: the world file written beside the compile (DL-0532). The
	// world then reads them there, as a world restored from its file
	// does, and lets go of the decoded ones, which would otherwise be
	// held through the evaluation and raise its peak. It returns nil when
	// it has no base; done, when not nil, is told whether the world took
	// it. It is told how many entries the world holds. Only a compile of
	// committed entries alone (no Staged, Lazy or Compiled) asks.
	Rebase func(n int) (base EntryBase, done func(taken bool))
	// Context, when set, bounds the evaluation: when it is done the
	// compile stops with an error wrapping datalog's eval.canceled
	// (DL-0427). nil is no bound.
	Context context.Context

	// legacy lowers entity identity as before DL-0040: the closure and a
	// carry rule per predicate in the program. Tests compare against it.
	legacy bool
}

// World is a compiled, graded scope. It never changes; a new staged layer
// compiles a new World.
type World struct {
	scope    string
	ix       *index
	supposed []string

	attacks  map[objects.ID][][2]string     // attack edges per claim
	attacked map[objects.ID]map[string]bool // decisions attacked per claim

	arity             arities
	droppedRules      map[string]bool
	predIdentityRules int
	identityActive    bool           // the entity identity rules are in the program
	carry             map[string]int // the predicates they carry, with arities
	legacy            bool           // identity lowered as rules for every predicate (tests)

	closureOnce sync.Once
	idc         *idClosure // identity closed at read time, built on first use
	idBuilt     atomic.Bool
	// A world staged from idParent by adding only the same-as claims
	// idLinks derives its closure from idParent's (closure_derive.go);
	// idDepth counts the staged worlds back to one whose closure was read.
	idParent *World
	idLinks  []Entry
	idDepth  int

	prog   *datalog.Program
	model  *datalog.Model
	val    valuation
	groups map[string][]Finding // findings by check group

	findingsOnce sync.Once
	findings     []Finding // all groups, sorted; built on first use

	knownMu sync.Mutex // the entry checks ask for candidates from several goroutines
	known   []string   // sorted entity and event ids, for candidates; built on first use

	lowered *entryLowering // what lowering the entries left, when this world lowered them

	arityDropped int  // rules left out for a predicate's other arity (see hasArityConflicts)
	restored     bool // the program and model came from Input.Compiled

	dialects []*objects.Dialect // configured by the project (Input.Dialects)

	evalCtx context.Context // bounds the evaluation while the world is built (Input.Context, StageContext); nil after
	rebase  func()          // moves the entries onto Input.Rebase's base once lowered; nil after
}

// eval evaluates p under the world's evaluation context, if any.
func (w *World) eval(p *datalog.Program) (*datalog.Model, error) {
	if w.evalCtx == nil || w.evalCtx.Done() == nil {
		return p.Eval() // nothing can stop it
	}
	return p.EvalContext(w.evalCtx, datalog.Limits{})
}

// Compile builds the world of an input: index, lower, evaluate, value and
// check. Errors are reserved for failures of the machinery; everything
// wrong with the lore itself is a finding.
func Compile(in Input) (*World, error) {
	endIndex := phases.Start(PhaseIndex)
	entries := in.Base
	if !in.Owned || len(in.Staged) > 0 {
		// newIndex sorts and keeps its input: give it a copy of ours.
		entries = make([]Entry, 0, len(in.Base)+len(in.Staged))
		entries = append(entries, in.Base...)
	}
	for _, o := range in.Staged {
		id, err := o.ID()
		if err != nil {
			return nil, fmt.Errorf("world: staged %s: %w", o.Type(), err)
		}
		entries = append(entries, Entry{ID: id, Object: o, Staged: true})
	}
	var ix *index
	if in.Lazy != nil {
		if len(entries) > 0 {
			return nil, errors.New("world: objects both read lazily and given")
		}
		var err error
		if ix, err = newLazyIndex(in.Lazy); err != nil {
			return nil, err
		}
	} else {
		ix = newIndex(entries)
	}
	w := &World{
		scope:        in.Scope,
		ix:           ix,
		supposed:     append([]string(nil), in.Supposed...),
		arity:        newArities(),
		droppedRules: map[string]bool{},
		legacy:       in.legacy,
		dialects:     in.Dialects,
		evalCtx:      in.Context,
	}
	sort.Strings(w.supposed)
	endIndex()
	if in.Indexed != nil {
		in.Indexed(w.ix.entries.all())
	}
	w.groups = map[string][]Finding{}
	w.attacks = w.ix.attacksByClaim()
	w.attacked = attackedDecisions(w.attacks)
	w.checkRuleNames()
	var entryChecks func() ([]Finding, []Finding)
	if in.Compiled == nil {
		entryChecks = sync.OnceValues(w.startEntryChecks())
	}
	if in.Rebase != nil && in.Compiled == nil && in.Lazy == nil && len(in.Staged) == 0 {
		w.rebase = w.rebaser(in.Rebase, entryChecks)
	}
	saved := in.Compiled
	err := w.evaluate(in.Compiled, in.RestoreOnly)
	w.evalCtx, w.rebase = nil, nil
	if err != nil {
		if entryChecks != nil {
			entryChecks() // let it finish: it reads w
		}
		return nil, err
	}
	switch {
	case entryChecks != nil:
	case w.restored:
		// The snapshot is of these entries: their checks' findings with it.
		entryChecks = func() ([]Finding, []Finding) { return saved.citations, saved.references }
	default:
		entryChecks = w.startEntryChecks()
	}
	endChecks := phases.Start(PhaseChecks)
	w.val = w.buildValuation()
	w.runChecks(entryChecks)
	endChecks()
	return w, nil
}

// evaluate lowers and runs the program. A rule set that cannot be
// stratified loses the rules on the cycle (staged ones first), each with a
// rule.unstratifiable finding, and is evaluated again: a bad rule must
// never make the whole world unreadable.
func (w *World) evaluate(compiled *Compiled, restoreOnly bool) error {
	if compiled != nil {
		// A snapshot not taken leaves nothing of the attempt behind: a
		// rule it left out, say, is left out again only if the lowering
		// for real leaves it out.
		saved := w.saveLowering()
		if err := w.evaluateWith(compiled); err == nil && w.restored {
			return nil
		}
		if restoreOnly {
			return ErrNotRestored
		}
		w.restoreLowering(saved)
	}
	return w.evaluateWith(nil)
}

// ErrNotRestored is Compile's error, under Input.RestoreOnly, for a
// snapshot that did not load or does not fit the input.
var ErrNotRestored = errors.New("world: the compiled snapshot was not taken")

// evaluateWith is evaluate, taking compiled's program and model when the
// lowering has their shape and returning errNotTaken when it has not.
func (w *World) evaluateWith(compiled *Compiled) error {
	for range len(w.ix.rules) + 1 {
		err := w.lowerAndEval(compiled)
		if err == nil {
			return nil
		}
		var de *datalog.Error
		if !errors.As(err, &de) || de.Code != CodeRuleUnstratifiable {
			return fmt.Errorf("world: evaluate: %w", err)
		}
		if !w.dropCycle(de) {
			return fmt.Errorf("world: evaluate: %w", err)
		}
	}
	return errors.New("world: evaluate: could not stratify the rules")
}

// loweringState is what lowering sets in a world besides its program.
type loweringState struct {
	arity             arities
	droppedRules      map[string]bool
	predIdentityRules int
	identityActive    bool
	carry             map[string]int
	lowered           *entryLowering
	arityDropped      int
	rules, claims     []Finding
}

func (w *World) saveLowering() loweringState {
	return loweringState{arity: w.arity, droppedRules: maps.Clone(w.droppedRules), predIdentityRules: w.predIdentityRules,
		identityActive: w.identityActive, carry: w.carry, lowered: w.lowered, arityDropped: w.arityDropped,
		rules: slices.Clone(w.groups[groupRules]), claims: slices.Clone(w.groups[groupArityClaims])}
}

func (w *World) restoreLowering(s loweringState) {
	w.arity, w.droppedRules, w.predIdentityRules = s.arity, s.droppedRules, s.predIdentityRules
	w.identityActive, w.carry, w.lowered, w.arityDropped = s.identityActive, s.carry, s.lowered, s.arityDropped
	w.groups[groupRules], w.groups[groupArityClaims] = s.rules, s.claims
}

// dropCycle removes the rules whose heads lie on an unstratifiable cycle,
// staged rules first; it reports whether it removed any.
func (w *World) dropCycle(de *datalog.Error) bool {
	onCycle := map[string]bool{}
	for _, p := range de.Cycle {
		onCycle[p] = true
	}
	for _, staged := range []bool{true, false} {
		dropped := false
		for _, e := range w.ix.rules {
			r := e.Object.(*objects.Rule)
			if e.Staged == staged && onCycle[r.Head.Pred] && !w.droppedRules[r.Name] {
				w.dropRule(r.Name, de)
				dropped = true
			}
		}
		if dropped {
			return true
		}
	}
	return false
}

// dropRule takes a rule out of the program and records why, citing the
// rule's claim so that a finding points at the rule that was left out.
func (w *World) dropRule(name string, err error) {
	w.droppedRules[name] = true
	code, why := CodeRuleUnstratifiable, err.Error()
	var de *datalog.Error
	if errors.As(err, &de) {
		why = de.Message
		switch de.Code {
		case CodeRuleUnboundVariable:
			code = CodeRuleUnboundVariable
		case datalog.CodeArityMismatch:
			code = CodeArityConflict
			w.arityDropped++ // a discard elsewhere may let the rule back in
		}
	}
	f := newFinding(code, "Rule %s is left out of the world: %s", name, why)
	for _, e := range w.ix.rules {
		if e.Object.(*objects.Rule).Name == name {
			f.Citations = append(f.Citations, e.ID.String())
		}
	}
	f.Data = map[string]any{"rule": name}
	if de != nil && de.Var != "" {
		f.Data["variable"] = de.Var
	}
	w.emit(groupRules, f)
}

// Scope is the scope the world was compiled for.
func (w *World) Scope() string { return w.scope }

// Findings returns the findings of the check battery, sorted by code,
// message and citations.
func (w *World) Findings() []Finding {
	w.findingsOnce.Do(func() {
		var all []Finding
		for _, g := range w.groups {
			all = append(all, g...)
		}
		sortFindings(all)
		w.findings = all
	})
	return append(make([]Finding, 0, len(w.findings)), w.findings...) // [] on the wire, never null
}

// Grade grades one atom of the saturated world (identity applied).
func (w *World) Grade(pred string, args ...string) datalog.Grade {
	if w.readClosed(pred) {
		return w.closedGrade(pred, args)
	}
	return w.model.Grade(pred, args, w.val)
}

// Query answers a goal atom, each answer with its grade. Where identity
// joins an answer to the atoms it comes from, its support names each
// identity by a pair literal "@id:a|b" (Why expands them to links).
func (w *World) Query(q datalog.Atom) []datalog.Answer {
	out, _ := w.QueryPage(q, 0, -1)
	return out
}

// QueryPage is Query's answers from the from-th, at most limit of them
// (all when limit is negative), and how many there are.
func (w *World) QueryPage(q datalog.Atom, from, limit int) ([]datalog.Answer, int) {
	if w.readClosed(q.Pred) {
		all := w.closedQuery(q)
		from = min(max(from, 0), len(all))
		end := len(all)
		if limit >= 0 {
			end = min(end, from+limit)
		}
		return all[from:end], len(all)
	}
	return w.model.QueryPage(q, w.val, from, limit)
}

// Why explains one atom: its support paths, the live ones, the blocked
// ones and the defeats that block them.
func (w *World) Why(pred string, args ...string) datalog.Why {
	if w.readClosed(pred) {
		return w.plainWhy(w.closedWhy(pred, args))
	}
	return w.plainWhy(w.model.Why(pred, args, w.val))
}

// ClaimGrade grades a stored or staged claim by its own support: certain,
// possible, or dead (an unknown id is dead).
func (w *World) ClaimGrade(id objects.ID) datalog.Grade {
	e, ok := w.ix.byID.get(id)
	if !ok {
		return datalog.Dead
	}
	p, ok := objects.ProvenanceOf(e.Object)
	if !ok {
		return datalog.Certain // ledger records and questions assert nothing to grade
	}
	return gradeOf(w.support(id, p).Eval(w.val))
}

func gradeOf(t datalog.Truth) datalog.Grade {
	switch t {
	case datalog.True:
		return datalog.Certain
	case datalog.Unknown:
		return datalog.Possible
	}
	return datalog.Dead
}

// hasArityConflicts reports whether a claim or a rule is left out of the
// world for using a predicate with another number of arguments: which use
// keeps the predicate depends on all of them, so staging recompiles.
func (w *World) hasArityConflicts() bool {
	return w.arityDropped > 0 || len(w.groups[groupArityClaims]) > 0
}
