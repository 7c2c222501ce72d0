// Provenance variables and their valuation: which literal a claim's
// provenance contributes to its support, and whether each is true, unknown
// or false in this world.
//
//	proposed        an uncited proposed claim: unknown, so it reads possible
//	h:<hyp>         a hypothesis: true where supposed, else unknown
//	o:<option>      an option: unknown while its question is open; true for
//	                the answer, false for the others once answered
//	d:<decision>    a cited decision: true when recorded (and unattacked)
//	d:<dec>@<claim> a decision as cited by one claim whose standing was
//	                attacked: the grounded label of the decision among the
//	                attacks on that claim (in → true, out → false,
//	                undecided → unknown)

package world

import (
	"sort"

	"github.com/deloreis/deloreis/datalog"
	"github.com/deloreis/deloreis/objects"
)

const varProposed = "proposed"

func hypVar(h string) string      { return "h:" + h }
func optionVar(o string) string   { return "o:" + o }
func decisionVar(d string) string { return "d:" + d }

// claimDecisionVar names a decision as cited by one claim.
func claimDecisionVar(d string, claim objects.ID) string {
	return "d:" + d + "@" + claim.String()
}

// answerKey is the fact key that answers a question: the fact
// <question>.answer = <option> selects that option (DL-0019).
const answerKey = "answer"

// valuation maps provenance variables to truth values; absent variables
// are unknown.
type valuation map[string]datalog.Truth

// Truth implements datalog.Valuation.
func (v valuation) Truth(name string) datalog.Truth {
	if t, ok := v[name]; ok {
		return t
	}
	return datalog.Unknown
}

// attacksByClaim groups the attacks of a scope by the claim they are about.
func (ix *index) attacksByClaim() map[objects.ID][][2]string {
	out := map[objects.ID][][2]string{}
	for _, e := range ix.attacks {
		a := e.Object.(*objects.Attack)
		out[a.Claim] = append(out[a.Claim], [2]string{a.Attacker, a.Target})
	}
	return out
}

// attackedDecisions lists, per claim, the decisions attacked on its behalf:
// in that claim's support those decisions are claim-scoped variables.
func attackedDecisions(byClaim map[objects.ID][][2]string) map[objects.ID]map[string]bool {
	out := map[objects.ID]map[string]bool{}
	for c, edges := range byClaim {
		m := map[string]bool{}
		for _, e := range edges {
			m[e[1]] = true
		}
		out[c] = m
	}
	return out
}

// support is the polynomial a claim's provenance contributes.
func (w *World) support(id objects.ID, p *objects.Provenance) datalog.Poly {
	return supportUnder(w.attacked, id, p)
}

// supportUnder is the support of a claim's provenance when attacked names
// the decisions attacked on each claim's behalf.
func supportUnder(attacked map[objects.ID]map[string]bool, id objects.ID, p *objects.Provenance) datalog.Poly {
	switch p.Kind {
	case objects.ProvenanceProposed:
		return proposedPoly
	case objects.ProvenanceHypothesis:
		return datalog.VarPoly(hypVar(p.Hyp))
	case objects.ProvenanceCited:
		names := make([]string, len(p.Decisions))
		for i, d := range p.Decisions {
			names[i] = decisionVar(d)
			if attacked[id][d] {
				names[i] = claimDecisionVar(d, id)
			}
		}
		if len(names) == 1 {
			return datalog.VarPoly(names[0])
		}
		return datalog.NewPoly(names) // one monomial: every decision must hold
	}
	return proposedPoly
}

// scopedSupport is the support of a claim whose annotation lives in the
// program's rules — a rule, a predicate identity: every decision it cites
// is claim-scoped from the start, so that an attack on it later moves only
// the valuation, and its derivations die or revive with no re-fixpoint.
func scopedSupport(id objects.ID, p *objects.Provenance) datalog.Poly {
	if p.Kind != objects.ProvenanceCited {
		return supportUnder(nil, id, p)
	}
	names := make([]string, len(p.Decisions))
	for i, d := range p.Decisions {
		names[i] = claimDecisionVar(d, id)
	}
	if len(names) == 1 {
		return datalog.VarPoly(names[0])
	}
	return datalog.NewPoly(names)
}

// scopeCarriage gives each claim-scoped decision of the rules and predicate
// identities no attack names the truth of the decision itself.
func (w *World) scopeCarriage(v valuation) {
	for _, es := range [][]Entry{w.ix.rules, w.ix.predSameAs} {
		for _, e := range es {
			p, ok := objects.ProvenanceOf(e.Object)
			if !ok || p.Kind != objects.ProvenanceCited {
				continue
			}
			for _, d := range p.Decisions {
				if w.attacked[e.ID][d] {
					continue // labelled by the grounded semantics
				}
				if t, ok := v[decisionVar(d)]; ok {
					v[claimDecisionVar(d, e.ID)] = t
				}
			}
		}
	}
}

// proposedPoly is the support of every uncited proposed claim (a Poly
// never changes, so one serves them all).
var proposedPoly = datalog.VarPoly(varProposed)

func (w *World) buildValuation() valuation {
	v := valuation{varProposed: datalog.Unknown}
	for d := range w.ix.decisions {
		v[decisionVar(d)] = datalog.True
	}
	for _, h := range w.supposed {
		v[hypVar(h)] = datalog.True
	}
	for c, edges := range w.attacks {
		nodes := map[string]bool{}
		for _, e := range edges {
			nodes[e[0]], nodes[e[1]] = true, true
		}
		args := make([]string, 0, len(nodes))
		for n := range nodes {
			args = append(args, n)
		}
		sort.Strings(args)
		labels := datalog.Grounded(args, edges)
		for d := range w.attacked[c] {
			v[claimDecisionVar(d, c)] = labelTruth(labels[d])
		}
	}
	w.scopeCarriage(v)
	w.valueOptions(v)
	return v
}

func labelTruth(l datalog.Label) datalog.Truth {
	switch l {
	case datalog.In:
		return datalog.True
	case datalog.Out:
		return datalog.False
	}
	return datalog.Unknown
}

// valueOptions answers questions: an option is true when a certain fact
// <question>.answer = <option> holds, and then the question's other
// options are false; while no answer is certain, every option is unknown.
func (w *World) valueOptions(v valuation) {
	answers := w.answers(v)
	for q, question := range w.ix.questions {
		chosen := answers[q]
		for _, opt := range question.object().Options {
			switch {
			case len(chosen) == 0:
				v[optionVar(opt.Ident)] = datalog.Unknown
			case chosen[opt.Ident]:
				v[optionVar(opt.Ident)] = datalog.True
			default:
				v[optionVar(opt.Ident)] = datalog.False
			}
		}
	}
}

// answers lists, per question, the options a certain answer fact selects.
// More than one is an exclusivity conflict, reported by the checks.
func (w *World) answers(v valuation) map[string]map[string]bool {
	out := map[string]map[string]bool{}
	for _, e := range w.ix.answers {
		f := e.Object.(*objects.Fact)
		q, ok := w.ix.questions[f.Entity]
		if !ok || !hasOption(q.object(), f.Value) {
			continue
		}
		if w.support(e.ID, f.Provenance).Eval(v) == datalog.True {
			if out[f.Entity] == nil {
				out[f.Entity] = map[string]bool{}
			}
			out[f.Entity][f.Value] = true
		}
	}
	return out
}

func hasOption(q *objects.Question, id string) bool {
	for _, o := range q.Options {
		if o.Ident == id {
			return true
		}
	}
	return false
}
