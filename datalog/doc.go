// Package datalog is a stratified datalog engine whose every derived atom
// carries a support polynomial: the minimal sets of provenance literals under
// which it holds. It is built for grading claims under a changing valuation
// without re-running the rules.
//
// # What it is for
//
// A Program holds ground facts and rules. Constants, predicate names and
// provenance variables are interned to uint32 ids; tuples are []uint32 rows
// in persistent hash-indexed relations. Program.Eval runs semi-naive bottom-up
// evaluation stratum by stratum and returns an immutable Model. Each atom's
// support is a polynomial over provenance literals: variables the caller
// names ("d:canon-1", "proposed", …) and negated-atom literals ("not q(a)").
// Alternative derivations add (union), a rule firing multiplies the rule's
// own support with its body's supports (pairwise union of monomials), and
// absorption keeps every polynomial minimal. A Valuation assigns each
// variable a three-valued Truth; a Grader then grades any number of atoms
// (certain, possible, dead) by Kleene evaluation of their polynomials, with
// no re-evaluation of rules. Why explains a grade path by path (Explain does
// the same for a support the caller assembled from the model's), Mentions and
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
// A body literal may instead be a built-in comparison (Cmp: ==, !=, <, <=,
// >, >=) of two terms whose variables positive atoms bind. It is tested as
// soon as the join has bound them and filters the matches; it reads no
// predicate and carries no literal, so it changes no stratum, support or
// grade. Constants compare by kind (CompareConsts): numbers "n:…" as
// numbers, other constants of one kind as strings, and constants of two
// kinds are only unequal.
//
// # Bounds
//
// Absorbed polynomials can grow exponentially (one monomial per simple path
// of a graph). Bounds (Program.SetBounds) cap them:
//
//   - MaxMonomialSize (default 64): literals per monomial;
//   - MaxMonomials (default 64): monomials per atom;
//   - MaxStratumMonomials (default 1<<20): monomials one stratum holds.
//
// A stratum is first evaluated exactly, merging monomials in order of size
// (fewest literals first), so that a merged monomial is never absorbed
// later and every support only grows towards its exact value. When the
// exact supports fit the bounds, that is the result: it does not depend on
// the order of evaluation, nor on how the model was reached (from scratch
// or incrementally). Otherwise:
//
//   - when some exact support passes a per-atom bound at a smaller
//     monomial size than the one at which the stratum passes its budget,
//     the stratum is evaluated again round by round with cuts: a monomial
//     over MaxMonomialSize is dropped, and an atom keeps its MaxMonomials
//     smallest monomials, fewest literals first, then in the canonical
//     string order of Poly.Monomials. Cuts happen at round boundaries, on
//     sets, so the kept monomials are a function of the program, though
//     they may differ from what a naive evaluation would keep; the
//     round-based stratum also stops carrying polynomials once it holds,
//     plus generates in one round, more than MaxStratumMonomials;
//   - otherwise, when the exact monomials of at most some size s
//     outnumber MaxStratumMonomials, the exact evaluation spills: the
//     monomials smaller than s stay (and One always does), every atom
//     derived from a monomial of size s or more is truncated, and the rest
//     of the fixpoint runs without polynomials. An atom left untruncated
//     has its exact support.
//
// A stratum that reads a truncated atom, or has a fact with a truncated
// support, is evaluated round by round directly. An atom whose polynomial
// lost a monomial, or was derived from one that did, reports
// Poly.Truncated. Truncation changes neither which atoms exist nor any
// grade. Unconditional support (the monomial {}) is always kept exactly, so
// negation fails exactly when it should. Truncated atoms are graded not
// from their cut polynomials but by a three-valued least fixpoint (linear
// counter propagation) over the ground rule instances that derive them,
// recorded once after their stratum is evaluated: the value the full
// polynomial would have. (One corner is not order-independent: an exact
// evaluation that would queue more than max(2*MaxStratumMonomials, 2^20)
// monomials not yet merged gives up and goes round by round.)
//
// # Incrementality
//
// Program.EvalFrom(prev) evaluates a program from a model of it or of a
// program it was cloned from (Eval is EvalFrom of the program's previous
// model, which Clone passes on), and gives the model a from-scratch Eval
// would: the same atoms, supports, truncation flags and grades. It finds
// what changed from the programs themselves: each predicate's fact set
// keeps a log of the rows each change touched, so the facts that changed
// since prev are read off the log, in time proportional to the change.
// Then, stratum by stratum (Strata lists them, in evaluation order, with
// what each reads; Dependents says which predicates a change can reach):
//
//   - a stratum whose rules, facts and inputs did not change is shared
//     with prev, relations and all;
//   - a stratum whose rules and bounds are unchanged and that was exact
//     (no provenance, or exact supports) is maintained in place. Each
//     changed atom a rule reads (a fact, or an atom of an earlier stratum,
//     positive or negated) is classified. A change that only adds
//     derivations or gives an atom a support that dominates its old one
//     (every old monomial has a subset among the new) runs the rule seeded
//     with that atom, by index lookups against the new relations, and
//     merges the new monomials by absorption; in a recursive stratum,
//     semi-naive evaluation then continues from the atoms whose support
//     grew. Under the possible-worlds semantics a negated atom acts only
//     through whether it is absent, possible or unconditional: the
//     derivations that negate it at exactly its arguments are found by
//     binding them, and a possible atom whose support changes changes
//     nothing below it (its literal is the same). A change that removes
//     derivations or shrinks a support re-derives, in a stratum whose rules
//     read only earlier strata, the heads it reaches: the rule seeded with
//     the old atom against prev finds them, and each is derived again from
//     all its matches in the new model. A removal that reaches a recursive
//     stratum re-evaluates that stratum alone;
//   - everything else is evaluated from scratch: changed rules or bounds,
//     a stratum with truncated supports, or that reads truncated atoms (the
//     recorded ground instances of truncated atoms are never maintained),
//     one whose maintenance would leave the bounds, and one whose relations
//     hold more removed atoms than live ones (which compacts them). What it
//     changed, for the strata above, is found by comparing its relations
//     with prev's.
//
// Relations and fact sets are persistent: rows live in chunked vectors and
// are found through extendible hashes, all copy-on-write by generation, so
// a new model shares with prev every chunk and hash page the change did not
// write, and prev stays valid and unchanged. A relation evaluated from
// scratch is built flat (its rows in one array, its hash one table of
// equal pages, grown by doubling); the first version that writes it cuts
// the array into chunks and the table into pages held in persistent tries,
// copying nothing (the cut is kept for the next version written from the
// same flat relation), and then copies only the chunk or page it writes
// and one path of the trie; it appends to another version's last chunk in
// place when no other version has claimed the slots. A row keeps its number across
// versions: a removed atom leaves a dead row that adding it again revives.
// Clone copies a program in O(predicates + rules); its first write to a
// predicate's facts starts a new version of that fact set. After a change
// of valuation, Model.Affected and Grader.Update re-grade only the atoms
// the changed variables can reach.
//
// # Concurrency
//
// A Model is immutable and safe for concurrent use, also while other
// programs evaluate from it; a Grader belongs to one goroutine. A Program
// needs exclusive use, except that Clone may be called from several
// goroutines at once.
package datalog
