// Commands that read or change one local store: init, log, show, branch,
// merge.

package cli

import (
	"fmt"
	"io"

	"github.com/deloreis/deloreis/author"
	"github.com/spf13/cobra"
)

func newInitCmd(g *globals) *cobra.Command {
	var scopes []string
	var format *formatFlag
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
			if format.json() {
				if err != nil {
					return err
				}
				return format.emit(out, initReport{Store: res.Store, Reinitialized: res.Reinitialized, WroteSettings: res.WroteSettings,
					Settings: res.Settings, Declared: orEmpty(res.Declared), AlreadyThere: orEmpty(res.AlreadyThere)})
			}
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
	format = addFormat[initReport](cmd)
	return cmd
}

func newBranchCmd(g *globals) *cobra.Command {
	var del bool
	var format *formatFlag
	cmd := &cobra.Command{
		Use:   "branch [name [from]]",
		Short: "List, create (name [from]) or delete (-d name) branches",
		Args:  cobra.MaximumNArgs(2),
		RunE: g.withService(func(cmd *cobra.Command, args []string, s *author.Service) error {
			r, err := branchAction(s, args, del)
			if err != nil {
				return err
			}
			w := cmd.OutOrStdout()
			if format.json() {
				return format.emit(w, r)
			}
			for _, b := range r.Branches {
				switch r.Action {
				case "delete":
					fmt.Fprintf(w, "Deleted branch %s (was %s).\n", b.Name, b.Head[:12])
				case "create":
					fmt.Fprintf(w, "branch %s at %s\n", b.Name, b.Head[:12])
				default:
					mark := " "
					if b.Name == author.DefaultBranch {
						mark = "*"
					}
					fmt.Fprintf(w, "%s %s %s\n", mark, b.Name, b.Head[:12])
				}
			}
			return nil
		}),
	}
	cmd.Flags().BoolVarP(&del, "delete", "d", false, "delete the branch")
	format = addFormat[branchReport](cmd)
	return cmd
}

// branchAction lists, creates or deletes branches as branch's arguments
// say, and answers what it did.
func branchAction(s *author.Service, args []string, del bool) (branchReport, error) {
	switch {
	case del:
		if len(args) != 1 {
			return branchReport{}, usageError{"branch -d wants one branch name"}
		}
		b, err := s.DeleteBranch(args[0])
		return branchReport{Action: "delete", Branches: []author.BranchInfo{b}}, err
	case len(args) == 0:
		bs, err := s.ListBranches()
		return branchReport{Action: "list", Branches: orEmpty(bs)}, err
	default:
		from := ""
		if len(args) == 2 {
			from = args[1]
		}
		b, err := s.CreateBranch(args[0], from, true)
		return branchReport{Action: "create", Branches: []author.BranchInfo{b}}, err
	}
}

func newMergeCmd(g *globals) *cobra.Command {
	var into string
	var format *formatFlag
	var ff bool
	cmd := &cobra.Command{
		Use:   "merge <source>",
		Short: "Merge a branch or commit into a branch (default main); a merge that brings conflicts writes nothing",
		Long: `Merges the source (a branch, or any revision) into the target branch
(--into, default main): the union of both sides over their merge base,
written as a two-parent commit only when the merged world is safe, exactly
as author.merge does. A merge that would bring a conflict between the
sides (valuation, exclusivity, functional) or an error finding neither side
had is held back: it prints the report, writes nothing and exits 1.`,
		Args: cobra.ExactArgs(1),
		RunE: g.withService(func(cmd *cobra.Command, args []string, s *author.Service) error {
			r, err := s.MergeBranches(author.MergeRequest{Source: args[0], AnyRevision: true, Target: into, FastForward: ff})
			if err != nil {
				return err
			}
			w := cmd.OutOrStdout()
			if format.json() {
				r.Conflicts, r.Findings = orEmpty(r.Conflicts), orEmpty(r.Findings)
				if err := format.emit(w, r); err != nil {
					return err
				}
			} else {
				printMergeResult(w, r, args[0], into)
			}
			return mergeHeld(r, args[0], into)
		}),
	}
	cmd.Flags().StringVar(&into, "into", "", "target branch (default main)")
	cmd.Flags().BoolVar(&ff, "ff", false, "move the target to the source, writing no merge commit, when the target is behind it")
	format = addFormat[author.AuthorMergeResult](cmd) // author.merge's report, as served (TestMergeIsOneUseCase)
	return cmd
}

// printMergeResult says what a merge of what into the target did, or, when
// it was held back, every conflict and new error finding that held it.
func printMergeResult(w io.Writer, r author.AuthorMergeResult, what, into string) {
	switch {
	case r.UpToDate:
		fmt.Fprintln(w, "Already up to date.")
	case r.FastForward:
		fmt.Fprintf(w, "fast-forward %s %s..%s\n", orDefault(into), r.TargetHead[:12], r.RootHash[:12])
	case r.Merged:
		fmt.Fprintf(w, "merged %s into %s: %s\n", what, orDefault(into), r.RootHash[:12])
	default:
		for _, c := range r.Conflicts {
			fmt.Fprintf(w, "conflict in %s: %s: %s\n", c.Scope, c.Kind, c.Message)
		}
		for _, f := range r.Findings {
			fmt.Fprintf(w, "finding in %s: %s: %s\n", f.Scope, f.Code, f.Message)
		}
	}
}

// mergeHeld is the error of a merge held back by its report (exit 1),
// nil for one that merged or had nothing to do.
func mergeHeld(r author.AuthorMergeResult, what, into string) error {
	if r.Merged || r.UpToDate {
		return nil
	}
	return fmt.Errorf("merge of %s into %s held back by %s and %s; nothing was written", what, orDefault(into),
		plural(len(r.Conflicts), "conflict", "conflicts"), plural(len(r.Findings), "new error finding", "new error findings"))
}

func orDefault(branch string) string {
	if branch == "" {
		return author.DefaultBranch
	}
	return branch
}
