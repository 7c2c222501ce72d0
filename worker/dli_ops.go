// The DLI ops bound to their use cases: every author.* op, dli.canon and
// dli.name.check, each registered once with its spec (summary, profile,
// mutation law, the codes it answers with) and a handler that hands the
// decoded params to one method of author.Service.

package worker

import (
	"context"

	"github.com/deloreis/deloreis/author"
	"github.com/deloreis/deloreis/objects"
)

// RegisterAuthor binds the author ops of s in r, with the killed forms of
// the ops earlier contracts served.
func RegisterAuthor(r *Registry, s *author.Service) {
	Register(r, Spec{Name: "author.open", Summary: "Open a workspace over a document (scope) or a fork of one of its questions.", Fiction: true,
		Errors: []string{author.CodeOpenMode, author.CodeUnknownScope, author.CodeUnknownFork, author.CodeAmbiguousFork, author.CodeUnknownBranch, author.CodePinnedProject}}, read(s.OpenWorkspace))
	registerClaim[*objects.Entity](r, s, "author.add_entity", "Stage an entity: a person, place, thing or era.", true)
	registerClaim[*objects.Fact](r, s, "author.add_fact", "Stage a keyed value on one entity.", true)
	registerClaim[*objects.Relation](r, s, "author.add_relation", "Stage a binary relation between two entities.", true)
	registerClaim[*objects.Event](r, s, "author.add_event", "Stage an event anchored to an era.", true)
	registerClaim[*objects.Before](r, s, "author.add_before", "Stage an order: one event before another.", true)
	registerClaim[*objects.Hypothesis](r, s, "author.add_hypothesis", "Mint the fork's hyp variable (one per fork).", true)
	Register(r, Spec{Name: "author.open_question", Summary: "File an open question as tracked debt.", Mutating: true, Fiction: true,
		Errors: errs(lawErrors, []string{author.CodeInvalidObject, author.CodeQuestionExists, author.CodeBudget})}, mut(s.OpenQuestion))
	Register(r, Spec{Name: "author.add_option", Summary: "Add one option to a question staged in the workspace.", Mutating: true, Fiction: true,
		Errors: errs(lawErrors, []string{author.CodeUnknownQuestion, author.CodeQuestionCommitted, author.CodeOptionExists, author.CodeInvalidObject, author.CodeBudget})}, mut(s.AddOption))
	Register(r, Spec{Name: "author.suppose", Summary: "Pin minted hypotheses true within the fork.", Mutating: true, Fiction: true,
		Errors: errs(lawErrors, []string{author.CodeNotAFork, author.CodeUnknownHypothesis})}, mut(s.Suppose))
	Register(r, Spec{Name: "author.discard", Summary: "Drop the whole workspace, or one staged declaration.", Mutating: true, Destructive: true, Fiction: true,
		Errors: errs(lawErrors, []string{author.CodeUnknownDecl, author.CodeHypothesisInUse, author.CodeBudget})}, mut(s.Discard))
	Register(r, Spec{Name: "author.materialize", Summary: "Commit the staged declarations; refused while an error finding stands.", Mutating: true, Fiction: true,
		Errors: errs(lawErrors, []string{author.CodeMaterializeBlocked, author.CodeForkLocal, author.CodeBranchMoved, author.CodeUnknownDecision, author.CodeStampCitation})}, mut(s.Materialize))
	registerReads(r, s)
	registerLedger(r, s)
	registerDeclarations(r, s)
	registerBranch(r, s)
	registerExpert(r, s)
	Register(r, Spec{Name: "dli.canon",
		Summary: "Export a scope's canon: non-dead fact objects by predicate, with the interner, decisions and attacks their support needs.",
		Errors:  []string{author.CodeUnknownScope, author.CodeUnknownCanonRev, author.CodeEvidenceCorrupt}}, read(s.ExportCanon))
	for _, k := range killedAuthorForms {
		r.Kill(k)
	}
}

// killedAuthorForms are the ops of earlier contracts that 2.0.0 no longer
// serves, each with what replaced it (DL-0085).
var killedAuthorForms = []Killed{
	{Name: "author.add_claim", Replacement: "author.add_fact", Note: "the generic claim op was split into one typed op per object"},
	{Name: "author.commit", Replacement: "author.materialize", Note: "a workspace is materialized, not committed"},
	{Name: "author.reject", Replacement: "author.discard", Note: "rejecting a staged change is discarding it"},
	{Name: "author.stage", Replacement: "author.add_fact", Note: "staging is done by the typed author.add_* ops"},
	{Name: "author.close", Replacement: "author.discard", Note: "a workspace is closed by discarding it"},
}

// mut binds a mutating use case: the envelope's digest fence and
// idempotency key become its author.Guard.
func mut[P, R any](f func(context.Context, author.Guard, *P) (R, error)) func(context.Context, *Call, *P) (R, error) {
	return func(ctx context.Context, c *Call, p *P) (R, error) {
		return f(ctx, author.Guard{Op: c.Op, ExpectedDigest: c.ExpectedDigest, IdempotencyKey: c.IdempotencyKey}, p)
	}
}

// read binds a use case that changes nothing.
func read[P, R any](f func(context.Context, *P) (R, error)) func(context.Context, *Call, *P) (R, error) {
	return func(ctx context.Context, _ *Call, p *P) (R, error) { return f(ctx, p) }
}

// registerClaim binds the op that stages one object of type T.
func registerClaim[T objects.Object](r *Registry, s *author.Service, name, summary string, fiction bool) {
	Register(r, Spec{Name: name, Summary: summary, Mutating: true, Fiction: fiction, Errors: claimErrors[T]()},
		mut(func(ctx context.Context, g author.Guard, p *author.ClaimParams[T]) (author.StageResult, error) {
			return author.AddClaim(s, ctx, g, p)
		}))
}

// registerReads binds the workspace read tools.
func registerReads(r *Registry, s *author.Service) {
	Register(r, Spec{Name: "author.status", Summary: "The staged declarations, rendered, the full findings and the digest.", Fiction: true, Errors: readErrors}, read(s.Status))
	Register(r, Spec{Name: "author.diff", Summary: "The staged change as canonical .dli, per-declaration rows, findings and the derived-consequence diff.", Fiction: true, Errors: readErrors}, read(s.Diff))
	Register(r, Spec{Name: "author.query", Summary: "Answer a goal atom with grades, paged.", Fiction: true, Errors: errs(readErrors, []string{author.CodeBadCursor, author.CodeStaleCursor})}, read(s.Query))
	Register(r, Spec{Name: "author.why", Summary: "Explain one atom: its support paths, the active ones, the blocked ones and what defeats them.", Fiction: true, Errors: readErrors}, read(s.Why))
	Register(r, Spec{Name: "author.check", Summary: "Run the check battery: every finding and whether materialize is blocked.", Fiction: true, Errors: readErrors}, read(s.Check))
	Register(r, Spec{Name: "author.entities", Summary: "List the document's entities with kinds, names and grades, paged.", Fiction: true, Errors: errs(readErrors, []string{author.CodeBadCursor, author.CodeStaleCursor})}, read(s.Entities))
	Register(r, Spec{Name: "author.history", Summary: "One claim across commits: where it was added, its standing revisions and the attacks on it.", Fiction: true, Errors: errs(readErrors, []string{author.CodeUnknownClaim})}, read(s.History))
	Register(r, Spec{Name: "author.questions", Summary: "The document's questions with their options, open or answered.", Fiction: true, Errors: readErrors}, read(s.Questions))
}

// registerLedger binds decisions, standing and defeat.
func registerLedger(r *Registry, s *author.Service) {
	Register(r, Spec{Name: "author.record_decision", Summary: "Record one baseline decision; one commit, the staged state unchanged.", Mutating: true, Fiction: true,
		Errors: errs(lawErrors, []string{author.CodeInvalidObject, author.CodeDecisionExists, author.CodeHypothesisInScope, author.CodeUnknownDecision}, ledgerErrors)}, mut(s.RecordDecision))
	Register(r, Spec{Name: "author.record_decisions", Summary: "Record an all-or-nothing ordered batch of decisions in one commit.", Mutating: true, Fiction: true,
		Errors: errs(lawErrors, []string{author.CodeInvalidObject, author.CodeDecisionExists, author.CodeHypothesisInScope, author.CodeUnknownDecision}, ledgerErrors)}, mut(s.RecordDecisions))
	Register(r, Spec{Name: "author.set_standing", Summary: "Ratify a stored provisional claim under a decision on every support path.", Mutating: true, Fiction: true,
		Errors: errs(lawErrors, []string{author.CodeUnknownClaim, author.CodeUnknownDecision, author.CodeNotProvisional, author.CodeClaimDead, author.CodeNotOnEveryPath}, ledgerErrors)}, mut(s.SetStanding))
	Register(r, Spec{Name: "author.defeat", Summary: "Record a decision that attacks one supporting a claim, so the claim's standing follows the attack.", Mutating: true, Fiction: true,
		Errors: errs(lawErrors, []string{author.CodeUnknownClaim, author.CodeUnknownDecision, author.CodeNotOnEveryPath, author.CodeAttackExists}, ledgerErrors)}, mut(s.Defeat))
}

// registerDeclarations binds constraints, identity, rules and states.
// Fiction profile membership follows DL-0121: the compact profile keeps
// the declarations a story author reaches for (functional values, one
// person under two names, rules, states) and leaves inertia policy and
// predicate identity to the extended profile.
func registerDeclarations(r *Registry, s *author.Service) {
	registerClaim[*objects.Functional](r, s, "author.declare_functional",
		"Declare a predicate functional: each subject holds at most one certain value for it.", true)
	registerClaim[*objects.Inertial](r, s, "author.declare_inertial",
		"Declare a fluent predicate inertial: an open value persists until a later distinct value on the slot.", false)
	registerClaim[*objects.SameAs](r, s, "author.assert_same_as",
		"Assert that two entity ids name the same bearer.", true)
	Register(r, Spec{Name: "author.assert_predicate_same_as",
		Summary: "Assert that two predicate names name the same property.", Mutating: true,
		Errors: claimErrors[*objects.PredicateSameAs]()}, mut(s.AssertPredicateSameAs))
	registerClaim[*objects.State](r, s, "author.add_state",
		"Stage a fluent value of an entity with its since and until anchors.", true)
	Register(r, Spec{Name: "author.add_rule",
		Summary:  "Stage one derivation rule (head :- body); a rule failing range restriction, its name or stratification is refused whole.",
		Mutating: true, Fiction: true, Errors: errs(claimErrors[*objects.Rule](), []string{author.CodeRuleRefused})}, mut(s.AddRule))
}

// registerBranch binds branch and merge.
func registerBranch(r *Registry, s *author.Service) {
	Register(r, Spec{Name: "author.branch", Summary: "Create, list or delete a durable branch of the lorestore.", Mutating: true, Destructive: true, Fiction: true,
		Errors: errs(lawErrors, []string{author.CodeUnknownBranch, author.CodeBranchExists, author.CodeBranchProtected, author.CodeBranchMoved})}, mut(s.Branch))
	Register(r, Spec{Name: "author.merge", Summary: "Merge a branch into another (default main); conflicts are reported and nothing is written.", Mutating: true, Fiction: true,
		Errors: errs(lawErrors, []string{author.CodeUnknownBranch, author.CodeUnrelatedHistories, author.CodeMergeRefused, author.CodeBranchMoved})}, mut(s.Merge))
}

// registerExpert binds the expert lane: the language ops, continuity and
// the ledger, in the extended profile only.
func registerExpert(r *Registry, s *author.Service) {
	registerClaim[*objects.Dialect](r, s, "author.add_dialect",
		"Stage a dialect and its phonology (graphemes, syllable shapes, forbidden sequences, syllable bounds): the naming oracle of its names.", false)
	registerClaim[*objects.Word](r, s, "author.add_word", "Stage a lexicon entry: a word form of a dialect and its gloss.", false)
	registerClaim[*objects.Name](r, s, "author.add_name",
		"Stage an entity's name in a dialect, optionally built from its words; a name the oracle has not passed is name.unvetted.", false)
	registerClaim[*objects.Derivation](r, s, "author.add_derivation",
		"Stage an etymology: a word of one dialect comes from a word of the same or another dialect.", false)
	registerClaim[*objects.LedgerEntry](r, s, "author.add_ledger_entry",
		"Stage a counted change to one account of an entity at an anchor; an account that cannot balance is ledger.overdrawn.", false)
	Register(r, Spec{Name: "author.add_transition", Mutating: true, Errors: errs(lawErrors, []string{author.CodeInvalidObject, author.CodeBudget}, provenanceErrors),
		Summary: "Stage a fluent value change at an anchor, with the before-fact that orders it after the slot's open value anchored elsewhere."},
		mut(s.AddTransition))
	Register(r, Spec{Name: "dli.name.check", Errors: []string{author.CodeUnknownDialect, author.CodeUnknownDoc},
		Summary: "Run the naming oracle of a dialect (configured in the project file, or declared in a workspace's scope) on a name."},
		read(s.NameCheck))
}

// RegisterDLI binds the dli.* ops of s in r — the self-description (read
// off r when called, so register everything else too), the .dli text tools
// and the read-only store tools. version is the build's.
func RegisterDLI(r *Registry, s *author.Service, version string) {
	registerMeta(r, version, s.Findings)
	Register(r, Spec{Name: "dli.check", Summary: "Check .dli text against the check battery, over its document's head unless standalone; findings placed at line and column.",
		Errors: []string{author.CodeUnknownScope, author.CodeScopeMismatch, author.CodeParseError, author.CodeBudget}}, read(s.CheckText))
	Register(r, Spec{Name: "dli.fmt", Summary: "Format .dli text in the canonical surface.", Errors: []string{author.CodeParseError}}, read(s.FormatText))
	Register(r, Spec{Name: "dli.parse", Summary: "Parse .dli text into lore objects: canonical JSON with ids and positions.", Errors: []string{author.CodeParseError}}, read(s.ParseText))
	Register(r, Spec{Name: "dli.render", Summary: "Render lore objects as a canonical .dli document.", Errors: []string{author.CodeInvalidObject}}, read(s.RenderObjects))
	Register(r, Spec{Name: "dli.validate", Summary: "Validate one lore object: its id and canonical bytes, or its field errors."}, read(s.ValidateObject))
	Register(r, Spec{Name: "dli.import", Writes: true, Summary: "Stage .dli text over a document's head: findings and consequences; with materialize, one commit when no finding is an error.",
		Errors: []string{author.CodeParseError, author.CodeUnknownScope, author.CodeScopeMismatch, author.CodeMaterializeBlocked, author.CodeBranchMoved, author.CodeProjectPinned, author.CodeNoStore, author.CodeBudget}}, read(s.ImportText))
	revErrs := []string{author.CodeNoStore, author.CodeUnknownRevision}
	Register(r, Spec{Name: "dli.object", Summary: "Read one stored object by id at a revision: scope, path, canonical JSON.",
		Errors: errs(revErrs, []string{author.CodeUnknownObject, author.CodeAmbiguousObject})}, read(s.Object))
	Register(r, Spec{Name: "dli.log", Summary: "The commit history, newest first, with trailers; filtered by scope or op.", Errors: revErrs}, read(s.Log))
	Register(r, Spec{Name: "dli.show", Summary: "One commit and the objects it added and removed.", Errors: revErrs}, read(s.Show))
	Register(r, Spec{Name: "dli.branches", Summary: "The branches and their heads, and the serving branch (read only).", Errors: []string{author.CodeNoStore}}, read(s.Branches))
	Register(r, Spec{Name: "dli.scopes", Summary: "The project's documents and the scopes a commit holds.", Errors: revErrs}, read(s.Scopes))
	Register(r, Spec{Name: "dli.export", Summary: "Every object of a scope at a revision, dead claims too, paged with a cursor.",
		Errors: errs(revErrs, []string{author.CodeUnknownScope, author.CodeBadCursor})}, read(s.Export))
	Register(r, Spec{Name: "dli.fsck", Summary: "The store's own checks: every problem found.", Errors: []string{author.CodeNoStore}}, read(s.Fsck))
	Register(r, Spec{Name: "dli.graph", Summary: "A scope's world at a revision as a graph: entities, edges, attacks with grounded labels.",
		Errors: errs(revErrs, []string{author.CodeUnknownScope})}, read(s.Graph))
	Register(r, Spec{Name: "dli.diff", Summary: "The objects of a scope added and removed between two revisions.",
		Errors: errs(revErrs, []string{author.CodeUnknownScope})}, read(s.DiffRevisions))
	Register(r, Spec{Name: "dli.project", Summary: "The loaded project: store folder, serving branch, pin and documents."}, read(s.ProjectInfo))
	Register(r, Spec{Name: "dli.declare_scope", Writes: true, Summary: "Declare a document (scope) of the project in the lore: one commit, pushed and pulled with the rest; writes to a scope need it declared.",
		Errors: []string{author.CodeNoStore, author.CodeScopeDeclared, author.CodePinnedProject, author.CodeProjectContradiction}}, read(s.DeclareScope))
}
