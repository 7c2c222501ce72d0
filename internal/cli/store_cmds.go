// Commands that read or change one local store: init, log, show, branch,
// merge.

package cli

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"

	"github.com/deloreis/deloreis/author"
	"github.com/deloreis/deloreis/lorestore"
	"github.com/deloreis/deloreis/objects"
	"github.com/spf13/cobra"
)

func newInitCmd(g *globals) *cobra.Command {
	var scopes []string
	cmd := &cobra.Command{
		Use:   "init [--scope NAME]…",
		Short: "Create a project: its lorestore, its deloreis.toml, and the scopes it declares",
		Long: `Creates a project in --project (the current folder by default): its
lorestore (<project>/.lore, or the store deloreis.toml names), a
deloreis.toml holding the folder's own settings when there is none, and,
for each --scope, the declaration of that document in the lore itself, so
that a clone of the store can be served as it is.

Run over an existing project it changes nothing but the scopes it is given,
and says it reinitialized the store, as git init does.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			res, err := author.Init(author.InitOptions{Dir: g.project, Store: g.store, StoreOptions: g.options(), Scopes: scopes})
			out := cmd.OutOrStdout()
			if res.Store != "" && err == nil {
				if res.Reinitialized {
					fmt.Fprintf(out, "Reinitialized existing lorestore in %s\n", res.Store)
				} else {
					fmt.Fprintf(out, "Initialized empty lorestore in %s\n", res.Store)
				}
				if res.WroteSettings {
					fmt.Fprintf(out, "Wrote %s\n", res.Settings)
				}
			}
			for _, sc := range res.Declared {
				fmt.Fprintf(out, "Declared scope %s in the lore\n", sc)
			}
			for _, sc := range res.AlreadyThere {
				fmt.Fprintf(out, "Scope %s is declared already\n", sc)
			}
			return err
		},
	}
	cmd.Flags().StringArrayVar(&scopes, "scope", nil, "declare a document (scope) in the lore; repeat for more")
	return cmd
}

func printLog(w io.Writer, entries []lorestore.LogEntry, f *logFlags) error {
	label := func(e lorestore.LogEntry) []string {
		if f.oneline {
			return []string{e.Commit.String()[:7] + " " + e.Message.Summary}
		}
		return fullEntry(e)
	}
	var lines []string
	if f.graph {
		lines = lorestore.RenderGraph(entries, label)
	} else {
		for i, e := range entries {
			l := label(e)
			if !f.oneline && i < len(entries)-1 {
				l = append(l, "")
			}
			lines = append(lines, l...)
		}
	}
	for _, l := range lines {
		if _, err := fmt.Fprintln(w, l); err != nil {
			return err
		}
	}
	return nil
}

// fullEntry renders a commit the way git log does, trailers included.
func fullEntry(e lorestore.LogEntry) []string {
	ls := []string{"commit " + e.Commit.String()}
	if len(e.Parents) > 1 {
		var ps []string
		for _, p := range e.Parents {
			ps = append(ps, p.String()[:7])
		}
		ls = append(ls, "Merge: "+strings.Join(ps, " "))
	}
	ls = append(ls,
		fmt.Sprintf("Author: %s <%s>", e.Author.Name, e.Author.Email),
		"Date:   "+e.Author.When.Format("Mon Jan 2 15:04:05 2006 -0700"),
		"",
		"    "+e.Message.Summary,
	)
	if len(e.Message.Trailers) > 0 {
		ls = append(ls, "")
		for _, t := range e.Message.Trailers {
			ls = append(ls, "    "+t.Key+": "+t.Value)
		}
	}
	return ls
}

// expandObject resolves an abbreviated object id against every scope at
// HEAD: ok when exactly one object begins with it, an error naming the
// candidates when several do.
func expandObject(s *lorestore.Store, prefix string) (objects.ID, bool, error) {
	if len(prefix) < 4 || strings.Trim(strings.ToLower(prefix), "0123456789abcdef") != "" {
		return objects.ID{}, false, nil
	}
	sn, err := s.Snapshot("")
	if err != nil {
		return objects.ID{}, false, err
	}
	scopes, err := sn.Scopes()
	if err != nil {
		return objects.ID{}, false, err
	}
	var found []objects.ID
	for _, scope := range scopes {
		ids, err := sn.Expand(scope, prefix)
		if err != nil {
			return objects.ID{}, false, err
		}
		for _, id := range ids {
			if !slices.Contains(found, id) {
				found = append(found, id)
			}
		}
	}
	switch len(found) {
	case 0:
		return objects.ID{}, false, nil
	case 1:
		return found[0], true, nil
	}
	shown := make([]string, 0, 4)
	for _, id := range found[:min(4, len(found))] {
		shown = append(shown, id.String()[:16])
	}
	return objects.ID{}, false, fmt.Errorf("%q is ambiguous: %d objects begin with it (%s); give more digits", prefix, len(found), strings.Join(shown, ", "))
}

func showObject(w io.Writer, s *lorestore.Store, id objects.ID) error {
	sn, err := s.Snapshot("")
	if err != nil {
		return err
	}
	scopes, err := sn.Scopes()
	if err != nil {
		return err
	}
	for _, scope := range scopes {
		o, err := sn.Get(scope, id)
		if errors.Is(err, lorestore.ErrNotFound) {
			continue
		}
		if err != nil {
			return err
		}
		data, err := objects.Canonical(o)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "object %s\nscope  %s\ntype   %s\n\n%s\n", id, scope, o.Type(), data)
		return nil
	}
	return fmt.Errorf("%w: object %s at %s", lorestore.ErrNotFound, id, sn.Commit().String()[:12])
}

func newBranchCmd(g *globals) *cobra.Command {
	var del bool
	cmd := &cobra.Command{
		Use:   "branch [name [from]]",
		Short: "List, create (name [from]) or delete (-d name) branches",
		Args:  cobra.MaximumNArgs(2),
		RunE: g.withStore(func(cmd *cobra.Command, args []string, s *lorestore.Store) error {
			w := cmd.OutOrStdout()
			switch {
			case del:
				if len(args) != 1 {
					return usageError{"branch -d wants one branch name"}
				}
				return s.DeleteBranch(args[0], lorestore.ZeroHash)
			case len(args) == 0:
				return listBranches(w, s)
			default:
				from := ""
				if len(args) == 2 {
					from = args[1]
				}
				h, err := s.CreateBranch(args[0], from)
				if err != nil {
					return err
				}
				fmt.Fprintf(w, "branch %s at %s\n", args[0], h.String()[:12])
				return nil
			}
		}),
	}
	cmd.Flags().BoolVarP(&del, "delete", "d", false, "delete the branch")
	return cmd
}

func listBranches(w io.Writer, s *lorestore.Store) error {
	bs, err := s.Branches()
	if err != nil {
		return err
	}
	for _, b := range bs {
		mark := " "
		if b.Name == lorestore.DefaultBranch {
			mark = "*"
		}
		fmt.Fprintf(w, "%s %s %s\n", mark, b.Name, b.Commit.String()[:12])
	}
	return nil
}

func newMergeCmd(g *globals) *cobra.Command {
	var into string
	var ff bool
	cmd := &cobra.Command{
		Use:   "merge <source>",
		Short: "Merge a branch or commit into a branch (default main)",
		Args:  cobra.ExactArgs(1),
		RunE: g.withStore(func(cmd *cobra.Command, args []string, s *lorestore.Store) error {
			r, err := s.Merge(args[0], lorestore.MergeOptions{Target: into, FastForward: ff})
			if err != nil {
				return err
			}
			return printMerge(cmd.OutOrStdout(), s, r, args[0], into)
		}),
	}
	cmd.Flags().StringVar(&into, "into", "", "target branch (default main)")
	cmd.Flags().BoolVar(&ff, "ff", false, "move the target to the source, writing no merge commit, when the target is behind it")
	return cmd
}

// printMerge says what a merge of what into the target did, and the world
// conflicts a merge commit brought.
func printMerge(w io.Writer, s *lorestore.Store, r lorestore.MergeResult, what, into string) error {
	switch {
	case r.UpToDate:
		fmt.Fprintln(w, "Already up to date.")
		return nil
	case r.FastForward:
		fmt.Fprintf(w, "fast-forward %s %s..%s\n", orDefault(into), r.Target.String()[:12], r.Commit.String()[:12])
		return nil
	}
	fmt.Fprintf(w, "merged %s into %s: %s\n", what, orDefault(into), r.Commit.String()[:12])
	return printConflicts(w, s, r)
}

func orDefault(branch string) string {
	if branch == "" {
		return lorestore.DefaultBranch
	}
	return branch
}

// printConflicts reports what the merge brought into conflict, scope by
// scope: valuation, exclusivity and functional-dependency conflicts.
func printConflicts(w io.Writer, s *lorestore.Store, r lorestore.MergeResult) error {
	byScope, err := author.ScopeConflicts(s, r.Base, r.Target, r.Source, r.Commit)
	if err != nil {
		return err
	}
	scopes := make([]string, 0, len(byScope))
	for sc := range byScope {
		scopes = append(scopes, sc)
	}
	sort.Strings(scopes)
	for _, sc := range scopes {
		for _, c := range byScope[sc] {
			fmt.Fprintf(w, "conflict in %s: %s: %s\n", sc, c.Kind, c.Message)
		}
	}
	return nil
}
