// Command deloreis is the command line of the deloreis lorestore: create and
// inspect a store, branch, merge, push, fetch and clone it. Each command is a
// thin call into a package; this file holds the root command and the shared
// flags and error reporting.
package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/deloreis/deloreis/author"
	"github.com/deloreis/deloreis/dke/service"
	"github.com/deloreis/deloreis/fault"
	"github.com/spf13/cobra"
)

// globals are the flags every command shares.
type globals struct {
	project string
	store   string
	noFsync bool
	author  string           // --author "Name <email>"
	sig     author.Signature // the author resolved before a command runs (author.go)
	warn    io.Writer        // where the store's warnings go (stderr)
	now     func() time.Time // commit times; nil is the clock (DELOREIS_COMMIT_DATE fixes it)

	anonymousOK bool // a commit with no identity set is signed author.DefaultAuthor, not refused (DL-0458)

	budgetTime   time.Duration // --budget-time: a served request's time budget, 0 none (DL-0428)
	budgetMemory string        // --budget-memory: a DKE call's memory budget
}

// budgets are the DLI and DKE budgets the flags set (DL-0428).
func (g *globals) budgets() (author.Budget, service.Budget, error) {
	mem, err := service.ParseBytes(g.budgetMemory)
	if err != nil {
		return author.Budget{}, service.Budget{}, usageError{"--budget-memory: " + err.Error()}
	}
	t := g.budgetTime
	if t <= 0 {
		t = -1 // no bound
	}
	return author.Budget{Time: t}, service.Budget{Time: t, Memory: mem}, nil
}

// storeDir is the store the flags name, as far as it can be told: --store,
// else the store of the project found from --project (or the current
// folder) up, else --project's .lore/ (a store not made yet).
func (g *globals) storeDir() string {
	if g.store != "" {
		return g.store
	}
	if dir, err := author.StoreDir(g.project); err == nil {
		return dir
	}
	return filepath.Join(g.project, author.DefaultStoreDir)
}

func (g *globals) options() author.StoreOptions {
	return author.StoreOptions{NoFsync: g.noFsync, Author: g.sig, RequireAuthor: !g.anonymousOK, Warnings: g.warn, Now: g.now}
}

// resolveStore is the store the flags name: --store, or the store of the
// project found from --project (or the current folder) up, as git finds
// its repository (its deloreis.toml's store, checked to stay inside the
// project folder after symbolic links are resolved, or its .lore/).
func (g *globals) resolveStore() (string, error) {
	if g.store != "" {
		return g.store, nil
	}
	return author.StoreDir(g.project)
}

// service opens the project the flags name — found from --project (the
// current folder by default) or its nearest parent, as git finds its
// repository, or the store --store names — and the use cases over it.
// Close it when done.
func (g *globals) service() (*author.Service, error) {
	return author.Open(author.OpenOptions{Dir: g.project, Store: g.store, StoreOptions: g.options()})
}

// withService adapts a command body to the project's use cases: it opens
// them, runs the body and closes them.
func (g *globals) withService(body func(cmd *cobra.Command, args []string, s *author.Service) error) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		s, err := g.service()
		if err != nil {
			return err
		}
		defer s.Close()
		return body(cmd, args, s)
	}
}

// newRoot is the whole command tree.
func newRoot(stdout, stderr io.Writer) *cobra.Command { return newRootFor(stdout, stderr, nil) }

// newRootFor is the command tree that runs args: when they name a
// top-level command, the root holds that command alone (building all of
// them is a tenth of a `log -n 2`); else all of them, for help, usage
// errors and suggestions.
func newRootFor(stdout, stderr io.Writer, args []string) *cobra.Command {
	g := &globals{warn: stderr}
	root := &cobra.Command{
		Use:           "deloreis",
		Short:         "A git-backed lorestore for declared worlds",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	pf := root.PersistentFlags()
	pf.StringVar(&g.project, "project", ".", "where to look for the project: this folder or its nearest parent holding deloreis.toml or a "+author.DefaultStoreDir+"/ store, as git finds its repository")
	pf.StringVar(&g.store, "store", "", "path of the lorestore itself (overrides --project)")
	pf.BoolVar(&g.noFsync, "no-fsync", false, "do not flush writes before a branch moves: faster, but a crash of the machine may lose the last commits (for loads that can be redone; deloreis.toml: fsync = false)")
	pf.DurationVar(&g.budgetTime, "budget-time", author.DefaultBudgetTime, "the longest a served request (a DLI staging op, check or import; a DKE compile, run or checkup) may evaluate before it is refused with budget-exceeded; 0 for no limit")
	pf.StringVar(&g.budgetMemory, "budget-memory", "64MiB", "the bytes a DKE compile, run or checkup may build (strings, output, writes, rule tuples) before it is refused with budget-exceeded")
	pf.StringVar(&g.author, "author", "", `sign commits as "Name <email>" (else $DELOREIS_AUTHOR, else git's user.name/user.email)`)
	root.PersistentPreRunE = func(cmd *cobra.Command, _ []string) error {
		if err := g.resolveClock(); err != nil {
			return err
		}
		if err := g.resolveAuthor(cmd.Annotations[readsOnly] == ""); err != nil {
			return err
		}
		g.requireAuthor(commandPath(cmd))
		return nil
	}
	only := commandNamed(args)
	for _, c := range commands() {
		if only != "" && c.name != only {
			continue
		}
		cmd := c.make(g)
		if c.kind == readsOnlyCmd {
			cmd.Annotations = map[string]string{readsOnly: "yes"}
		}
		root.AddCommand(cmd)
	}
	// A named command needs no shell-completion command beside it: making
	// one costs every short command (`log -n 2`) part of its start; nor
	// the root's --version, which only the root itself answers.
	root.CompletionOptions.DisableDefaultCmd = only != ""
	if only == "" {
		setVersionFlag(root)
	}
	root.SetFlagErrorFunc(func(cmd *cobra.Command, err error) error {
		return withHint(err.Error(), flagHint(cmd, err))
	})
	usageArgs(root)
	addExitStatusHelp(root)
	if isCompletion(args) {
		registerCompletions(root, g)
	}
	return root
}

// usageArgs makes every argument-count error of the command tree a usage
// error, and gives each group command (one that only holds subcommands) an
// argument check, so that an unknown subcommand is a usage error too
// rather than a help page.
func usageArgs(c *cobra.Command) {
	check := c.Args
	if check == nil && c.HasSubCommands() {
		check = func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return withHint(fmt.Sprintf("unknown command %q for %q", args[0], cmd.CommandPath()), commandHint(cmd, args[0]))
			}
			return nil
		}
		if c.RunE == nil && c.Run == nil {
			c.RunE = func(cmd *cobra.Command, _ []string) error { return cmd.Help() }
		}
	}
	if check != nil {
		c.Args = func(cmd *cobra.Command, args []string) error {
			if err := check(cmd, args); err != nil {
				var ue usageError
				switch {
				case errors.As(err, &ue):
					return err
				case cmd.HasSubCommands() && len(args) > 0:
					// cobra.NoArgs on a group: a misspelt subcommand
					return withHint(err.Error(), commandHint(cmd, args[0]))
				}
				return usageError{err.Error()}
			}
			return nil
		}
	}
	for _, sub := range c.Commands() {
		usageArgs(sub)
	}
}

// readsOnly marks a command that never writes a commit (its author is
// never read from git's config).
const readsOnly = "deloreis-reads-only"

// Main runs the command line of os.Args and exits with its status.
func Main() {
	stop := startProfiles(os.Getenv, os.Stderr)
	code := run(os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run executes one command line and returns the exit code, the one rule
// every command follows (exitcodes.go): 0 on success, 1 on findings, a
// conflict or a refused or failed operation, 2 on a usage error (an
// unknown command or flag, a bad flag value, a wrong number of
// arguments). An error is printed on one line on stderr, a usage error's
// "Did you mean this?" hint on lines of its own below it.
func run(args []string, stdout, stderr io.Writer) int {
	return execute(newRootFor(stdout, stderr, args), args, stderr)
}

// execute runs args on a command tree and maps the outcome to the exit
// code of run.
func execute(root *cobra.Command, args []string, stderr io.Writer) int {
	root.SetArgs(args)
	err := root.Execute()
	if err == nil {
		return 0
	}
	var ec exitCode
	if errors.As(err, &ec) {
		return int(ec) // the command has already said what went wrong
	}
	if errors.Is(err, author.ErrNoAuthor) {
		fmt.Fprint(stderr, noIdentityText)
		return exitFailed
	}
	fmt.Fprintln(stderr, "deloreis: "+oneLine(userMessage(err)))
	var h hinted
	if errors.As(err, &h) {
		fmt.Fprintln(stderr, "\n"+h.hint)
	}
	var ue usageError
	if errors.As(err, &ue) {
		return 2
	}
	return 1
}

// userMessage is what a person is told of err: a use case's domain error
// by its message alone (its class and code are for programs).
func userMessage(err error) error {
	if fe, ok := fault.As(err); ok {
		return errors.New(fe.Message)
	}
	if fe, ok := fault.Environmental(err); ok {
		return errors.New(fe.Message)
	}
	return err
}

// exitCode ends a command that has printed its own diagnostics with that
// exit status.
type exitCode int

func (e exitCode) Error() string { return fmt.Sprintf("exit status %d", int(e)) }

// usageError marks a command line that is wrong rather than a failed action.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

// hinted is a usage error with a hint printed on lines of its own under
// the message ("Did you mean this?"), as cobra and git print theirs.
type hinted struct {
	usageError
	hint string
}

func (e hinted) Unwrap() error { return e.usageError }

// withHint is the usage error msg with hint under it (none when "").
func withHint(msg, hint string) error {
	if hint == "" {
		return usageError{msg}
	}
	return hinted{usageError{msg}, hint}
}

func oneLine(err error) string {
	msg := err.Error()
	for i := 0; i < len(msg); i++ {
		if msg[i] == '\n' {
			return msg[:i]
		}
	}
	return msg
}
