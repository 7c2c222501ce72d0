// Typo hints: a misspelt command, subcommand or flag is told what was
// probably meant, in cobra's words ("Did you mean this?"), as git does.

package cli

import (
	"strings"

	"github.com/deloreis/deloreis/base/spell"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// hintDistance is how many edits a suggestion may be from what was typed
// (cobra's default).
const hintDistance = 2

// didYouMean is the hint under a usage error naming the candidates, or ""
// when there are none.
func didYouMean(candidates []string) string {
	if len(candidates) == 0 {
		return ""
	}
	return "Did you mean this?\n\t" + strings.Join(candidates, "\n\t")
}

// commandHint is the hint for an unknown subcommand of cmd: the nearest
// of its subcommands (see nearest).
func commandHint(cmd *cobra.Command, typed string) string {
	var names []string
	for _, c := range cmd.Commands() {
		if c.IsAvailableCommand() {
			names = append(names, c.Name())
		}
	}
	return didYouMean(nearest(typed, names, ""))
}

// flagHint is the hint for the flag a pflag error says is unknown: the
// nearest of the long flags of cmd, its own and those it inherits.
func flagHint(cmd *cobra.Command, err error) string {
	name, ok := strings.CutPrefix(err.Error(), "unknown flag: --")
	if !ok {
		return ""
	}
	name, _, _ = strings.Cut(name, "=")
	var names []string
	visit := func(f *pflag.Flag) {
		if !f.Hidden {
			names = append(names, f.Name)
		}
	}
	cmd.Flags().VisitAll(visit)
	cmd.InheritedFlags().VisitAll(visit)
	return didYouMean(nearest(name, dedupe(names), "--"))
}

// nearest are the candidates closest to typed, each after prefix: those
// that begin with it, else those fewest edits from it (at most
// hintDistance, and fewer than typed has letters; a swap of two
// neighbours is one edit, as git counts it, so that "lgo" is log rather
// than gc).
func nearest(typed string, candidates []string, prefix string) []string {
	best, out := hintDistance+1, []string(nil)
	var starts []string
	for _, c := range candidates {
		if len(typed) > 1 && strings.HasPrefix(c, typed) {
			starts = append(starts, prefix+c)
			continue
		}
		switch d := spell.SwapDistance(typed, c); {
		case d >= len(typed): // nothing of what was typed is kept
		case d < best:
			best, out = d, []string{prefix + c}
		case d == best:
			out = append(out, prefix+c)
		}
	}
	if len(starts) > 0 {
		return starts
	}
	return out
}

// dedupe drops repeated strings, keeping the first of each.
func dedupe(xs []string) []string {
	seen := map[string]bool{}
	out := xs[:0]
	for _, x := range xs {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}
