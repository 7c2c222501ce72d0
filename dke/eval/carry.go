// Carrying the rule model from one run to the next: a run given the
// store's model at the snapshot it starts from (Options.Rules) advances
// that model by the cells it writes instead of rebuilding it from every
// claim, and hands its own model back (Result.Rules) for the next run.
// A model handed on is frozen: a run that writes forks it (the program by
// datalog's copy-on-write Clone, the maps by a shared base and a small
// layer of its own), so a run that is refused or fails leaves the model
// it started from as it was.

package eval

import (
	"maps"
	"slices"

	"github.com/deloreis/deloreis/dke/claims"
	"github.com/deloreis/deloreis/dke/keywords"
	"github.com/deloreis/deloreis/dke/syntax"
)

// Rules is a store's rule model at one snapshot, kept between runs. It is
// immutable once handed out and safe to hand to one run at a time.
type Rules struct {
	rm *ruleModel
	// files are the modules declaring rules or constraints the model
	// was lowered from: a run whose modules differ rebuilds.
	files map[string]*syntax.File
	// pending are cells written since rm was evaluated, for the next
	// run to apply.
	pending []claims.Cell
}

// Cells is the number of cells the model holds a fact of: its size.
func (r *Rules) Cells() int { return r.rm.facts.len() }

// rebuildAfter is the fewest cells a carried model applies before it is
// rebuilt from the store: the engine's constant and literal tables only
// grow, so a model advanced without end would too. A model is rebuilt
// once it has applied as many cells as it held when built (at least
// this many), which keeps its memory within about twice its size and the
// rebuild's cost, shared among the runs before it, constant per cell.
const rebuildAfter = 4096

// due reports whether a model that has applied n more cells is due for a
// rebuild.
func (rm *ruleModel) due(n int) bool {
	return rm.applied+n > max(rm.built, rebuildAfter)
}

// standingFiles returns the modules that declare rules or constraints.
func standingFiles(mods Modules) map[string]*syntax.File {
	out := map[string]*syntax.File{}
	for _, name := range mods.ModuleNames() {
		f, ok := mods.Module(name)
		if !ok {
			continue
		}
		for _, s := range f.Stmts {
			if d, ok := s.(*syntax.DefStmt); ok && d.Decorator != nil && (d.Decorator.ID == keywords.Rule || d.Decorator.ID == keywords.Constraint) {
				out[name] = f
				break
			}
		}
	}
	return out
}

// carryIn starts a program's run (not a module body's, which runs over
// its own new version) from the carried model when it was lowered from
// the same modules.
func (in *interp) carryIn() {
	if in.opts.Module != "" {
		return
	}
	in.stdFiles = standingFiles(in.opts.Modules)
	r := in.opts.Rules
	if r == nil || !maps.Equal(r.files, in.stdFiles) || r.rm.due(len(r.pending)) {
		return
	}
	in.std, in.rules, in.dirty = r.rm.std, r.rm, slices.Clone(r.pending)
}

// Rules returns the run's rule model at its end, to start the next run
// over the snapshot this run's writes made (Options.Rules); nil when the
// run built none, or its model is due for a rebuild.
func (r *Result) Rules() *Rules { return r.rules }

// carryOut is the run's model at its end, with the cells it wrote since
// last evaluating it; nil when there is none to carry.
func (in *interp) carryOut() *Rules {
	if in.opts.Module != "" || in.rules == nil || in.rules.due(len(in.dirty)) {
		return nil
	}
	if r := in.opts.Rules; r != nil && r.rm == in.rules && slices.Equal(r.pending, in.dirty) {
		return r
	}
	in.rules.frozen = true
	return &Rules{rm: in.rules, files: in.stdFiles, pending: slices.Clone(in.dirty)}
}

// fork returns a model that can be advanced without touching rm, or nil
// when rm is due for a rebuild.
func (rm *ruleModel) fork(mt *meter, n int) *ruleModel {
	if rm.due(n) {
		return nil
	}
	return &ruleModel{std: rm.std, p: rm.p.Clone(), read: rm.read,
		facts: rm.facts.fork(), model: rm.model, claims: rm.claims.fork(), grader: rm.grader, meter: mt,
		built: rm.built, applied: rm.applied}
}

// layered is a map kept in two layers, so that forking it costs what its
// forks wrote, not its size: base is shared read-only among forks, top
// is this fork's own writes (a deletion as an absent slot).
type layered[K comparable, V any] struct {
	base map[K]V
	top  map[K]slot[V]
	n    int
}

type slot[V any] struct {
	v  V
	ok bool
}

func newLayered[K comparable, V any]() layered[K, V] {
	return layered[K, V]{base: map[K]V{}}
}

func (l *layered[K, V]) get(k K) (V, bool) {
	if s, ok := l.top[k]; ok {
		return s.v, s.ok
	}
	v, ok := l.base[k]
	return v, ok
}

// newLayeredSize is newLayered with room for n entries in its base.
func newLayeredSize[K comparable, V any](n int) layered[K, V] {
	return layered[K, V]{base: make(map[K]V, n)}
}

func (l *layered[K, V]) len() int { return l.n }

// fill adds k, which l does not hold, to the base of a map no fork
// shares yet (a model being built): in place, with no layer over it, so
// that the model's first fork has no top to fold.
func (l *layered[K, V]) fill(k K, v V) {
	l.base[k] = v
	l.n++
}

func (l *layered[K, V]) set(k K, v V) {
	if _, had := l.get(k); !had {
		l.n++
	}
	if l.top == nil {
		l.top = map[K]slot[V]{}
	}
	l.top[k] = slot[V]{v: v, ok: true}
}

func (l *layered[K, V]) del(k K) {
	if _, had := l.get(k); !had {
		return
	}
	l.n--
	if _, inBase := l.base[k]; !inBase {
		delete(l.top, k)
		return
	}
	if l.top == nil {
		l.top = map[K]slot[V]{}
	}
	l.top[k] = slot[V]{}
}

// all calls f on every entry, in no order.
func (l *layered[K, V]) all(f func(K, V)) {
	for k, v := range l.base {
		if _, over := l.top[k]; !over {
			f(k, v)
		}
	}
	for k, s := range l.top {
		if s.ok {
			f(k, s.v)
		}
	}
}

// fork returns a copy sharing the base. A top grown past an eighth of
// the base is folded into a new base first, so forks stay cheap.
func (l *layered[K, V]) fork() layered[K, V] {
	if len(l.top) > len(l.base)/8+256 {
		base := make(map[K]V, l.n)
		l.all(func(k K, v V) { base[k] = v })
		return layered[K, V]{base: base, n: l.n}
	}
	return layered[K, V]{base: l.base, top: maps.Clone(l.top), n: l.n}
}
