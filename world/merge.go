// Merge conflicts: what two branch worlds disagree on over their base —
// one claim with two standings, two options of one question selected, and
// functional dependencies broken only by the union.

package world

import (
	"sort"
	"strings"

	"github.com/deloreis/deloreis/datalog"
	"github.com/deloreis/deloreis/objects"
)

// Conflict kinds.
const (
	ConflictValuation   = "valuation"
	ConflictExclusivity = "exclusivity"
	ConflictFunctional  = "functional"
)

// Conflict is one disagreement a merge brings.
type Conflict struct {
	Kind    string         `json:"kind"`
	Message string         `json:"message"`
	Claims  []string       `json:"claims"`
	Data    map[string]any `json:"data,omitempty"`
}

// MergeConflicts reports what merging ours and theirs over base would
// disagree on; merged is the world of the union.
func MergeConflicts(base, ours, theirs, merged *World) []Conflict {
	var out []Conflict
	out = append(out, valuationConflicts(base, ours, theirs)...)
	out = append(out, exclusivityConflicts(merged)...)
	out = append(out, functionalConflicts(ours, theirs, merged)...)
	return out
}

// valuationConflicts: a claim whose standing revisions differ between the
// sides, or that one side grades certain and the other dead.
func valuationConflicts(base, ours, theirs *World) []Conflict {
	var out []Conflict
	so, st := ours.standings(base), theirs.standings(base)
	for _, claim := range sortedIDs(so) {
		t, ok := st[claim]
		if !ok || t == so[claim] {
			continue
		}
		out = append(out, Conflict{Kind: ConflictValuation, Claims: []string{claim.String()},
			Message: "The claim has standing " + so[claim] + " on one side and " + t + " on the other.",
			Data:    map[string]any{"ours": so[claim], "theirs": t}})
	}
	for id := range ours.ix.byID.each() {
		if !theirs.ix.byID.has(id) {
			continue
		}
		go_, gt := ours.ClaimGrade(id), theirs.ClaimGrade(id)
		if go_ != gt && (go_ == datalog.Dead || gt == datalog.Dead) && go_ != datalog.Possible && gt != datalog.Possible {
			out = append(out, Conflict{Kind: ConflictValuation, Claims: []string{id.String()},
				Message: "The claim is " + go_.String() + " on one side and " + gt.String() + " on the other.",
				Data:    map[string]any{"ours": go_.String(), "theirs": gt.String()}})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Claims[0] < out[j].Claims[0] })
	return out
}

// standings maps each claim to the standing values its revisions give it
// beyond the base's, joined in order.
func (w *World) standings(base *World) map[objects.ID]string {
	vals := map[objects.ID][]string{}
	for _, e := range w.ix.standing {
		if base.ix.byID.has(e.ID) {
			continue
		}
		s := e.Object.(*objects.Standing)
		vals[s.Claim] = append(vals[s.Claim], string(s.Standing))
	}
	out := map[objects.ID]string{}
	for c, vs := range vals {
		out[c] = strings.Join(dedupe(vs), "+")
	}
	return out
}

func sortedIDs(m map[objects.ID]string) []objects.ID {
	ids := make([]objects.ID, 0, len(m))
	for id := range m {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return lessID(ids[i], ids[j]) })
	return ids
}

// exclusivityConflicts: a question of the merged world with more than one
// option selected by a certain answer.
func exclusivityConflicts(merged *World) []Conflict {
	var out []Conflict
	answers := merged.answers(merged.val)
	qs := make([]string, 0, len(answers))
	for q := range answers {
		qs = append(qs, q)
	}
	sort.Strings(qs)
	for _, q := range qs {
		if len(answers[q]) < 2 {
			continue
		}
		var opts []string
		for o := range answers[q] {
			opts = append(opts, o)
		}
		sort.Strings(opts)
		out = append(out, Conflict{Kind: ConflictExclusivity, Claims: []string{},
			Message: "Question " + q + " has more than one option selected: " + strings.Join(opts, ", ") + ".",
			Data:    map[string]any{"question": q, "options": opts}})
	}
	return out
}

// functionalConflicts: functional-dependency findings of the merged world
// that neither side had.
func functionalConflicts(ours, theirs, merged *World) []Conflict {
	had := map[string]bool{}
	for _, w := range []*World{ours, theirs} {
		for _, f := range w.Findings() {
			had[f.Code+"\x00"+f.Message] = true
		}
	}
	var out []Conflict
	for _, f := range merged.Findings() {
		if (f.Code == CodeFDViolation || f.Code == CodeDerivedFDViolation) && !had[f.Code+"\x00"+f.Message] {
			out = append(out, Conflict{Kind: ConflictFunctional, Claims: f.Citations, Message: f.Message, Data: f.Data})
		}
	}
	return out
}
