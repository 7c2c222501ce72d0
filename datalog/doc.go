// Package datalog is a stratified datalog engine whose every derived atom
// carries a support polynomial: the minimal sets of provenance literals under
// which it holds. It is built for grading claims under a changing valuation
// without re-running the rules.
//
// # What it is for
//
// A Program holds ground facts and rules. Constants, predicate names and
// provenance variables are interned to uint32 ids; tuples are flat []uint32
// rows in hash-indexed relations. Program.Eval runs semi-naive bottom-up
// evaluation stratum by stratum and returns an immutable Model. Each atom's
// support is a polynomial over provenance literals: variables the caller
// names ("d:canon-1", "proposed", …) and negated-atom literals ("not q(a)").
// Alternative derivations add (union), a rule firing multiplies the rule's
// own support with its body's supports (pairwise union of monomials), and
// absorption keeps every polynomial minimal. A Valuation assigns each
// variable a three-valued Truth; a Grader then grades any number of atoms
// (certain, possible, dead) by Kleene evaluation of their polynomials, with
// no re-evaluation of rules. Why explains a grade path by path, Mentions and
// Affected say which atoms a change of one variable can re-grade, and
// Grounded labels an attack graph by the grounded semantics.
//
// The package knows nothing of lore, decisions, claims or git: the caller
// names the variables and decides what their truth is.
//
// # Semantics
//
// Negation is stratified and evaluated over possible worlds: "not q(a)"
// fails only when q(a) holds unconditionally (its support is One); otherwise
// the derivation carries the literal "not q(a)", true when q(a) is dead,
// unknown when q(a) is possible and false when q(a) is certain. A negated
// atom that was never derived contributes nothing (it is true everywhere).
//
// # Bounds
//
// Absorbed polynomials can grow exponentially (one monomial per simple path
// of a graph). Bounds (Program.SetBounds) cap them:
//
//   - MaxMonomialSize (default 64) drops every monomial with more literals;
//   - MaxMonomials (default 64) keeps an atom's smallest monomials: fewest
//     literals first, then the canonical string order of Poly.Monomials,
//     so the choice depends neither on interning nor on insertion order;
//   - MaxStratumMonomials (default 1<<20) bounds the monomials one stratum
//     holds plus those it generates in one round; past it the stratum
//     finishes without polynomials, and every atom derived after that point
//     keeps what it had and is truncated.
//
// An atom whose polynomial lost a monomial this way, or was derived from one
// that did, reports Poly.Truncated. Truncation changes neither which atoms
// exist nor any grade. Unconditional support (the monomial {}) is always
// kept exactly, so negation fails exactly when it should. Truncated atoms
// are graded not from their cut polynomials but by a three-valued least
// fixpoint (linear counter propagation) over the ground rule instances that
// derive them, recorded once after their stratum is evaluated: the value the
// full polynomial would have. Cuts happen at round boundaries, on sets, so
// the kept monomials are a function of the program; they may differ from
// what a naive evaluation would keep, never in grade.
//
// # Incrementality
//
// Program.Eval reuses, from the previous model of the same program (or of
// the program it was cloned from), every stratum whose rules, facts and
// input strata are unchanged, sharing its relations; the others are
// recomputed. Strata lists the strata (one per strongly connected
// component of the predicate dependency graph, in evaluation order) with
// what each reads; Dependents says which predicates a change can reach.
// Clone copies a program in O(predicates + rules). After a change of
// valuation, Model.Affected and Grader.Update re-grade only the atoms the
// changed variables can reach.
//
// # Concurrency
//
// A Model is immutable and safe for concurrent use; a Grader belongs to one
// goroutine. A Program needs exclusive use, except that Clone may be called
// from several goroutines at once.
package datalog
