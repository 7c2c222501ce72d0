// Findings: what the check battery says about a world. One catalogue
// defines every code once — its severity, the strength of its evidence and
// what it means — and everything else (checks, docs/findings.md, the wire)
// derives from it.

package world

import (
	"fmt"
	"sort"
	"strings"
	"sync"
)

// Severity gates materialization: an error finding blocks it.
type Severity string

// The severities.
const (
	SeverityError Severity = "error"
	SeverityWarn  Severity = "warn"
	SeverityInfo  Severity = "info"
)

// Evidence states how strong the evidence behind a finding is:
// asserted (read off one declaration) < checked (found by comparing
// declarations) < derived (found only in the saturated world, through rules
// or identity). The wire calls it "grade".
type Evidence string

// The evidence strengths.
const (
	Asserted Evidence = "asserted"
	Checked  Evidence = "checked"
	Derived  Evidence = "derived"
)

// Finding is one graded statement about the world.
type Finding struct {
	Code      string         `json:"code" desc:"the stable finding code clients match on, domain.name (entity.unknown, continuity.fd-violation, …); dli.findings lists them all"`
	Severity  Severity       `json:"severity" desc:"error, warn or info: an error finding bars author.materialize, warn and info do not"`
	Grade     Evidence       `json:"grade" desc:"asserted, checked or derived: the strength of the evidence (asserted < checked < derived)"`
	Message   string         `json:"message" desc:"what is wrong, in the domain's words, for a reader; data, not instructions"`
	Citations []string       `json:"citations" desc:"the object ids (64 hex digits) of the claims the finding is about; [] when it names none"`
	Repair    *Repair        `json:"repair,omitempty" desc:"data a client can act on to resolve the finding; absent when there is none"`
	Data      map[string]any `json:"data,omitempty" desc:"the finding's structured details, keyed by the code's own names (entity, endpoint, ours, theirs, …; more and total when findings of one code were aggregated); absent when there are none"`
}

// Repair is data a client can act on to resolve a finding.
type Repair struct {
	Kind       string         `json:"kind" desc:"resolve-entity (pick one of candidates), run-check (call op with params) or add-before (stage author.add_before with params)"` // resolve-entity, run-check, add-before
	Candidates []string       `json:"candidates,omitempty" desc:"resolve-entity: the ids in scope to pick from, closest first; absent otherwise"`                               // resolve-entity: ids to pick from, closest first
	Op         string         `json:"op,omitempty" desc:"run-check: the op to call; absent otherwise"`                                                                          // run-check: the op to call
	Params     map[string]any `json:"params,omitempty" desc:"run-check: the op's params; add-before: earlier and later; absent otherwise"`                                      // run-check / add-before: its params
}

// CodeInfo is one catalogue entry.
type CodeInfo struct {
	Code     string
	Severity Severity
	Grade    Evidence
	Meaning  string
}

// The finding codes. Stable: clients match on them.
const (
	CodeEntityUnknown           = "entity.unknown"
	CodeNameUnvetted            = "name.unvetted"
	CodeCitationUnknownDecision = "citation.unknown-decision"
	CodeCitationUnknownClaim    = "citation.unknown-claim"
	CodeFDViolation             = "continuity.fd-violation"
	CodeDerivedFDViolation      = "continuity.derived-fd-violation"
	CodeFluentOrderUndeclared   = "continuity.fluent-order-undeclared"
	CodeFluentContradiction     = "continuity.fluent-contradiction"
	CodeInertiaUnanchored       = "continuity.inertia-unanchored"
	CodeBeforeCycle             = "chronology.before-cycle"
	CodeNotAnEra                = "chronology.not-an-era"
	CodeSelfMerge               = "identity.self-merge"
	CodeTemporalUnsupported     = "identity.temporal-unsupported"
	CodeSortMismatch            = "identity.sort-mismatch"
	CodePolicyPromoted          = "predicate-identity.policy-promoted"
	CodeArityMismatch           = "predicate-identity.arity-mismatch"
	CodeArityConflict           = "predicate.arity-conflict"
	CodeRuleUnboundVariable     = "rule.unbound-variable"
	CodeRuleDuplicate           = "rule.duplicate"
	CodeRuleUnstratifiable      = "rule.unstratifiable"
	CodeFieldControlChar        = "field.control-char"
	CodeConsequenceChanged      = "consequence.changed"
	CodeWordUnknown             = "language.word-unknown"
	CodeEtymologyCycle          = "language.etymology-cycle"
	CodeLedgerOverdrawn         = "ledger.overdrawn"
)

// Catalogue lists every finding code, in code order.
var Catalogue = []CodeInfo{
	{CodeBeforeCycle, SeverityError, Checked, "The declared order of events closes a cycle: an event would come before itself."},
	{CodeNotAnEra, SeverityError, Checked, "An event's era names an entity or event in scope that is not an era; the event is staged but cannot materialize until its era names one."},
	{CodeCitationUnknownClaim, SeverityError, Checked, "An attack, standing revision or ratify record names a claim that is not in the scope."},
	{CodeCitationUnknownDecision, SeverityError, Checked, "A cited provenance, attack, standing revision or ratify record names a decision that is not recorded in the scope."},
	{CodeConsequenceChanged, SeverityWarn, Checked, "A supposition may move derived consequences; author.diff shows which."},
	{CodeDerivedFDViolation, SeverityError, Derived, "A functional predicate holds two distinct certain values for one subject in the saturated world (through rules or identity), though not among the authored facts."},
	{CodeFDViolation, SeverityError, Checked, "A functional predicate holds two distinct certain values for one subject among the authored facts."},
	{CodeFluentContradiction, SeverityError, Checked, "Two distinct certain values of one inertial fluent hold at once (the same anchor, or overlapping authored spans)."},
	{CodeFluentOrderUndeclared, SeverityWarn, Checked, "Two distinct values of one inertial fluent have anchors whose order is not declared; a before-fact settles it."},
	{CodeInertiaUnanchored, SeverityWarn, Asserted, "A value of an inertial fluent has no since anchor, so where it starts to hold is unknown."},
	{CodeEntityUnknown, SeverityError, Checked, "A claim names an entity that is not in scope; the claim is staged but cannot materialize until it exists."},
	{CodeFieldControlChar, SeverityError, Asserted, "A field holds a control character."},
	{CodeSelfMerge, SeverityWarn, Asserted, "A same-as claim names one id twice: a harmless no-op merge."},
	{CodeSortMismatch, SeverityWarn, Asserted, "A same-as claim joins entities of different declared kinds."},
	{CodeTemporalUnsupported, SeverityError, Asserted, "A same-as claim names an era or an event: identity over the chronology spine is refused."},
	{CodeEtymologyCycle, SeverityWarn, Checked, "Derivations between words close a cycle: a word would come from itself."},
	{CodeWordUnknown, SeverityWarn, Checked, "A name or a derivation names a word its dialect's lexicon does not hold."},
	{CodeLedgerOverdrawn, SeverityError, Checked, "An account's entries cannot balance: even with every possible credit and only the certain debits, its closing balance is below zero."},
	{CodeNameUnvetted, SeverityWarn, Asserted, "A name has not passed the naming oracle; it enters proposed and unvetted."},
	{CodeArityMismatch, SeverityError, Checked, "Predicates declared the same property are used with different numbers of arguments."},
	{CodePolicyPromoted, SeverityWarn, Derived, "A predicate identity makes a functional or inertial declaration of one member apply to the whole identity component."},
	{CodeArityConflict, SeverityError, Checked, "A claim uses a predicate (a fact key, relation, entity kind or implied atom) with another number of arguments than the rest of the world; it is left out until one of the uses is renamed."},
	{CodeRuleDuplicate, SeverityError, Asserted, "A rule name is already staged or already in the compiled base."},
	{CodeRuleUnboundVariable, SeverityError, Asserted, "A head or negated-literal variable of a rule is bound by no positive body atom."},
	{CodeRuleUnstratifiable, SeverityError, Checked, "The rules, with this one, recurse through negation."},
}

// catalogueIndex is Catalogue by code, built on first use rather than at
// every start of the programs that link the world.
var catalogueIndex = sync.OnceValue(func() map[string]CodeInfo {
	m := make(map[string]CodeInfo, len(Catalogue))
	for _, c := range Catalogue {
		m[c.Code] = c
	}
	return m
})

// Info returns the catalogue entry of a code.
func Info(code string) (CodeInfo, bool) {
	c, ok := catalogueIndex()[code]
	return c, ok
}

// newFinding makes a finding of a catalogued code; its severity and grade
// come from the catalogue, never from the call site.
func newFinding(code, format string, args ...any) Finding {
	c, ok := catalogueIndex()[code]
	if !ok {
		panic("world: finding code not in the catalogue: " + code)
	}
	return Finding{Code: code, Severity: c.Severity, Grade: c.Grade, Message: fmt.Sprintf(format, args...), Citations: []string{}}
}

// Blocking reports whether any finding is an error.
func Blocking(fs []Finding) bool {
	for _, f := range fs {
		if f.Severity == SeverityError {
			return true
		}
	}
	return false
}

// sortFindings orders findings deterministically: by code, message, then
// citations.
func sortFindings(fs []Finding) {
	sort.SliceStable(fs, func(i, j int) bool {
		if fs[i].Code != fs[j].Code {
			return fs[i].Code < fs[j].Code
		}
		if fs[i].Message != fs[j].Message {
			return fs[i].Message < fs[j].Message
		}
		return strings.Join(fs[i].Citations, ",") < strings.Join(fs[j].Citations, ",")
	})
}
