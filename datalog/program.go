// This file holds the program: the public term, atom and rule types, and
// the fact and rule store with its interning, validation and cloning.

package datalog

import (
	"fmt"
	"slices"
	"sync/atomic"
)

// Term is a variable or a constant of a rule atom; exactly one is set, so
// the empty string cannot be a rule constant. The variable "_" is
// anonymous: each occurrence is a distinct variable, allowed only in
// positive body atoms (and ignored by Query).
type Term struct{ Var, Const string }

// Anon is the anonymous variable.
const Anon = "_"

// V returns the variable term name.
func V(name string) Term { return Term{Var: name} }

// C returns the constant term value.
func C(value string) Term { return Term{Const: value} }

// Atom is a predicate applied to terms.
type Atom struct {
	Pred string
	Args []Term
}

// Literal is a body atom, possibly negated, or a built-in comparison
// (Cmp set, and nothing else; see Cmp).
type Literal struct {
	Atom    Atom
	Negated bool
	Cmp     Comparison
}

// Rule is one clause Head :- Body. Support is the rule's own polynomial,
// multiplied into every derivation it fires (One for an unconditional rule;
// the zero polynomial is refused).
type Rule struct {
	Name    string
	Head    Atom
	Body    []Literal
	Support Poly
}

// Bounds cap the support polynomials; see the package documentation. A zero
// field takes its default.
type Bounds struct {
	MaxMonomials        int // monomials kept per atom (default 64)
	MaxMonomialSize     int // literals per monomial (default 64)
	MaxStratumMonomials int // monomials one stratum may hold, and generate in one round (default 1<<20)
}

// DefaultBounds returns the defaults: 64 monomials per atom, 64 literals
// per monomial, 1,048,576 monomials per stratum.
func DefaultBounds() Bounds {
	return Bounds{MaxMonomials: 64, MaxMonomialSize: 64, MaxStratumMonomials: 1 << 20}
}

func (b Bounds) withDefaults() Bounds {
	d := DefaultBounds()
	if b.MaxMonomials <= 0 {
		b.MaxMonomials = d.MaxMonomials
	}
	if b.MaxMonomialSize <= 0 {
		b.MaxMonomialSize = d.MaxMonomialSize
	}
	if b.MaxStratumMonomials <= 0 {
		b.MaxStratumMonomials = d.MaxStratumMonomials
	}
	return b
}

// versionClock issues fact versions, rule ids and generations, unique
// across every program, clone and model, so a model can tell whether its
// inputs changed and a container version whether it owns a chunk.
var versionClock atomic.Uint64

// cterm is a compiled term: a variable slot, or a constant when slot < 0.
type cterm struct {
	slot int32
	c    uint32
}

// catom is a compiled atom.
type catom struct {
	pred uint32
	args []cterm
}

// ruleRec is a validated, compiled rule. It never changes once added.
type ruleRec struct {
	id       uint64
	rule     Rule
	head     catom
	pos, neg []catom
	cmps     []ccmp // built-in comparisons, tested once their variables are bound
	nvars    int
	support  ipoly
	allOne   bool
}

// Program is a set of facts and rules. Clone may be called from several
// goroutines at once; every other method needs exclusive use of the
// program. The models it returns are safe for concurrent use.
type Program struct {
	consts, preds *interner
	lits          *litTable
	arity         ptab[int]      // by pred id; -1 unknown (arityOf reads it)
	facts         ptab[*factSet] // by pred id (fact reads it)
	rules         []*ruleRec
	bounds        Bounds
	last          *Model
	gen           atomic.Uint64 // the generation the program writes its fact sets under
	warmSink      uint64        // keeps warmFacts' loads
	strat         *stratCache
	// touched lists the predicates whose fact set or arity changed since
	// last was evaluated (incr_dirty.go): the strata an incremental
	// evaluation from last starts at. Clone copies it with last.
	touched []uint32
	// uses lists the predicates in use (arity fixed), in the order they
	// came into use: stratify's count of them, and the ones growStrata
	// adds. An arity, once fixed, stays.
	uses  ptab[uint32]
	canon canonCache // the entry of the support last given a new fact
	tuple []uint32   // AddFact's scratch: a fact set copies the tuple it is given
	shape bool       // facts are checked and their predicates noted, not kept (NewShapeProgram)
	guard *guard     // the budget of the evaluation under way (EvalContext)
}

// canonCache remembers the canonical entry of one support: a caller adding
// many facts passes one support value again and again (a world, the
// support of every proposed claim), and its entry, once made, never
// changes.
type canonCache struct {
	d *polyData
	e *factEntry
	h uint32
}

// canonical is lits.canonical through the cache.
func (p *Program) canonical(support Poly) (*factEntry, uint32) {
	if c := p.canon; c.d != nil && c.d == support.d {
		return c.e, c.h
	}
	e, h := p.lits.canonical(p, support)
	if support.d != nil && h != polyZero {
		p.canon = canonCache{d: support.d, e: e, h: h}
	}
	return e, h
}

// NewProgram returns an empty program with the default bounds.
func NewProgram() *Program {
	consts, preds := newInterner(), newInterner()
	p := &Program{consts: consts, preds: preds, lits: newLitTable(consts, preds), bounds: DefaultBounds()}
	p.gen.Store(versionClock.Add(1))
	return p
}

// NewShapeProgram returns an empty program that keeps the shape of what
// is added to it, not its facts: a fact is checked as AddFact checks it
// and fixes its predicate's arity, then dropped; rules are kept. A caller
// lowers into it to compare what it would build with a snapshot's
// program (SameShape) at the cost of the lowering alone.
func NewShapeProgram() *Program {
	p := NewProgram()
	p.shape = true
	return p
}

// SetBounds sets the polynomial bounds; zero fields take their defaults.
func (p *Program) SetBounds(b Bounds) { p.bounds = b.withDefaults() }

// Bounds returns the polynomial bounds in force.
func (p *Program) Bounds() Bounds { return p.bounds }

// Clone returns an independent copy of p in O(predicates + rules): the
// fact sets are shared, and whichever program writes one first derives its
// own version of it (sharing all but the chunks it writes); interners are
// shared (they are append-only and locked), and the clone evaluates
// incrementally from p's last model.
func (p *Program) Clone() *Program {
	p.gen.Store(versionClock.Add(1)) // p's fact sets are read-only from now on
	c := &Program{consts: p.consts, preds: p.preds, lits: p.lits, arity: p.arity.clone(),
		facts: p.facts.clone(), rules: slices.Clone(p.rules), bounds: p.bounds, last: p.last, strat: p.strat,
		touched: slices.Clone(p.touched), uses: p.uses.clone()}
	c.gen.Store(versionClock.Add(1))
	return c
}

// predID interns a predicate name and grows the per-predicate tables.
func (p *Program) predID(name string) uint32 {
	return p.growPreds(p.preds.intern(name))
}

// growPreds grows the per-predicate tables to hold pred id.
func (p *Program) growPreds(id uint32) uint32 {
	for gen := p.gen.Load(); int(id) >= p.arity.len(); {
		p.arity.push(-1, gen)
		p.facts.push(nil, gen)
	}
	return id
}

// writableFacts returns the fact set of pred, deriving a version of a
// shared one.
func (p *Program) writableFacts(pred uint32) *factSet {
	f, gen := p.fact(pred), p.gen.Load()
	switch {
	case f == nil:
		f = newFactSet(pred, p.arityOf(pred), gen, p.lits)
	case f.gen != gen:
		f = f.derive(gen)
	default:
		return f
	}
	p.facts.set(int(pred), f, gen)
	p.touch(pred)
	return f
}

// setArity fixes pred's arity.
func (p *Program) setArity(pred uint32, n int) {
	if p.arityOf(pred) < 0 {
		p.uses.push(pred, p.gen.Load())
	}
	p.arity.set(int(pred), n, p.gen.Load())
	p.touch(pred)
}

// npred returns the number of predicate ids the program's tables hold.
func (p *Program) npred() int { return p.arity.len() }

// arityOf returns pred's arity, -1 when it is not in use.
func (p *Program) arityOf(pred uint32) int {
	if int(pred) >= p.arity.len() {
		return -1
	}
	return p.arity.at(int(pred))
}

// fact returns pred's fact set, nil when it has none.
func (p *Program) fact(pred uint32) *factSet {
	if int(pred) >= p.facts.len() {
		return nil
	}
	return p.facts.at(int(pred))
}

// touch notes that pred's facts or arity changed since p.last.
func (p *Program) touch(pred uint32) {
	if p.last != nil {
		p.touched = append(p.touched, pred)
	}
}

func arityError(rule, pred string, got, want int) *Error {
	return &Error{Code: CodeArityMismatch, Rule: rule, Pred: pred, Message: fmt.Sprintf(
		"predicate %q is used with %d arguments here and %d elsewhere; use one arity per predicate or rename one of the uses",
		pred, got, want)}
}

// AddFact adds the ground fact pred(args) with the given support. Adding a
// fact twice adds the supports. The zero support is refused (use One() for
// an unconditional fact).
func (p *Program) AddFact(pred string, args []string, support Poly) error {
	if pred == "" {
		return emptyPred()
	}
	if err := zeroSupport(pred, args, support); err != nil {
		return err
	}
	fp, err := p.FactPred(pred, len(args))
	if err != nil {
		return err
	}
	p.addFactAt(fp, args, support)
	return nil
}

func emptyPred() *Error {
	return &Error{Code: CodeInvalidTerm, Message: "a fact has an empty predicate name; name the predicate"}
}

// FactPred is a predicate with an arity, resolved once by FactPred for
// any number of facts added through a FactBatch: a caller adding many facts of a few
// predicates spares each fact the lookups of its predicate's name.
type FactPred struct {
	name  string
	id    uint32
	arity int
	preds *interner // the interner id is of: the program's, shared by its clones
}

// Name returns the predicate's name.
func (fp FactPred) Name() string { return fp.name }

// Arity returns the number of arguments of the predicate's facts.
func (fp FactPred) Arity() int { return fp.arity }

// FactPred resolves pred for facts of arity arguments, fixing its arity
// as AddFact does. It fails as AddFact would for an empty name or an
// arity other than the one pred is used with.
func (p *Program) FactPred(pred string, arity int) (FactPred, error) {
	if pred == "" {
		return FactPred{}, emptyPred()
	}
	id, ok := p.preds.lookup(pred)
	if ok && p.arityOf(id) >= 0 && p.arityOf(id) != arity {
		return FactPred{}, arityError("", pred, arity, p.arityOf(id))
	}
	if !ok {
		id = p.preds.intern(pred)
	}
	p.growPreds(id)
	if p.arityOf(id) != arity {
		p.setArity(id, arity)
	}
	return FactPred{name: pred, id: id, arity: arity, preds: p.preds}, nil
}

func (p *Program) addFactAt(fp FactPred, args []string, support Poly) {
	if p.shape {
		return
	}
	if cap(p.tuple) < len(args) {
		p.tuple = make([]uint32, len(args))
	}
	tuple := p.tuple[:len(args)]
	p.consts.internAll(args, tuple)
	p.writableFacts(fp.id).put(p, tuple, support)
}

// FactBatch holds facts for AddFacts, in order.
type FactBatch struct {
	preds []FactPred
	sups  []Poly
	args  []string // every fact's, end to end
}

// Add appends the fact fp(args) with the given support.
func (b *FactBatch) Add(fp FactPred, args []string, support Poly) {
	if fp.arity != len(args) {
		fp = FactPred{name: fp.name, arity: len(args)} // AddFacts resolves it again
	}
	b.preds = append(b.preds, fp)
	b.sups = append(b.sups, support)
	b.args = append(b.args, args...)
}

// reset empties the batch, letting go of what it held.
func (b *FactBatch) reset() {
	clear(b.sups)
	clear(b.args)
	b.preds, b.sups, b.args = b.preds[:0], b.sups[:0], b.args[:0]
}

// Len returns the number of facts in the batch.
func (b *FactBatch) Len() int { return len(b.preds) }

// AddFacts adds the batch's facts in order, as AddFact one by one would,
// and empties the batch; a fact whose predicate was resolved on a program
// this one is not a clone of (or the clone of) is added under its name.
// It stops at the first fact AddFact would refuse, returning its error,
// the facts before it added. Their constants are interned a batch at a
// time (internMany), under a lock taken once per batch, not twice per fact
// (DL-0367).
func (p *Program) AddFacts(b *FactBatch) error {
	defer b.reset()
	stop, end, err := p.checkBatch(b, func() {})
	if p.shape {
		return err
	}
	if cap(p.tuple) < end {
		p.tuple = make([]uint32, end)
	}
	ids := p.tuple[:end]
	p.consts.internMany(b.args[:end], ids)
	p.putFacts(b.preds[:stop], ids, b.sups)
	return err
}

// putFacts puts each fact into its relation: preds[i] with its support
// sups[i] and its interned constants the next arity ids, end to end.
func (p *Program) putFacts(preds []FactPred, ids []uint32, sups []Poly) {
	for len(preds) > 0 {
		g := min(len(preds), parGroup)
		p.warmFacts(preds[:g], ids)
		for i, fp := range preds[:g] {
			p.writableFacts(fp.id).put(p, ids[:fp.arity:fp.arity], sups[i])
			ids = ids[fp.arity:]
		}
		preds, sups = preds[g:], sups[g:]
	}
}

// warmFacts loads the home slot of each fact of preds (their constants
// ids, end to end) in its relation's hash, all before any insert uses
// one: a large lowering's facts land in tables far past the cache, and
// loads issued together overlap their misses, where one insert after
// another waits for each in turn (findNew does the same).
func (p *Program) warmFacts(preds []FactPred, ids []uint32) {
	var sink uint64
	for _, fp := range preds {
		t := ids[:fp.arity]
		ids = ids[fp.arity:]
		if f := p.fact(fp.id); f != nil {
			sink += f.tab.home(t)
		}
	}
	p.warmSink = sink
}

// checkBatch checks b's facts in order as AddFact would, resolving a
// predicate anew where the batch's handle is not p's, after settle: it
// returns how many facts pass, where their arguments end, and the error
// of the first that does not.
func (p *Program) checkBatch(b *FactBatch, settle func()) (stop, end int, err error) {
	for i, fp := range b.preds {
		n := end + fp.arity
		if err = zeroSupport(fp.name, b.args[end:n], b.sups[i]); err == nil && !p.resolved(fp) {
			settle()
			b.preds[i], err = p.FactPred(fp.name, fp.arity)
		}
		if err != nil {
			return i, end, err
		}
		end = n
	}
	return len(b.preds), end, nil
}

// resolved reports whether fp may be used on p as it is.
func (p *Program) resolved(fp FactPred) bool {
	return fp.preds == p.preds && p.arityOf(fp.id) == fp.arity
}

// zeroSupport refuses the zero support.
func zeroSupport(pred string, args []string, support Poly) error {
	if support.IsZero() && !support.Truncated() {
		return &Error{Code: CodeZeroSupport, Pred: pred, Message: fmt.Sprintf(
			"fact %s has the zero support, so it would not hold; pass datalog.One() for an unconditional fact",
			renderAtom(pred, args))}
	}
	return nil
}

// RemoveFact removes the fact pred(args) and reports whether it was there.
func (p *Program) RemoveFact(pred string, args []string) bool {
	id, ok := p.preds.lookup(pred)
	if !ok || int(id) >= p.facts.len() || p.fact(id) == nil {
		return false
	}
	tuple := make([]uint32, len(args))
	for i, a := range args {
		c, ok := p.consts.lookup(a)
		if !ok {
			return false
		}
		tuple[i] = c
	}
	if _, ok := p.fact(id).tab.find(tuple); !ok {
		return false
	}
	f := p.writableFacts(id)
	row, _ := f.tab.find(tuple)
	f.drop(row)
	return true
}

// FactArity returns the arity of pred's facts, and whether it has any.
func (p *Program) FactArity(pred string) (int, bool) {
	id, ok := p.preds.lookup(pred)
	if !ok || int(id) >= p.facts.len() || p.fact(id) == nil || p.fact(id).tab.live == 0 {
		return 0, false
	}
	return p.fact(id).tab.arity, true
}

// RemoveSupport takes back one AddFact of pred(args) with the given
// support: the fact keeps the sum of the supports added for it but that
// one, and is removed when none is left. It reports whether such a
// support was there, and whether pred has no facts left.
func (p *Program) RemoveSupport(pred string, args []string, support Poly) (removed, empty bool) {
	id, ok := p.preds.lookup(pred)
	if !ok || int(id) >= p.facts.len() || p.fact(id) == nil {
		return false, false
	}
	tuple := make([]uint32, len(args))
	for i, a := range args {
		c, ok := p.consts.lookup(a)
		if !ok {
			return false, false
		}
		tuple[i] = c
	}
	row, ok := p.fact(id).tab.find(tuple)
	if !ok {
		return false, false
	}
	i := slices.IndexFunc(p.fact(id).entry(row).given(), support.Equal)
	if i < 0 {
		return false, false
	}
	f := p.writableFacts(id)
	f.unput(p, row, i)
	return true, f.tab.live == 0
}

// internPoly converts a public polynomial to literal ids.
func (p *Program) internPoly(q Poly) ipoly {
	ms := make([]mono, 0, len(q.mons()))
	for _, m := range q.mons() {
		lits := make([]uint32, len(m))
		for i, l := range m {
			if l.neg == nil {
				lits[i] = p.lits.varLit(l.name)
			} else {
				lits[i] = p.lits.foreignLit(l)
			}
		}
		ms = append(ms, mono{lits: lits})
	}
	for i := range ms {
		l := ms[i].lits
		slices.Sort(l)
		ms[i].lits = compactU32(l)
		ms[i].sig = sigOf(ms[i].lits)
	}
	return absorbList(ms)
}

// AddRule validates r (terms, arities, range restriction, non-zero
// support) and adds it. A rule that fails a check is not added.
// Stratification is checked by Check and Eval.
func (p *Program) AddRule(r Rule) error {
	if err := p.validateRule(r); err != nil {
		return err
	}
	rec := p.compileRule(r)
	p.rules = append(p.rules, rec)
	return nil
}

// RemoveRule removes every rule named name and reports how many it removed.
func (p *Program) RemoveRule(name string) int {
	kept := p.rules[:0:0]
	for _, r := range p.rules {
		if r.rule.Name != name {
			kept = append(kept, r)
		}
	}
	n := len(p.rules) - len(kept)
	p.rules = kept
	return n
}

// Rules returns the rules in the order they were added.
func (p *Program) Rules() []Rule {
	out := make([]Rule, len(p.rules))
	for i, r := range p.rules {
		out[i] = r.rule
	}
	return out
}

// compileRule interns a validated rule. Variables get slots in order of
// first occurrence in the positive body.
func (p *Program) compileRule(r Rule) *ruleRec {
	rec := &ruleRec{id: versionClock.Add(1), rule: cloneRule(r), support: p.internPoly(r.Support)}
	rec.allOne = rec.support.isOne()
	slots := map[string]int32{}
	compile := func(a Atom) catom {
		id := p.predID(a.Pred)
		if p.arityOf(id) != len(a.Args) {
			p.setArity(id, len(a.Args))
		}
		ca := catom{pred: id, args: make([]cterm, len(a.Args))}
		for i, t := range a.Args {
			if t.Var == "" {
				ca.args[i] = cterm{slot: -1, c: p.consts.intern(t.Const)}
				continue
			}
			name := t.Var
			if name == Anon {
				name = fmt.Sprintf("_#%d", len(slots)) // fresh at each occurrence
			}
			s, ok := slots[name]
			if !ok {
				s = int32(len(slots))
				slots[name] = s
			}
			ca.args[i] = cterm{slot: s}
		}
		return ca
	}
	for _, l := range r.Body {
		if !l.Negated && !l.IsComparison() {
			rec.pos = append(rec.pos, compile(l.Atom))
		}
	}
	for _, l := range r.Body {
		if l.Negated {
			rec.neg = append(rec.neg, compile(l.Atom))
		}
	}
	for _, l := range r.Body {
		if l.IsComparison() {
			rec.cmps = append(rec.cmps, p.compileCmp(l.Cmp, slots))
		}
	}
	rec.head = compile(r.Head)
	rec.nvars = len(slots)
	return rec
}

func cloneRule(r Rule) Rule {
	c := r
	c.Head.Args = append([]Term(nil), r.Head.Args...)
	c.Body = make([]Literal, len(r.Body))
	for i, l := range r.Body {
		c.Body[i] = Literal{Atom: Atom{Pred: l.Atom.Pred, Args: append([]Term(nil), l.Atom.Args...)}, Negated: l.Negated, Cmp: l.Cmp}
	}
	return c
}

func compactU32(s []uint32) []uint32 {
	if len(s) < 2 {
		return s
	}
	out := s[:1]
	for _, x := range s[1:] {
		if x != out[len(out)-1] {
			out = append(out, x)
		}
	}
	return out
}
