// Commands that move a store between machines: push, fetch, pull and
// clone, with a progress line on a terminal and silence when piped, and
// remote, which names the places they go.

package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/deloreis/deloreis/lorestore"
	"github.com/spf13/cobra"
	"golang.org/x/term"
)

// progressFor returns a progress display on w when w is a terminal, and nil
// (no display) otherwise, so piped output stays clean.
func progressFor(w io.Writer) (lorestore.Progress, func()) {
	f, ok := w.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return nil, func() {}
	}
	return progressLine(w, 100*time.Millisecond)
}

// progressLine redraws one line on w ("stage:  42% (420/1000)"), at most
// once per interval except for the last step, and ends it with ", done.".
func progressLine(w io.Writer, interval time.Duration) (lorestore.Progress, func()) {
	var mu sync.Mutex
	var last time.Time
	var shown bool
	p := func(stage string, done, total int) {
		mu.Lock()
		defer mu.Unlock()
		now := time.Now()
		if shown && now.Sub(last) < interval && done != total {
			return
		}
		last, shown = now, true
		if total > 0 {
			fmt.Fprintf(w, "\r%s: %3d%% (%d/%d)", stage, done*100/total, done, total)
		} else {
			fmt.Fprintf(w, "\r%s: %d", stage, done)
		}
	}
	return p, func() {
		mu.Lock()
		defer mu.Unlock()
		if shown {
			fmt.Fprintln(w, ", done.")
		}
	}
}

func newPushCmd(g *globals) *cobra.Command {
	var force bool
	cmd := &cobra.Command{
		Use:   "push [remote] [branch...]",
		Short: "Send branches to a remote (default origin, main)",
		RunE: g.withStore(func(cmd *cobra.Command, args []string, s *lorestore.Store) error {
			remote, branches := splitRemote(args)
			p, finish := progressFor(cmd.ErrOrStderr())
			ups, err := s.Push(context.Background(), remote, lorestore.PushOptions{Branches: branches, Force: force, Progress: p})
			finish()
			if err != nil {
				return err
			}
			for _, u := range ups {
				printUpdate(cmd.OutOrStdout(), u)
			}
			pushHint(cmd.ErrOrStderr(), s, remote)
			return nil
		}),
	}
	cmd.Flags().BoolVarP(&force, "force", "f", false, "allow a non-fast-forward update")
	return cmd
}

func newFetchCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "fetch [remote] [branch...]",
		Short: "Bring a remote's branches (default origin, all branches)",
		RunE: g.withStore(func(cmd *cobra.Command, args []string, s *lorestore.Store) error {
			remote, branches := splitRemote(args)
			p, finish := progressFor(cmd.ErrOrStderr())
			res, err := s.Fetch(context.Background(), remote, lorestore.FetchOptions{Branches: branches, Progress: p})
			finish()
			if err != nil {
				return err
			}
			for _, u := range res.Updates {
				printUpdate(cmd.OutOrStdout(), u)
			}
			return nil
		}),
	}
}

func newPullCmd(g *globals) *cobra.Command {
	var into string
	cmd := &cobra.Command{
		Use:   "pull [remote] [branch]",
		Short: "Fetch a remote's branch (default origin, main) and merge it, fast-forwarding when possible",
		Args:  cobra.MaximumNArgs(2),
		RunE: g.withStore(func(cmd *cobra.Command, args []string, s *lorestore.Store) error {
			remote, branch := "origin", lorestore.DefaultBranch
			if len(args) > 0 {
				remote = args[0]
			}
			if len(args) > 1 {
				branch = args[1]
			}
			p, finish := progressFor(cmd.ErrOrStderr())
			res, err := s.Fetch(context.Background(), remote, lorestore.FetchOptions{Branches: []string{branch}, Progress: p})
			finish()
			if err != nil {
				return err
			}
			w := cmd.OutOrStdout()
			for _, u := range res.Updates {
				printUpdate(w, u)
			}
			if len(res.Updates) != 1 {
				return fmt.Errorf("pull: %s has no branch %s", remote, branch)
			}
			src := res.Updates[0].New
			msg := lorestore.NewMessage(fmt.Sprintf("merge %s of %s into %s", branch, remote, orDefault(into)), "merge", "")
			r, err := s.Merge(src.String(), lorestore.MergeOptions{Target: into, Message: msg, FastForward: true})
			if err != nil {
				return err
			}
			return printMerge(w, s, r, branch+" of "+remote, into)
		}),
	}
	cmd.Flags().StringVar(&into, "into", "", "target branch (default main)")
	return cmd
}

func splitRemote(args []string) (string, []string) {
	if len(args) == 0 {
		return "", nil
	}
	return args[0], args[1:]
}

func printUpdate(w io.Writer, u lorestore.RefUpdate) {
	switch {
	case u.UpToDate():
		fmt.Fprintf(w, "= %s (up to date)\n", u.Ref)
	case u.Old.IsZero():
		fmt.Fprintf(w, "* %s (new) %s\n", u.Ref, u.New.String()[:12])
	default:
		fmt.Fprintf(w, "  %s %s..%s\n", u.Ref, u.Old.String()[:12], u.New.String()[:12])
	}
}

func newCloneCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "clone <url> [dir]",
		Short: "Make a new project folder from a remote, its store at dir/" + lorestore.DefaultDir,
		Long: `Clone a remote lorestore into a new project folder dir (default: the last
part of the URL, without .git or .lore), with the store at dir/` + lorestore.DefaultDir + `,
so that "cd dir && deloreis log" works. With --store and no dir, the store
itself is made at the --store path. Every commit the new main branch
reaches is checked first; a remote holding anything else is refused and
nothing is left behind.`,
		Args: cobra.RangeArgs(1, 2),
		RunE: func(cmd *cobra.Command, args []string) error {
			storeDir, shown, cleanup, err := cloneTarget(g, args)
			if err != nil {
				return err
			}
			p, finish := progressFor(cmd.ErrOrStderr())
			s, err := lorestore.Clone(context.Background(), args[0], storeDir, lorestore.CloneOptions{Progress: p, Store: g.options()})
			finish()
			if err != nil {
				cleanup()
				return err
			}
			defer s.Close()
			fmt.Fprintf(cmd.OutOrStdout(), "Cloned %s into %s\n", args[0], shown)
			return nil
		},
	}
}

// cloneTarget decides where a clone's store goes (and which folder to name
// to the user), creating the project folder when needed; cleanup removes
// what it created.
func cloneTarget(g *globals, args []string) (store, shown string, cleanup func(), err error) {
	if len(args) == 1 && g.store != "" {
		return g.store, g.store, func() {}, nil
	}
	var dir string
	if len(args) == 2 {
		dir = args[1]
	} else if dir = projectName(args[0]); dir == "" {
		return "", "", nil, usageError{msg: fmt.Sprintf("clone: cannot name a folder after %q; give one", args[0])}
	}
	if entries, err := os.ReadDir(dir); err == nil && len(entries) > 0 {
		return "", "", nil, fmt.Errorf("clone: %s exists and is not empty", dir)
	}
	_, statErr := os.Stat(dir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", "", nil, fmt.Errorf("clone: %w", err)
	}
	cleanup = func() {
		if os.IsNotExist(statErr) {
			os.RemoveAll(dir)
		}
	}
	return filepath.Join(dir, lorestore.DefaultDir), dir, cleanup, nil
}

// projectName is the folder git would clone url into: its last path
// element without a trailing .git (or .lore).
func projectName(url string) string {
	url = strings.TrimRight(url, "/")
	if i := strings.LastIndexAny(url, "/:"); i >= 0 {
		url = url[i+1:]
	}
	for _, ext := range []string{".git", lorestore.DefaultDir} {
		url = strings.TrimSuffix(url, ext)
	}
	if url == "" || url == "." || url == ".." {
		return ""
	}
	return url
}

// pushHint says how to fix a remote whose HEAD names a branch it does not
// have: git clone of it would check nothing out.
func pushHint(w io.Writer, s *lorestore.Store, remote string) {
	rh, err := s.CheckRemoteHead(context.Background(), remote)
	if err != nil || !rh.Dangling {
		return
	}
	fmt.Fprintf(w, "hint: the remote's HEAD names a branch it does not have, so a clone of it checks nothing out.\n"+
		"hint: make HEAD name %s on the machine that holds it:\n"+
		"hint:   git --git-dir=%s symbolic-ref HEAD refs/heads/%s\n", lorestore.DefaultBranch, remotePath(rh.URL), lorestore.DefaultBranch)
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
	cmd := &cobra.Command{
		Use:   "remote",
		Short: "List, add and remove named remotes (as git remote does)",
		Args:  cobra.NoArgs,
		RunE: g.withStore(func(cmd *cobra.Command, _ []string, s *lorestore.Store) error {
			return listRemotes(cmd.OutOrStdout(), s, verbose)
		}),
	}
	cmd.Flags().BoolVarP(&verbose, "verbose", "v", false, "show each remote's URL, as git remote -v")
	list := &cobra.Command{
		Use:   "list",
		Short: "List the remotes (-v: with URLs)",
		Args:  cobra.NoArgs,
		RunE: g.withStore(func(cmd *cobra.Command, _ []string, s *lorestore.Store) error {
			return listRemotes(cmd.OutOrStdout(), s, verbose)
		}),
	}
	list.Flags().BoolVarP(&verbose, "verbose", "v", false, "show each remote's URL, as git remote -v")
	add := &cobra.Command{
		Use:   "add <name> <url>",
		Short: "Add a named remote",
		Args:  cobra.ExactArgs(2),
		RunE: g.withStore(func(cmd *cobra.Command, args []string, s *lorestore.Store) error {
			return s.CreateRemote(args[0], args[1])
		}),
	}
	remove := &cobra.Command{
		Use:     "remove <name>",
		Aliases: []string{"rm"},
		Short:   "Remove a named remote and its remote-tracking refs",
		Args:    cobra.ExactArgs(1),
		RunE: g.withStore(func(cmd *cobra.Command, args []string, s *lorestore.Store) error {
			return s.RemoveRemote(args[0])
		}),
	}
	cmd.AddCommand(list, add, remove)
	return cmd
}

func listRemotes(w io.Writer, s *lorestore.Store, verbose bool) error {
	rs, err := s.Remotes()
	if err != nil {
		return err
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
