// Why in the caller's terms: a rule or a predicate identity cites its
// decisions as claim-scoped variables from the start (scopedSupport), so
// that a later attack moves only the valuation. Until an attack names one,
// such a variable reads as the decision itself.

package world

import (
	"slices"
	"strings"

	"github.com/deloreis/deloreis/datalog"
	"github.com/deloreis/deloreis/objects"
)

// plainWhy renames, in every path, blocker and defeat of an explanation,
// the claim-scoped decision literals that no attack names to the plain
// decision literal, and puts the paths back in canonical order.
func (w *World) plainWhy(why datalog.Why) datalog.Why {
	if len(w.ix.rules) == 0 && len(w.ix.predSameAs) == 0 {
		return why // only attacks scope a decision, and those keep their names
	}
	why.Paths = w.plainPaths(why.Paths)
	why.Active = w.plainPaths(why.Active)
	for i, b := range why.Blocked {
		why.Blocked[i] = datalog.BlockedPath{Path: w.plainPath(b.Path), Blockers: w.plainPath(b.Blockers)}
	}
	slices.SortFunc(why.Blocked, func(a, b datalog.BlockedPath) int { return cmpPath(a.Path, b.Path) })
	why.BlockingDefeats = w.plainPath(why.BlockingDefeats)
	return why
}

func (w *World) plainPaths(paths [][]string) [][]string {
	out := make([][]string, len(paths))
	for i, p := range paths {
		out[i] = w.plainPath(p)
	}
	slices.SortFunc(out, cmpPath)
	return slices.CompactFunc(out, slices.Equal)
}

// cmpPath is the engine's canonical order of monomials: by length, then
// lexicographically.
func cmpPath(a, b []string) int {
	if len(a) != len(b) {
		return len(a) - len(b)
	}
	return slices.Compare(a, b)
}

func (w *World) plainPath(p []string) []string {
	out := make([]string, len(p))
	for i, lit := range p {
		out[i] = w.plainLiteral(lit)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// plainLiteral is "d:<dec>" for "d:<dec>@<claim>" when no attack on the
// claim names the decision; any other literal is itself.
func (w *World) plainLiteral(lit string) string {
	rest, ok := strings.CutPrefix(lit, "d:")
	if !ok {
		return lit
	}
	d, claim, ok := strings.Cut(rest, "@")
	if !ok {
		return lit
	}
	id, err := objects.ParseID(claim)
	if err != nil || w.attacked[id][d] {
		return lit
	}
	return decisionVar(d)
}
