// Tests of the citation checks over ledger records: attacks, standing
// revisions and ratify carriage that name decisions or claims the scope
// does not hold (issue 8, item 4), and of where rule findings point.

package world

import (
	"slices"
	"strings"
	"testing"

	"github.com/deloreis/deloreis/objects"
)

func TestLedgerCitations(t *testing.T) {
	knight := fact("galahad", "title", "sir", cited("canon-1"))
	elsewhere := fact("lancelot", "title", "sir", prop) // never in the world
	knightID, elsewhereID := idOf(t, knight), idOf(t, elsewhere)
	common := []objects.Object{person("galahad", prop), decision("canon-1"), knight}
	cases := []struct {
		name   string
		record objects.Object
		want   map[string][]string // code → the Data values the findings name, sorted
	}{
		{"attack by and on unrecorded decisions",
			&objects.Attack{Attacker: "dl-404", Target: "dl-405", Claim: knightID},
			map[string][]string{CodeCitationUnknownDecision: {"dl-404", "dl-405"}}},
		{"attack by an unrecorded decision",
			&objects.Attack{Attacker: "dl-404", Target: "canon-1", Claim: knightID},
			map[string][]string{CodeCitationUnknownDecision: {"dl-404"}}},
		{"attack about a claim not in scope",
			&objects.Attack{Attacker: "canon-1", Target: "canon-1", Claim: elsewhereID},
			map[string][]string{CodeCitationUnknownClaim: {elsewhereID.String()}}},
		{"standing ratified by an unrecorded decision",
			&objects.Standing{Claim: knightID, Standing: objects.StandingRatified, Decision: "dl-404"},
			map[string][]string{CodeCitationUnknownDecision: {"dl-404"}}},
		{"standing of a claim not in scope",
			&objects.Standing{Claim: elsewhereID, Standing: objects.StandingRatified, Decision: "canon-1"},
			map[string][]string{CodeCitationUnknownClaim: {elsewhereID.String()}}},
		{"ratify by an unrecorded decision",
			&objects.Ratify{Decision: "dl-404", Claims: []objects.ID{knightID}},
			map[string][]string{CodeCitationUnknownDecision: {"dl-404"}}},
		{"ratify of a claim not in scope",
			&objects.Ratify{Decision: "canon-1", Claims: []objects.ID{knightID, elsewhereID}},
			map[string][]string{CodeCitationUnknownClaim: {elsewhereID.String()}}},
		{"every name known",
			&objects.Ratify{Decision: "canon-1", Claims: []objects.ID{knightID}},
			map[string][]string{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := compile(t, append(slices.Clone(common), c.record)...)
			recordID := idOf(t, c.record).String()
			for _, code := range []string{CodeCitationUnknownDecision, CodeCitationUnknownClaim} {
				var named []string
				for _, f := range findingsOf(w, code) {
					if f.Severity != SeverityError {
						t.Errorf("%s is %s, want error", code, f.Severity)
					}
					if !slices.Equal(f.Citations, []string{recordID}) {
						t.Errorf("%s cites %v, want the record %s", code, f.Citations, recordID)
					}
					for _, k := range []string{"decision", "claim"} {
						if v, ok := f.Data[k].(string); ok {
							named = append(named, v)
						}
					}
				}
				slices.Sort(named)
				if !slices.Equal(named, c.want[code]) {
					t.Errorf("%s names %v, want %v", code, named, c.want[code])
				}
			}
		})
	}
}

// TestLedgerCitationsStage stages and discards what a ledger record names:
// the findings follow, and the staged world equals a fresh compile.
func TestLedgerCitationsStage(t *testing.T) {
	knight := fact("galahad", "title", "sir", cited("canon-1"))
	knightID := idOf(t, knight)
	attack := &objects.Attack{Attacker: "dl-404", Target: "canon-1", Claim: knightID}
	ratify := &objects.Ratify{Decision: "canon-1", Claims: []objects.ID{knightID}}
	base := []objects.Object{person("galahad", prop), decision("canon-1"), attack, ratify}
	steps := []struct {
		name              string
		add               []objects.Object
		discard           []objects.Object
		decisions, claims int // unknown-decision and unknown-claim findings after the step
	}{
		{"claim missing", nil, nil, 1, 2},
		{"claim staged", []objects.Object{knight}, nil, 1, 0},
		{"decision recorded", []objects.Object{decision("dl-404")}, nil, 0, 0},
		{"decision discarded", nil, []objects.Object{decision("dl-404")}, 1, 0},
		{"claim discarded", nil, []objects.Object{knight}, 1, 2},
	}
	w := compile(t, base...)
	staged := slices.Clone(base)
	for _, s := range steps {
		var gone []objects.ID
		for _, o := range s.discard {
			gone = append(gone, idOf(t, o))
			staged = slices.DeleteFunc(staged, func(x objects.Object) bool { return idOf(t, x) == idOf(t, o) })
		}
		staged = append(staged, s.add...)
		nw, err := w.Stage(s.add, gone)
		if err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		w = nw
		if n := len(findingsOf(w, CodeCitationUnknownDecision)); n != s.decisions {
			t.Errorf("%s: %d unknown-decision findings, want %d", s.name, n, s.decisions)
		}
		if n := len(findingsOf(w, CodeCitationUnknownClaim)); n != s.claims {
			t.Errorf("%s: %d unknown-claim findings, want %d", s.name, n, s.claims)
		}
		fresh := compile(t, staged...)
		if got, want := codes(w), codes(fresh); !slices.Equal(got, want) {
			t.Errorf("%s: staged findings %v, fresh compile %v", s.name, got, want)
		}
	}
}

// TestRuleFindingsCiteTheRule: a rule left out of the world is cited by
// its claim id, so that a file's finding points at the rule, and the
// message speaks the domain rather than repeating the engine's code.
func TestRuleFindingsCiteTheRule(t *testing.T) {
	X, Y := objects.Var("X"), objects.Var("Y")
	atom := func(p string, args ...objects.Term) objects.Atom { return objects.Atom{Pred: p, Args: args} }
	unbound := &objects.Rule{Name: "r", Head: atom("knight", X, Y), Body: []objects.Literal{{Atom: atom("person", X)}}, Provenance: prop}
	r1 := &objects.Rule{Name: "r1", Head: atom("knight", X), Provenance: prop,
		Body: []objects.Literal{{Atom: atom("person", X)}, {Atom: atom("squire", X), Negated: true}}}
	r2 := &objects.Rule{Name: "r2", Head: atom("squire", X), Provenance: prop,
		Body: []objects.Literal{{Atom: atom("person", X)}, {Atom: atom("knight", X), Negated: true}}}
	for _, c := range []struct {
		code string
		objs []objects.Object
	}{
		{CodeRuleUnboundVariable, []objects.Object{unbound}},
		{CodeRuleUnstratifiable, []objects.Object{r1, r2}},
	} {
		t.Run(c.code, func(t *testing.T) {
			w := compile(t, append([]objects.Object{person("galahad", prop)}, c.objs...)...)
			fs := findingsOf(w, c.code)
			if len(fs) == 0 {
				t.Fatalf("no %s finding; got %v", c.code, codes(w))
			}
			for _, f := range fs {
				if len(f.Citations) != 1 {
					t.Fatalf("%s cites %v, want the rule's claim id", c.code, f.Citations)
				}
				if !slices.ContainsFunc(c.objs, func(o objects.Object) bool { return idOf(t, o).String() == f.Citations[0] }) {
					t.Errorf("%s cites %s, which is none of the rules", c.code, f.Citations[0])
				}
				if strings.Contains(f.Message, c.code) || strings.Contains(f.Message, "datalog:") {
					t.Errorf("message repeats the code or the engine's prefix: %q", f.Message)
				}
			}
		})
	}
}
