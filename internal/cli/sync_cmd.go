// The sync command, and the background sync of `serve --sync`: one
// lorestore.Sync round trip with a remote, then the world conflicts of
// every merge that round wrote or brought in, reported scope by scope.
// A sync writes its merge commit whatever the conflicts (DL-0250), so the
// report is the one place a replica hears of them: it is never dropped.

package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"time"

	"github.com/deloreis/deloreis/author"
	"github.com/deloreis/deloreis/lorestore"
	"github.com/deloreis/deloreis/world"
	"github.com/spf13/cobra"
)

// exitConflicts is sync's exit status when it synced but reports world
// conflicts: distinct from 1 (the sync failed), so a script can tell a
// replica that needs a ruling from one that needs a retry (DL-0251).
const exitConflicts = 3

// syncReport is what one sync did, as --json prints it.
type syncReport struct {
	Remote      string           `json:"remote"`
	Branch      string           `json:"branch"`
	Before      string           `json:"before"`
	Head        string           `json:"head"`
	RemoteHead  string           `json:"remote_head"` // the remote branch as last fetched ("" when it had none)
	FastForward bool             `json:"fast_forward"`
	Merged      []string         `json:"merged"` // merge commits this sync wrote
	Pushed      bool             `json:"pushed"`
	Attempts    int              `json:"attempts"`
	Conflicts   []reportConflict `json:"conflicts"`
}

// reportConflict is one world conflict a merge brought, with the merge
// and whether this sync wrote it ("merged") or fetched it ("fetched").
type reportConflict struct {
	Scope   string         `json:"scope"`
	Kind    string         `json:"kind"`
	Message string         `json:"message"`
	Claims  []string       `json:"claims"`
	Data    map[string]any `json:"data"`
	Merge   string         `json:"merge"`
	Origin  string         `json:"origin"`
}

func newSyncCmd(g *globals) *cobra.Command {
	var branch string
	var asJSON bool
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
		RunE: g.withStore(func(cmd *cobra.Command, args []string, s *lorestore.Store) error {
			remote := "origin"
			if len(args) > 0 {
				remote = args[0]
			}
			p, finish := progressFor(cmd.ErrOrStderr())
			rep, err := runSync(cmd.Context(), s, remote, branch, p)
			finish()
			if err != nil {
				return err
			}
			w := cmd.OutOrStdout()
			if asJSON {
				enc := json.NewEncoder(w)
				enc.SetIndent("", "  ")
				if err := enc.Encode(rep); err != nil {
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
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the report as JSON")
	return cmd
}

// runSync syncs once and gathers the conflicts of every merge involved.
func runSync(ctx context.Context, s *lorestore.Store, remote, branch string, p lorestore.Progress) (syncReport, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	res, err := s.Sync(ctx, remote, lorestore.SyncOptions{Branch: branch, Progress: p})
	if err != nil {
		return syncReport{}, err
	}
	rep := syncReport{
		Remote: res.Remote, Branch: res.Branch, Before: res.Before.String(), Head: res.Head.String(),
		FastForward: res.FastForward, Merged: []string{}, Pushed: res.Pushed, Attempts: res.Attempts,
		Conflicts: []reportConflict{},
	}
	if !res.Fetched.New.IsZero() {
		rep.RemoteHead = res.Fetched.New.String()
	}
	if res.Head.IsZero() {
		rep.Head = rep.Before
	}
	for _, m := range res.Merges {
		rep.Merged = append(rep.Merged, m.Commit.String())
	}
	wc := author.NewWorlds(s, worldCacheSize)
	for _, g := range []struct {
		origin string
		ms     []lorestore.MergeResult
	}{{"merged", res.Merges}, {"fetched", res.Incoming}} {
		for _, m := range g.ms {
			cs, err := mergeConflicts(s, wc, m)
			if err != nil {
				return rep, fmt.Errorf("sync: the conflicts of merge %s: %w", m.Commit.String()[:12], err)
			}
			for _, c := range cs {
				c.Merge, c.Origin = m.Commit.String(), g.origin
				rep.Conflicts = append(rep.Conflicts, c)
			}
		}
	}
	return rep, nil
}

// mergeConflicts lists, scope by scope, the world conflicts a merge commit
// brought over its base: those neither side had on its own (as
// author.merge counts them). A scope whose merged objects are one side's
// as they were brings nothing and is not compiled.
func mergeConflicts(s *lorestore.Store, wc *author.Worlds, m lorestore.MergeResult) ([]reportConflict, error) {
	if m.Base.IsZero() {
		return nil, nil // unrelated sides: nothing to hold them against
	}
	scopes, err := s.MergeScopes(m)
	if err != nil {
		return nil, err
	}
	var out []reportConflict
	for _, ms := range scopes {
		if !ms.Kept.IsZero() {
			continue // one side's scope as it was: nothing between the sides
		}
		scope := ms.Scope
		var ws [4]*world.World // base, ours, theirs, merged
		for i, c := range []lorestore.Hash{m.Base, m.Target, m.Source, m.Commit} {
			if ws[i], err = wc.Get(c, scope); err != nil {
				return nil, err
			}
		}
		had := map[string]bool{}
		for _, w := range ws[1:3] {
			for _, c := range world.MergeConflicts(w, w, w, w) {
				had[c.Kind+"\x00"+c.Message] = true
			}
		}
		for _, c := range world.MergeConflicts(ws[0], ws[1], ws[2], ws[3]) {
			if had[c.Kind+"\x00"+c.Message] {
				continue
			}
			rc := reportConflict{Scope: scope, Kind: c.Kind, Message: c.Message, Claims: c.Claims, Data: c.Data}
			if rc.Claims == nil {
				rc.Claims = []string{}
			}
			if rc.Data == nil {
				rc.Data = map[string]any{}
			}
			out = append(out, rc)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Scope < out[j].Scope })
	return out, nil
}

// worldCacheSize bounds the worlds one sync keeps: a run of fetched
// merges shares them (each merge is the next one's parent), derived from
// each other rather than compiled.
const worldCacheSize = 8

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
		fmt.Fprintf(w, "(%d attempts: the remote moved while this sync ran)\n", rep.Attempts)
	}
	for _, c := range rep.Conflicts {
		fmt.Fprintf(w, "conflict in %s: %s: %s (merge %s, %s)\n", c.Scope, c.Kind, c.Message, short(c.Merge), c.Origin)
	}
}

// syncLoop syncs at once and then every interval until ctx ends, writing
// what each round did (when it did anything) and every failure to log; a
// failure never stops the loop, and a panic in a round is reported as a
// failure. The returned function waits for the loop to end.
func syncLoop(ctx context.Context, s *lorestore.Store, remote, branch string, every time.Duration, log io.Writer) func() {
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

func syncRound(ctx context.Context, s *lorestore.Store, remote, branch string, log io.Writer) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(log, "deloreis: sync %s: failed: %v\n", remote, r)
		}
	}()
	rep, err := runSync(ctx, s, remote, branch, nil)
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
