// The sync command, and the background sync of `serve --sync`: each
// round is one author.Service.Sync — a round trip with a remote, then the
// world conflicts of every merge that round wrote or brought in, scope by
// scope. A sync writes its merge commit whatever the conflicts (DL-0250),
// so the report is the one place a replica hears of them: it is never
// dropped.

package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/deloreis/deloreis/author"
	"github.com/spf13/cobra"
)

// exitConflicts is sync's exit status when it synced but reports world
// conflicts: distinct from 1 (the sync failed), so a script can tell a
// replica that needs a ruling from one that needs a retry (DL-0251).
const exitConflicts = 3

// syncReport is what one sync did, as --format json prints it.
type syncReport = author.SyncReport

func newSyncCmd(g *globals) *cobra.Command {
	var branch string
	var format *formatFlag
	cmd := &cobra.Command{
		Use:   "sync [remote]",
		Short: "Fetch a branch (default main) from a remote (default origin), merge it, push the result with a lease",
		Long: `Fetch the branch from the remote into its remote-tracking ref (every
incoming commit verified first; a refused fetch keeps nothing of what it
received), bring it into the local branch (a
fast-forward, or a merge commit), and push the result on the condition
that the remote's branch is still what was fetched; when another replica
pushed in between, fetch and try again (a few times, waiting longer each
time). Nothing is ever force-pushed.

A merge is written even when the two sides' worlds conflict (a functional
dependency broken by the union, two standings of one claim, two answers of
one question): both accounts are kept, the conflict stands as findings in
the merged world (and blocks materialize until a ruling resolves it), and
sync reports it — here, and on every replica whose sync fetches that merge.
Exit status: 0 synced, 3 synced with conflicts reported, 1 failed, 2 usage.`,
		Args: cobra.MaximumNArgs(1),
		RunE: g.withService(func(cmd *cobra.Command, args []string, s *author.Service) error {
			remote := "origin"
			if len(args) > 0 {
				remote = args[0]
			}
			p, finish := progressFor(cmd.ErrOrStderr())
			rep, err := s.Sync(cmd.Context(), author.SyncOptions{Remote: remote, Branch: branch, Progress: p})
			finish()
			if err != nil {
				return err
			}
			w := cmd.OutOrStdout()
			if format.json() {
				rep.Merged, rep.Conflicts = orEmpty(rep.Merged), orEmpty(rep.Conflicts)
				if err := format.emit(w, rep); err != nil {
					return err
				}
			} else {
				printSync(w, rep)
			}
			if len(rep.Conflicts) > 0 {
				return exitCode(exitConflicts)
			}
			return nil
		}),
	}
	cmd.Flags().StringVar(&branch, "branch", "", "the branch to sync (default main)")
	format = addFormat[syncReport](cmd)
	format.addJSONAlias(cmd)
	return cmd
}

// printSync says what a sync did, a line a step, then one line a conflict.
func printSync(w io.Writer, rep syncReport) {
	short := func(h string) string {
		if len(h) > 12 {
			return h[:12]
		}
		return h
	}
	switch {
	case rep.RemoteHead == "":
		fmt.Fprintf(w, "%s has no branch %s yet\n", rep.Remote, rep.Branch)
	default:
		fmt.Fprintf(w, "fetched %s of %s at %s\n", rep.Branch, rep.Remote, short(rep.RemoteHead))
	}
	for _, m := range rep.Merged {
		fmt.Fprintf(w, "merged %s of %s into %s: %s\n", rep.Branch, rep.Remote, rep.Branch, short(m))
	}
	if rep.FastForward {
		fmt.Fprintf(w, "fast-forward %s %s..%s\n", rep.Branch, short(rep.Before), short(rep.Head))
	}
	switch {
	case rep.Pushed:
		fmt.Fprintf(w, "pushed %s to %s: %s\n", rep.Branch, rep.Remote, short(rep.Head))
	case len(rep.Merged) == 0 && !rep.FastForward:
		fmt.Fprintln(w, "Already up to date.")
	}
	if rep.Attempts > 1 {
		fmt.Fprintf(w, "(%s: the remote moved while this sync ran)\n", plural(rep.Attempts, "attempt", "attempts"))
	}
	for _, c := range rep.Conflicts {
		fmt.Fprintf(w, "conflict in %s: %s: %s (merge %s, %s)\n", c.Scope, c.Kind, c.Message, short(c.Merge), c.Origin)
	}
}

// syncEvery syncs at once and then every interval until ctx ends, writing
// what each round did (when it did anything) and every failure to log; a
// failure never stops the loop, and a panic in a round is reported as a
// failure. The returned function waits for the loop to end.
func syncEvery(ctx context.Context, s *author.Service, remote, branch string, every time.Duration, log io.Writer) func() {
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			// A server just started serves the remote's head, not the one
			// it had when it last stopped.
			syncRound(ctx, s, remote, branch, log)
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
		}
	}()
	return func() { <-done }
}

func syncRound(ctx context.Context, s *author.Service, remote, branch string, log io.Writer) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(log, "deloreis: sync %s: failed: %v\n", remote, r)
		}
	}()
	rep, err := s.Sync(ctx, author.SyncOptions{Remote: remote, Branch: branch})
	if err != nil {
		if ctx.Err() == nil {
			fmt.Fprintf(log, "deloreis: sync %s: failed: %s\n", remote, oneLine(err))
		}
		return
	}
	if !rep.Pushed && len(rep.Merged) == 0 && !rep.FastForward && len(rep.Conflicts) == 0 {
		return // nothing moved: stay quiet
	}
	line, _ := json.Marshal(rep)
	fmt.Fprintf(log, "deloreis: sync %s: %s\n", remote, line)
}
