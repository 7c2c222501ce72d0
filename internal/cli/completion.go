// Completion of values: where a command takes a branch, a revision, a
// scope or a remote, as an argument or a flag's value, the shell's
// completion (cobra's __complete) offers the store's own, as git's
// completion offers branches and revisions. The lists come from the use
// cases (author.Service); they are registered only when the command line
// asks for completions, so no other command pays for them.

package cli

import (
	"context"
	"slices"
	"strings"

	"github.com/deloreis/deloreis/author"
	"github.com/spf13/cobra"
)

// valueKind is what a value names.
type valueKind int

const (
	revisions      valueKind = iota // HEAD, branches, remote-tracking branches, tags; A..B ranges
	branches                        // local branches
	remotes                         // named remotes
	remoteBranches                  // the branches of the remote the first argument names (default origin)
	scopes                          // the scopes of HEAD and those the project declares
)

// argKinds say what the next positional argument of a command names,
// given those before it; false when it names nothing to offer.
var argKinds = map[string]func(cmd *cobra.Command, args []string) (valueKind, bool){
	"show":  firstArg(revisions),
	"log":   firstArg(revisions),
	"merge": firstArg(revisions),
	"branch": func(cmd *cobra.Command, args []string) (valueKind, bool) {
		if del, _ := cmd.Flags().GetBool("delete"); del {
			return branches, true // branch -d NAME…
		}
		return revisions, len(args) == 1 // branch NAME FROM
	},
	"push":          remoteThen(branches, true),
	"fetch":         remoteThen(remoteBranches, true),
	"pull":          remoteThen(remoteBranches, false),
	"sync":          firstArg(remotes),
	"remote remove": firstArg(remotes),
}

// flagKinds say what a flag's value names, by flag name, on every command
// that has the flag (but init's --scope, which declares a new one).
var flagKinds = map[string]valueKind{"scope": scopes, "branch": branches, "into": branches, "at": revisions}

func firstArg(k valueKind) func(*cobra.Command, []string) (valueKind, bool) {
	return func(_ *cobra.Command, args []string) (valueKind, bool) { return k, len(args) == 0 }
}

// remoteThen is a remote first, then then (once, or for every later
// argument when many).
func remoteThen(then valueKind, many bool) func(*cobra.Command, []string) (valueKind, bool) {
	return func(_ *cobra.Command, args []string) (valueKind, bool) {
		if len(args) == 0 {
			return remotes, true
		}
		return then, many || len(args) == 1
	}
}

// isCompletion reports whether args ask cobra for completions.
func isCompletion(args []string) bool {
	return len(args) > 0 && (args[0] == cobra.ShellCompRequestCmd || args[0] == cobra.ShellCompNoDescRequestCmd)
}

// registerCompletions gives every command of the tree under root the
// completion of its values that argKinds and flagKinds describe.
func registerCompletions(root *cobra.Command, g *globals) {
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		path := commandPath(c)
		if next, ok := argKinds[path]; ok {
			c.ValidArgsFunction = func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
				k, ok := next(cmd, args)
				if !ok {
					return nil, cobra.ShellCompDirectiveNoFileComp
				}
				return g.offer(k, args, toComplete)
			}
		}
		for name, k := range flagKinds {
			if c.LocalNonPersistentFlags().Lookup(name) == nil || path == "init" && name == "scope" {
				continue
			}
			c.RegisterFlagCompletionFunc(name, func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
				return g.offer(k, args, toComplete)
			})
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}

// offer is the names of kind that begin with toComplete; a revision may
// be the second side of a range ("main..gr" offers main..grail).
func (g *globals) offer(k valueKind, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	prefix, typed := "", toComplete
	if i := strings.LastIndex(toComplete, ".."); k == revisions && i >= 0 {
		prefix, typed = toComplete[:i+2], toComplete[i+2:]
	}
	var out []cobra.Completion
	for _, n := range g.names(k, args) {
		if strings.HasPrefix(n, typed) {
			out = append(out, prefix+n)
		}
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}

// names lists the values of kind in the project the flags name; none when
// it cannot be opened (completion stays silent).
func (g *globals) names(k valueKind, args []string) []string {
	s, err := g.service()
	if err != nil {
		return nil
	}
	defer s.Close()
	switch k {
	case remotes:
		rs, _ := s.Remotes()
		var out []string
		for _, r := range rs {
			out = append(out, r.Name)
		}
		return out
	case scopes:
		res, err := s.Scopes(context.Background(), &author.ScopesParams{})
		if err != nil {
			return nil
		}
		out := slices.Clone(res.Scopes)
		for _, d := range res.Documents {
			out = append(out, d.Scope)
		}
		slices.Sort(out)
		return slices.Compact(out)
	}
	n, err := s.RevisionNames()
	if err != nil {
		return nil
	}
	switch k {
	case branches:
		return n.Branches
	case remoteBranches:
		remote := "origin"
		if len(args) > 0 {
			remote = args[0]
		}
		var out []string
		for _, t := range n.Tracking {
			if b, ok := strings.CutPrefix(t, remote+"/"); ok && b != "HEAD" {
				out = append(out, b)
			}
		}
		return out
	}
	return slices.Concat([]string{"HEAD"}, n.Branches, n.Tracking, n.Tags)
}
