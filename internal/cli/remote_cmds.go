// Commands that move a store between machines: push, fetch, pull and
// clone, with a progress line on a terminal and silence when piped, and
// remote, which names the places they go. Each is a thin adapter over
// author's use case of the same name (author/remote.go).

package cli

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/deloreis/deloreis/author"
	"github.com/spf13/cobra"
)

func newPushCmd(g *globals) *cobra.Command {
	var force bool
	var format *formatFlag
	cmd := &cobra.Command{
		Use:   "push [remote] [branch...]",
		Short: "Send branches to a remote (default origin, main)",
		RunE: g.withService(func(cmd *cobra.Command, args []string, s *author.Service) error {
			remote, branches := splitRemote(args)
			p, finish := progressFor(cmd.ErrOrStderr())
			res, err := s.Push(context.Background(), author.PushOptions{Remote: remote, Branches: branches, Force: force, Progress: p})
			finish()
			if err != nil {
				return err
			}
			if format.json() {
				err = format.emit(cmd.OutOrStdout(), pushReport{Updates: updatesJSON(res.Updates), DanglingHead: res.DanglingHead,
					HeadBranch: res.HeadBranch, URL: res.URL})
			} else {
				for _, u := range res.Updates {
					printUpdate(cmd.OutOrStdout(), u)
				}
			}
			if res.DanglingHead { // stderr, in either format
				pushHint(cmd.ErrOrStderr(), res)
			}
			return err
		}),
	}
	cmd.Flags().BoolVarP(&force, "force", "f", false, "allow a non-fast-forward update")
	format = addFormat[pushReport](cmd)
	return cmd
}

func newFetchCmd(g *globals) *cobra.Command {
	var format *formatFlag
	cmd := &cobra.Command{
		Use:   "fetch [remote] [branch...]",
		Short: "Bring a remote's branches (default origin, all branches)",
		RunE: g.withService(func(cmd *cobra.Command, args []string, s *author.Service) error {
			remote, branches := splitRemote(args)
			p, finish := progressFor(cmd.ErrOrStderr())
			res, err := s.Fetch(context.Background(), author.FetchOptions{Remote: remote, Branches: branches, Progress: p})
			finish()
			if err != nil {
				return err
			}
			if format.json() {
				return format.emit(cmd.OutOrStdout(), fetchReport{Updates: updatesJSON(res.Updates)})
			}
			for _, u := range res.Updates {
				printUpdate(cmd.OutOrStdout(), u)
			}
			return nil
		}),
	}
	format = addFormat[fetchReport](cmd)
	return cmd
}

func newPullCmd(g *globals) *cobra.Command {
	var into string
	var format *formatFlag
	cmd := &cobra.Command{
		Use:   "pull [remote] [branch]",
		Short: "Fetch a remote's branch (default origin, main) and merge it, fast-forwarding when possible",
		Args:  cobra.MaximumNArgs(2),
		RunE: g.withService(func(cmd *cobra.Command, args []string, s *author.Service) error {
			o := author.PullOptions{Into: into}
			if len(args) > 0 {
				o.Remote = args[0]
			}
			if len(args) > 1 {
				o.Branch = args[1]
			}
			var endProgress func()
			o.Progress, endProgress = progressFor(cmd.ErrOrStderr())
			res, err := s.Pull(context.Background(), o)
			endProgress()
			if format.json() {
				// As far as it got, as the text says it.
				if jerr := format.emit(cmd.OutOrStdout(), pullJSON(res)); jerr != nil {
					return jerr
				}
			} else {
				printPull(cmd.OutOrStdout(), res)
			}
			if err == nil && len(res.Conflicts) > 0 {
				return exitCode(exitFailed) // reported above, as git pull exits 1
			}
			return err
		}),
	}
	cmd.Flags().StringVar(&into, "into", "", "target branch (default main)")
	format = addFormat[pullReport](cmd)
	return cmd
}

// printPull says what a pull did, as far as it got: the fetched refs,
// then the merge and the world conflicts a merge commit brought.
func printPull(w io.Writer, r author.PullResult) {
	for _, u := range r.Updates {
		printUpdate(w, u)
	}
	switch {
	case r.UpToDate:
		fmt.Fprintln(w, "Already up to date.")
	case r.FastForward:
		fmt.Fprintf(w, "fast-forward %s %s..%s\n", r.Into, r.Before[:12], r.Head[:12])
	case r.Merged:
		fmt.Fprintf(w, "merged %s of %s into %s: %s\n", r.Branch, r.Remote, r.Into, r.Head[:12])
		for _, c := range r.Conflicts {
			fmt.Fprintf(w, "conflict in %s: %s: %s\n", c.Scope, c.Kind, c.Message)
		}
	}
}

func splitRemote(args []string) (string, []string) {
	if len(args) == 0 {
		return "", nil
	}
	return args[0], args[1:]
}

func printUpdate(w io.Writer, u author.RefUpdate) {
	switch {
	case u.UpToDate():
		fmt.Fprintf(w, "= %s (up to date)\n", u.Ref)
	case u.Created():
		fmt.Fprintf(w, "* %s (new) %s\n", u.Ref, u.New[:12])
	default:
		fmt.Fprintf(w, "  %s %s..%s\n", u.Ref, u.Old[:12], u.New[:12])
	}
}

func newCloneCmd(g *globals) *cobra.Command {
	var format *formatFlag
	cmd := &cobra.Command{
		Use:   "clone <url> [dir]",
		Short: "Make a new project folder from a remote, its store at dir/" + author.DefaultStoreDir,
		Long: `Clone a remote lorestore into a new project folder dir (default: the last
part of the URL, without .git or .lore), with the store at dir/` + author.DefaultStoreDir + `,
so that "cd dir && deloreis log" works. With --store and no dir, the store
itself is made at the --store path. Every commit the new main branch
reaches is checked first; a remote holding anything else is refused and
nothing is left behind.`,
		Args: cobra.RangeArgs(1, 2),
		RunE: func(cmd *cobra.Command, args []string) error {
			o := author.CloneOptions{URL: args[0], StoreOptions: g.options()}
			shown := g.store
			switch {
			case len(args) == 1 && g.store != "":
				o.Store = g.store
			case len(args) == 2:
				o.Dir = args[1]
			default:
				if o.Dir = projectName(args[0]); o.Dir == "" {
					return usageError{msg: fmt.Sprintf("clone: cannot name a folder after %q; give one", args[0])}
				}
			}
			if o.Dir != "" {
				shown = o.Dir
			}
			var finish func()
			o.Progress, finish = progressFor(cmd.ErrOrStderr())
			res, err := author.Clone(context.Background(), o)
			finish()
			if err != nil {
				return err
			}
			if format.json() {
				return format.emit(cmd.OutOrStdout(), cloneReport{URL: args[0], Dir: res.Dir, Store: res.Store})
			}
			fmt.Fprintf(cmd.OutOrStdout(), "Cloned %s into %s\n", args[0], shown)
			return nil
		},
	}
	format = addFormat[cloneReport](cmd)
	return cmd
}

// projectName is the folder git would clone url into: its last path
// element without a trailing .git (or .lore).
func projectName(url string) string {
	url = strings.TrimRight(url, "/")
	if i := strings.LastIndexAny(url, "/:"); i >= 0 {
		url = url[i+1:]
	}
	for _, ext := range []string{".git", author.DefaultStoreDir} {
		url = strings.TrimSuffix(url, ext)
	}
	if url == "" || url == "." || url == ".." {
		return ""
	}
	return url
}

// pushHint says how to fix a remote whose HEAD names a branch it does not
// have: git clone of it would check nothing out.
func pushHint(w io.Writer, r author.PushResult) {
	fmt.Fprintf(w, "hint: the remote's HEAD names a branch it does not have, so a clone of it checks nothing out.\n"+
		"hint: make HEAD name %s on the machine that holds it:\n"+
		"hint:   git --git-dir=%s symbolic-ref HEAD refs/heads/%s\n", r.HeadBranch, remotePath(r.URL), r.HeadBranch)
}

// remotePath is the repository path in a URL, for the hint's command.
func remotePath(url string) string {
	if rest, ok := strings.CutPrefix(url, "file://"); ok {
		return rest
	}
	if i := strings.Index(url, "://"); i >= 0 {
		if j := strings.IndexByte(url[i+3:], '/'); j >= 0 {
			return url[i+3+j:]
		}
	}
	return url
}

func newRemoteCmd(g *globals) *cobra.Command {
	var verbose bool
	var format, listFormat *formatFlag
	cmd := &cobra.Command{
		Use:   "remote",
		Short: "List, add and remove named remotes (as git remote does)",
		Args:  cobra.NoArgs,
		RunE: g.withService(func(cmd *cobra.Command, _ []string, s *author.Service) error {
			return listRemotes(cmd.OutOrStdout(), s, verbose, format)
		}),
	}
	cmd.Flags().BoolVarP(&verbose, "verbose", "v", false, "show each remote's URL, as git remote -v")
	format = addFormat[remotesReport](cmd)
	list := &cobra.Command{
		Use:   "list",
		Short: "List the remotes (-v: with URLs)",
		Args:  cobra.NoArgs,
		RunE: g.withService(func(cmd *cobra.Command, _ []string, s *author.Service) error {
			return listRemotes(cmd.OutOrStdout(), s, verbose, listFormat)
		}),
	}
	list.Flags().BoolVarP(&verbose, "verbose", "v", false, "show each remote's URL, as git remote -v")
	listFormat = addFormat[remotesReport](list)
	add := &cobra.Command{
		Use:   "add <name> <url>",
		Short: "Add a named remote",
		Args:  cobra.ExactArgs(2),
		RunE: g.withService(func(cmd *cobra.Command, args []string, s *author.Service) error {
			return s.AddRemote(args[0], args[1])
		}),
	}
	remove := &cobra.Command{
		Use:     "remove <name>",
		Aliases: []string{"rm"},
		Short:   "Remove a named remote and its remote-tracking refs",
		Args:    cobra.ExactArgs(1),
		RunE: g.withService(func(cmd *cobra.Command, args []string, s *author.Service) error {
			return s.RemoveRemote(args[0])
		}),
	}
	cmd.AddCommand(list, add, remove)
	return cmd
}

func listRemotes(w io.Writer, s *author.Service, verbose bool, format *formatFlag) error {
	rs, err := s.Remotes()
	if err != nil {
		return err
	}
	if format.json() {
		r := remotesReport{Remotes: []remoteJSON{}}
		for _, x := range rs {
			r.Remotes = append(r.Remotes, remoteJSON{Name: x.Name, URLs: orEmpty(x.URLs)})
		}
		return format.emit(w, r)
	}
	for _, r := range rs {
		if !verbose {
			fmt.Fprintln(w, r.Name)
			continue
		}
		for _, u := range r.URLs {
			fmt.Fprintf(w, "%s\t%s (fetch)\n%s\t%s (push)\n", r.Name, u, r.Name, u)
		}
	}
	return nil
}
