// Commands that move a store between machines: push, fetch and clone, with
// a progress line on a terminal and silence when piped.

package main

import (
	"context"
	"fmt"
	"io"
	"os"
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
		Short: "Make a new store from a remote (dir defaults to the store path)",
		Args:  cobra.RangeArgs(1, 2),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := g.storeDir()
			if len(args) == 2 {
				dir = args[1]
			}
			p, finish := progressFor(cmd.ErrOrStderr())
			s, err := lorestore.Clone(context.Background(), args[0], dir, lorestore.CloneOptions{Progress: p, Store: g.options()})
			finish()
			if err != nil {
				return err
			}
			defer s.Close()
			fmt.Fprintf(cmd.OutOrStdout(), "Cloned %s into %s\n", args[0], dir)
			return nil
		},
	}
}
