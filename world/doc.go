// Package world compiles a scope of lore — a lorestore snapshot plus a
// workspace's staged layer — into a datalog program, grades every claim
// and consequence, and runs the check battery that turns contradictions
// into findings before anything is committed.
//
// It is the one place where lore objects meet the reasoning engine: the
// lowering table of DESIGN.md section 4 (entities, facts, relations,
// events, before-facts, option implications and rules become atoms and
// clauses; declarations configure closure and checks), the valuation of
// provenance variables (decisions by the grounded labelling of their
// attacks, hypotheses by supposition, options by the state of their
// question), predicate identity as annotated bridging rules, entity
// identity closed when read (by connectivity under the valuation, see
// closure.go) and carried by rules only where rules join over it, and
// the findings catalogue. It is not the store (lorestore) and not the
// engine (datalog), and it never writes anything.
//
// A World never changes. World.Stage gives the world with objects staged
// or discarded, and for most kinds of change does so incrementally (see
// stage.go): the new world shares its index and program with the old one,
// the engine re-evaluates only what the change reaches, and only the
// checks it feeds run again — equal, finding for finding and grade for
// grade, to a fresh Compile. World.Advance likewise gives a commit's
// world from an earlier commit's and the objects the commit added (see
// advance.go), and World.Settle commits a staged layer.
package world
