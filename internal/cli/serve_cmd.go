// The serve command: the dli.* worker protocol on standard input and
// output — one JSON request a line in, one response a line out — over the
// project's documents, or over the bundled demo project when no --project
// is given.

package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/deloreis/deloreis/author"
	"github.com/deloreis/deloreis/demoworld"
	"github.com/deloreis/deloreis/internal/gcpolicy"
	"github.com/deloreis/deloreis/mcpserve"
	"github.com/deloreis/deloreis/worker"
	"github.com/spf13/cobra"
)

func newServeCmd(g *globals) *cobra.Command {
	var syncRemote, review string
	var every time.Duration
	var demo bool
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve the author.* and dli.* ops as JSON on stdio over the project (--demo: the bundled demo project)",
		Long: `Reads one JSON request a line on standard input and writes one response a
line on standard output, in order, until standard input ends:

    {"dli":"2.0.0","id":"rq-1","op":"author.open","params":{"scope":"camelot"}}

The project is found from the current folder (or --project) up, as git
finds its repository; the lore declares its documents (scopes), and its
deloreis.toml the serving branch and an optional pinned commit. With
--demo, the bundled demo project is built in a temporary folder and
served; outside any project, serve says so and exits 1.
In a pinned project (pin in deloreis.toml) every workspace opens at the
pin: staging works, and the ops that would commit (author.materialize,
author.record_decision(s), author.set_standing, author.defeat,
author.merge) are refused as pinned-project, so no branch moves.
With --sync REMOTE, the serving branch is synced with REMOTE (as deloreis
sync does) when the server starts and every --every after, in the
background: workspaces opened after a sync open on the synced head, open
ones keep their base, and what each sync did, its conflicts and its
failures go to standard error as they happen (a failed sync is retried at
the next tick and never stops the server).
Diagnostics go to standard error; the exit status is 0 when standard input
ends, 1 when the project cannot be served.
` + reviewHelp,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if every <= 0 {
				return usageError{msg: "serve: --every must be a positive duration"}
			}
			token := os.Getenv("DELOREIS_MCP_TOKEN")
			if review != "" {
				if err := mcpserve.CheckBind(review, token); err != nil {
					return usageError{"--review: " + err.Error()}
				}
			}
			defer gcpolicy.StartServer(cmd.ErrOrStderr())() // DL-0295
			sv, err := g.served(demo, cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			defer sv.cleanup()
			if review != "" {
				stopDesk, err := startReview(sv.svc, review, token, cmd.ErrOrStderr())
				if err != nil {
					return err
				}
				defer stopDesk()
			}
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			if syncRemote != "" {
				syncCtx, cancel := context.WithCancel(ctx)
				wait := syncEvery(syncCtx, sv.svc, syncRemote, sv.branch, every, cmd.ErrOrStderr())
				// The loop ends before the store closes: a round in flight
				// finishes or is cancelled, never cut off by a closed store.
				defer wait()
				defer cancel()
			}
			err = sv.reg.ServeStdio(ctx, cmd.InOrStdin(), cmd.OutOrStdout())
			if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
				return nil // SIGTERM or an interrupt: a clean stop, the store closed behind it
			}
			return err
		},
	}
	cmd.Flags().StringVar(&syncRemote, "sync", "", "sync the serving branch with this remote (a name or URL) in the background")
	cmd.Flags().BoolVar(&demo, "demo", false, "serve the bundled demo project, built in a temporary folder")
	cmd.Flags().StringVar(&review, "review", "", "serve the reviewer's desk on this host:port (loopback unless $DELOREIS_MCP_TOKEN)")
	cmd.Flags().DurationVar(&every, "every", 30*time.Second, "how often --sync syncs")
	return cmd
}

// served is a project being served: its registry, its use cases and
// serving branch, and what to close after serving.
type served struct {
	reg     *worker.Registry
	svc     *author.Service
	branch  string
	cleanup func()
}

// errNoProjectToServe is what serve and mcp say outside any project.
var errNoProjectToServe = errors.New("no deloreis project here or in any folder above (none holds deloreis.toml or a .lore/ store): run `deloreis init --scope NAME` to make one, or add --demo to serve the bundled demo project")

// served opens the project found from --project (the current folder by
// default) up, as git finds its repository, or the store --store names —
// or, with demo, builds the bundled demo project in a temporary folder —
// and the registry serving it.
func (g *globals) served(demo bool, stderr io.Writer) (*served, error) {
	cleanups := []func(){}
	cleanup := func() {
		for i := len(cleanups) - 1; i >= 0; i-- {
			cleanups[i]()
		}
	}
	o := author.OpenOptions{Dir: g.project, Store: g.store, StoreOptions: g.options()}
	if demo {
		tmp, err := os.MkdirTemp("", "deloreis-demo-")
		if err != nil {
			return nil, err
		}
		cleanups = append(cleanups, func() { os.RemoveAll(tmp) })
		s, err := demoworld.BuildProject(tmp)
		if err != nil {
			cleanup()
			return nil, err
		}
		s.Close()
		o = author.OpenOptions{Dir: tmp, StoreOptions: g.options()}
		fmt.Fprintf(stderr, "deloreis: serving the bundled demo project (%s)\n", tmp)
	}
	svc, err := author.Open(o)
	if errors.Is(err, author.ErrNoProject) {
		cleanup()
		return nil, errNoProjectToServe
	}
	if err != nil {
		cleanup()
		return nil, err
	}
	cleanups = append(cleanups, func() { svc.Close() })
	ab, _, err := g.budgets()
	if err != nil {
		cleanup()
		return nil, err
	}
	svc.SetBudget(ab)
	return &served{reg: worker.ProjectRegistry(svc, version), svc: svc, branch: svc.ServingBranch(), cleanup: cleanup}, nil
}
