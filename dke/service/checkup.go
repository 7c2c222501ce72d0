// checkup: does the store meet the reasoning over it (contract §9.6)?

package service

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/deloreis/deloreis/base/spell"
	"github.com/deloreis/deloreis/dke/claims"
	"github.com/deloreis/deloreis/dke/eval"
	"github.com/deloreis/deloreis/fault"
)

// CheckupResult is checkup's answer: the counts, then the findings.
type CheckupResult struct {
	Status   string   `json:"status" desc:"success"`
	Counts   Counts   `json:"counts" desc:"what the store holds, the report's first line"`
	Findings []string `json:"findings" desc:"one line a finding: near pairs first (a kind likely misspelt), then unread data, unmet reads and violated constraints, each group sorted; [] for none"`
	Text     string   `json:"text" desc:"the report: the counts line, then the findings"`
}

// Counts are checkup's first line.
type Counts struct {
	Claims      int `json:"claims" desc:"the claims stored"`
	Kinds       int `json:"kinds" desc:"the kinds data is stored under"`
	Modules     int `json:"modules" desc:"the modules stored"`
	Rules       int `json:"rules" desc:"the standing rules"`
	Constraints int `json:"constraints" desc:"the standing constraints"`
}

// Checkup reports the counts, then findings: near pairs first (the likely
// misspelling of a kind, or of an attribute under the right kind), then unread data, unmet reads, and violated
// constraints, each group sorted.
func (s *Service) Checkup(ctx context.Context, p *StoreParams) (CheckupResult, error) {
	_, _, csnap, ms, err := s.begin(ctx, "checkup", p.StoreID)
	if err != nil {
		return CheckupResult{}, err
	}
	defer s.mu.Unlock()
	ctx, cancel := s.budgeted(ctx)
	defer cancel()
	rs, err := eval.ReasonContext(ctx, csnap, ms, s.cfg.Budget.Memory)
	if be, ok := eval.IsBudget(err); ok {
		return CheckupResult{}, s.budgetError("checkup", be)
	}
	if err != nil {
		return CheckupResult{}, fault.Errorf(fault.Internal, fault.CodeInternal, "checkup: %v", err)
	}
	c := Counts{Kinds: len(csnap.Kinds()), Modules: len(ms.recs), Rules: rs.Rules()}
	for _, n := range ms.names() {
		c.Constraints += len(ms.recs[n].info().Constraints)
	}
	data := map[string]int{} // Kind.attr → cells holding a value
	for _, k := range csnap.Kinds() {
		for _, cell := range csnap.Cells(k) {
			c.Claims += len(csnap.Claims(cell))
			data[k+"."+cell.Attr]++
		}
	}
	findings := findings(rs, data, c.Rules+c.Constraints > 0)
	res := CheckupResult{Status: "success", Counts: c, Findings: findings}
	res.Text = fmt.Sprintf("checkup: %s, %s, %s, %s, %s\n", plural(c.Claims, "claim", "claims"),
		plural(c.Kinds, "kind", "kinds"), plural(c.Modules, "module", "modules"),
		plural(c.Rules, "rule", "rules"), plural(c.Constraints, "constraint", "constraints")) + lines(findings)
	return res, nil
}

// findings computes the finding lines over the predicates the reasoning
// reads and the ones the data holds.
func findings(rs *eval.Reasoning, data map[string]int, reasoning bool) []string {
	if !reasoning {
		return []string{}
	}
	reads, derived := set(rs.Reads()), set(rs.Derives())
	var unread, unmet []string
	for p := range data {
		if !reads[p] {
			unread = append(unread, p)
		}
	}
	for p := range reads {
		if data[p] == 0 && !derived[p] {
			unmet = append(unmet, p)
		}
	}
	sort.Strings(unread)
	sort.Strings(unmet)
	var near, out []string
	for _, u := range unread {
		for _, m := range unmet {
			uk, ua := splitPred(u)
			mk, ma := splitPred(m)
			switch {
			case ua == ma && uk != mk && spell.SwapDistance(uk, mk) <= 1:
				near = append(near, fmt.Sprintf("near %s ~ %s: the data is written under kind %s, the reasoning reads kind %s", cellsOf(u), cellsOf(m), uk, mk))
			case uk == mk && ua != ma && spell.SwapDistance(ua, ma) <= 1:
				// The right kind, an attribute one letter off.
				near = append(near, fmt.Sprintf("near %s ~ %s: the data is written under attribute %s of kind %s, the reasoning reads attribute %s", cellsOf(u), cellsOf(m), ua, uk, ma))
			}
		}
	}
	out = append(out, near...)
	for _, u := range unread {
		out = append(out, fmt.Sprintf("unread %s: %s that no rule or constraint reads", cellsOf(u), plural(data[u], "cell", "cells")))
	}
	for _, m := range unmet {
		out = append(out, fmt.Sprintf("unmet %s: read by the reasoning, holds no value", cellsOf(m)))
	}
	vs := rs.Violations()
	sort.SliceStable(vs, func(i, j int) bool { return vs[i].Constraint < vs[j].Constraint })
	for _, v := range vs {
		out = append(out, fmt.Sprintf("violated %s: %s", v.Constraint, strings.Join(v.Cells, ", ")))
	}
	if out == nil {
		out = []string{}
	}
	return out
}

func set(xs []string) map[string]bool {
	m := make(map[string]bool, len(xs))
	for _, x := range xs {
		m[x] = true
	}
	return m
}

// splitPred splits Kind.attr.
func splitPred(p string) (string, string) {
	k, a, _ := strings.Cut(p, ".")
	return k, a
}

// cellsOf names every cell of a predicate: Kind.*.attr.
func cellsOf(p string) string {
	k, a := splitPred(p)
	return claims.Cell{Kind: k, Subject: "*", Attr: a}.String()
}
