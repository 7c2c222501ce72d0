// Package eval runs checked DKE Python: a program submitted to run, or a
// module's body when it is compiled. It interprets the syntax tree that
// dke/check accepted, writing claims through a claims.Store, and returns a
// Result — the terminal status, the print sequence and the store effects in
// execution order — that renders as the contract's transcript in the
// surface the source was written in.
//
// Evaluation is deterministic: a step budget (not a clock) bounds the
// work, collections iterate in a fixed order over a snapshot, and the same
// source over the same store renders byte-identical transcripts. A run is
// not transactional: each write outside a branch block is committed at
// once, so a failure keeps what came before it; a branch commits or rolls
// back as a unit.
//
// The store's standing rules and constraints are lowered to the shared
// datalog engine (package datalog) over the values in force: current reads
// a derived value where no claim is, why returns its proof, why_not and
// what_needs the cells a rule would need. Reason gives the same reasoning
// over a snapshot to the service (checkup, forget_rule). The model is
// built on a run's first rule read and advanced by its writes; a run given
// an earlier run's model (Options.Rules, Result.Rules) starts from that
// instead of from every claim.
//
// Compiled modules come from a Modules: a call resolves to the version the
// calling module was compiled against.
package eval
