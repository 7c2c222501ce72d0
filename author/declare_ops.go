// The declaration ops of DLI sections 3.11–3.15 — functional and inertial
// predicates, entity and predicate identity, rules — and author.add_state
// (section 3.17). Each stages one object whose params are its fields
// (ClaimParams). All but add_rule stage like any other add: findings stage
// it anyway and may bar materialize. add_rule is stricter: a rule that
// fails range restriction, its name or the stratification pre-flight is
// refused whole and stages nothing (DL-0120).

package author

import (
	"context"
	"fmt"
	"strings"

	"github.com/deloreis/deloreis/dli"
	"github.com/deloreis/deloreis/fault"
	"github.com/deloreis/deloreis/objects"
	"github.com/deloreis/deloreis/world"
)

// CodeRuleRefused refuses an author.add_rule whose rule fails a pre-staging
// check; the finding's code is in the message and the findings in data.
const CodeRuleRefused = "rule-refused"

func init() { ErrorCodes[CodeRuleRefused] = fault.Refused }

func (s *Service) AddRule(ctx context.Context, g Guard, p *ClaimParams[*objects.Rule]) (StageResult, error) {
	return mutate(s, g, p, p.Workspace, func(ws *Workspace) (StageResult, error) {
		defer s.under(ws, ctx)()
		return s.stageRule(ws, p.Object)
	})
}

// opAssertPredicateSameAs stages a predicate identity. A self-identity is
// a warning and a no-op (DLI section 3.15); the world closes over it
// silently, so the warning is the staging call's, from the catalogue's
// identity.self-merge (DL-0123).
func (s *Service) AssertPredicateSameAs(ctx context.Context, g Guard, p *ClaimParams[*objects.PredicateSameAs]) (StageResult, error) {
	return mutate(s, g, p, p.Workspace, func(ws *Workspace) (StageResult, error) {
		defer s.under(ws, ctx)()
		res, err := s.stageClaim(ws, p.Object)
		if err != nil || p.Object.Left != p.Object.Right {
			return res, err
		}
		id, _ := p.Object.ID()
		info, _ := world.Info(world.CodeSelfMerge)
		res.Findings = append(res.Findings, world.Finding{Code: info.Code, Severity: info.Severity, Grade: info.Grade,
			Message:   fmt.Sprintf("Predicate %s is declared the same property as itself: a harmless no-op.", p.Object.Left),
			Citations: []string{id.String()}, Data: map[string]any{"predicate": p.Object.Left}})
		return res, nil
	})
}

// stageRule checks a rule before staging it: range restriction, then its
// name, then — only once both pass — a tentative stage of the rule over
// everything staged, refused when it brings rule.unstratifiable. Any other
// finding (field.control-char, citation.unknown-decision, an arity
// conflict) stages the rule and bars materialize, as for every add.
func (s *Service) stageRule(ws *Workspace, r *objects.Rule) (StageResult, error) {
	if err := ws.checkProvenance(r); err != nil {
		return StageResult{}, err
	}
	id, err := r.ID()
	if err != nil {
		return StageResult{}, objectError(err)
	}
	if f, ok := ws.world.PreflightRule(id, r); !ok {
		return StageResult{}, ruleRefused(r, []world.Finding{f})
	}
	tentative, err := ws.world.StageContext(ws.context(), []objects.Object{r}, nil)
	if err != nil {
		return StageResult{}, budgetErr("staging", ws.limit, err)
	}
	// The candidate closes the cycle, so its head is on it and the compile
	// leaves it out; the rules already staged that it drags out with it
	// are reported too, after it.
	var unstrat []world.Finding
	for _, f := range newFindings(ws.world.Findings(), tentative.Findings()) {
		if f.Code != world.CodeRuleUnstratifiable {
			continue
		}
		if len(f.Citations) == 1 && f.Citations[0] == id.String() {
			unstrat = append([]world.Finding{f}, unstrat...)
		} else {
			unstrat = append(unstrat, f)
		}
	}
	if len(unstrat) > 0 {
		return StageResult{}, ruleRefused(r, unstrat)
	}
	return s.stageClaim(ws, r)
}

// ruleRefused is the typed refusal of a rule, naming the finding's code.
// A stratification finding says the tentative compile left the rule out;
// the refusal says why in the caller's terms: it was not staged at all.
func ruleRefused(r *objects.Rule, fs []world.Finding) *fault.Error {
	why := strings.TrimSuffix(fs[0].Message, ".")
	if fs[0].Code == world.CodeRuleUnstratifiable {
		why = "beside the rules already committed and staged it cannot be stratified: " +
			strings.TrimPrefix(why, "Rule "+r.Name+" is left out of the world: ")
	}
	return fault.Errorf(fault.Refused, CodeRuleRefused,
		"Rule %s was not staged (%s): %s. Nothing was staged; repair the rule and add it again.", r.Name, fs[0].Code, why).
		With("finding", fs[0].Code).With("findings", fs).With("rendered", dli.RenderDecl(r))
}
