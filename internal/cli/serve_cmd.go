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
	"path/filepath"
	"syscall"
	"time"

	"github.com/deloreis/deloreis/author"
	"github.com/deloreis/deloreis/demoworld"
	"github.com/deloreis/deloreis/lorestore"
	"github.com/deloreis/deloreis/project"
	"github.com/deloreis/deloreis/worker"
	"github.com/spf13/cobra"
)

func newServeCmd(g *globals) *cobra.Command {
	var syncRemote string
	var every time.Duration
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve the author.* and dli.* ops as JSON on stdio (the bundled demo project without --project)",
		Long: `Reads one JSON request a line on standard input and writes one response a
line on standard output, in order, until standard input ends:

    {"dli":"2.0.0","id":"rq-1","op":"author.open","params":{"scope":"camelot"}}

The project's deloreis.toml names the documents (scopes) workspaces open
over, the serving branch and an optional pinned commit. With no --project,
the bundled demo project is built in a temporary folder and served.
With --sync REMOTE, the serving branch is synced with REMOTE (as deloreis
sync does) when the server starts and every --every after, in the
background: workspaces opened after a sync open on the synced head, open
ones keep their base, and what each sync did, its conflicts and its
failures go to standard error as they happen (a failed sync is retried at
the next tick and never stops the server).
Diagnostics go to standard error; the exit status is 0 when standard input
ends, 1 when the project cannot be served.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if every <= 0 {
				return usageError{msg: "serve: --every must be a positive duration"}
			}
			defer g.net.StartServer(cmd.ErrOrStderr())() // DL-0295
			sv, err := g.served(cmd.Flag("project").Changed, cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			defer sv.cleanup()
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			if syncRemote != "" {
				syncCtx, cancel := context.WithCancel(ctx)
				wait := syncLoop(syncCtx, sv.store, syncRemote, sv.branch, every, cmd.ErrOrStderr())
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
	cmd.Flags().DurationVar(&every, "every", 30*time.Second, "how often --sync syncs")
	return cmd
}

// served is a project being served: its registry, its open store and
// serving branch, and what to close after serving.
type served struct {
	reg     *worker.Registry
	store   *lorestore.Store
	branch  string
	cleanup func()
}

// registry opens the project (or builds the demo project when none was
// named) and returns the worker registry serving it, and what to close
// after serving.
func (g *globals) registry(named bool, stderr io.Writer) (*worker.Registry, func(), error) {
	sv, err := g.served(named, stderr)
	if err != nil {
		return nil, nil, err
	}
	return sv.reg, sv.cleanup, nil
}

// served opens the project (or builds the demo project when none was
// named) and the registry serving it.
func (g *globals) served(named bool, stderr io.Writer) (*served, error) {
	dir := g.project
	cleanups := []func(){}
	cleanup := func() {
		for i := len(cleanups) - 1; i >= 0; i-- {
			cleanups[i]()
		}
	}
	if !named && g.store == "" {
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
		dir = tmp
		fmt.Fprintf(stderr, "deloreis: serving the bundled demo project (%s)\n", tmp)
	}
	p, err := loadProject(dir)
	if err != nil {
		cleanup()
		return nil, err
	}
	storeDir := p.Store
	if g.store != "" {
		storeDir = g.store
	}
	s, err := lorestore.Open(storeDir, g.options())
	if err != nil {
		cleanup()
		return nil, err
	}
	cleanups = append(cleanups, func() { s.Close() })
	if abs, err := filepath.Abs(storeDir); err == nil {
		p.Store = abs // dli.project answers with it relative to the project folder
	}
	reg, err := buildRegistry(s, p)
	if err != nil {
		cleanup()
		return nil, err
	}
	return &served{reg: reg, store: s, branch: p.Branch, cleanup: cleanup}, nil
}

// buildRegistry is the one registry every transport serves
// (worker.ProjectRegistry), reporting this build's version.
func buildRegistry(s *lorestore.Store, p *project.Project) (*worker.Registry, error) {
	svc, err := author.ForProject(s, p)
	if err != nil {
		return nil, err
	}
	return worker.ProjectRegistry(svc, version), nil
}
