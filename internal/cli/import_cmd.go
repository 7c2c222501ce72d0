// The import command: compile a .dli file's declarations as a staged layer
// over a scope's current head, show the findings and the derived-consequence
// diff, and with --materialize commit them as one commit — only when no
// finding is an error.

package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/deloreis/deloreis/author"
	"github.com/deloreis/deloreis/base/progress"
	"github.com/deloreis/deloreis/dli"
	"github.com/deloreis/deloreis/fault"
	"github.com/deloreis/deloreis/objects"
	"github.com/spf13/cobra"
)

// importOptions are the flags of the import command.
type importOptions struct {
	g             *globals
	scope, branch string
	materialize   bool
	bulk          bool // stream into one commit, objects checked, the world not compiled

	stderr io.Writer // where a terminal sees the import's progress
}

func newImportCmd(g *globals) *cobra.Command {
	o := &importOptions{g: g}
	cmd := &cobra.Command{
		Use:   "import [FILE] [--scope S] [--branch B] [--materialize] [--bulk]",
		Short: "Stage a .dli file over a scope's head: findings, consequence diff, and with --materialize one commit",
		Long: `Stages a .dli file's declarations over the head of a scope in the
project's store and prints the findings and the derived-consequence diff.
Without --materialize nothing is committed. With it the declarations become
one commit, only when no finding is an error. FILE may be left out when
deloreis.toml names the scope's source.

With --bulk the file (or standard input, for FILE "-") is streamed
instead: every declaration is parsed and validated as an object (ids,
fields, canonical encoding, scope), in memory that does not grow with the
file, and with --materialize they become one commit. The world is not
compiled, so no finding is reported or blocks the commit: the findings are
computed when the commit is next opened or checked. A bad declaration
anywhere commits nothing.

Exit status: 1 when the file cannot be read or does not parse, when a
materialization is refused, or on any failure; 2 on a usage error.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			file := ""
			if len(args) == 1 {
				file = args[0]
			}
			o.stderr = cmd.ErrOrStderr()
			if o.bulk {
				return o.runBulk(file, cmd.InOrStdin(), cmd.OutOrStdout())
			}
			return o.run(file, cmd.OutOrStdout())
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&o.scope, "scope", "", "scope to import into (default: the file's scope line)")
	fl.StringVar(&o.branch, "branch", author.DefaultBranch, "branch whose head the file is staged over")
	fl.BoolVar(&o.materialize, "materialize", false, "commit the declarations when no finding is an error")
	fl.BoolVar(&o.bulk, "bulk", false, "stream FILE (\"-\": standard input) checking objects only, without compiling the world")
	return cmd
}

// errRefused marks an import the findings did not allow.
var errRefused = errors.New("import refused")

// source is the file to import: FILE, else the source the project declares
// for --scope.
func (o *importOptions) source(svc *author.Service, file string) (string, error) {
	if file != "" {
		return file, nil
	}
	src, err := svc.SourceOf(o.scope)
	if err != nil {
		return "", err
	}
	if src == "" {
		return "", fmt.Errorf("no FILE given and the project names no source for scope %q", o.scope)
	}
	return src, nil
}

func (o *importOptions) run(file string, stdout io.Writer) error {
	if o.scope != "" && !objects.ValidID(o.scope) {
		return usageError{fmt.Sprintf("--scope %q is not a scope id", o.scope)}
	}
	svc, err := o.g.service()
	if err != nil {
		return err
	}
	defer svc.Close()
	if file, err = o.source(svc, file); err != nil {
		return err
	}
	src, err := readRegular(file)
	if err != nil {
		return err
	}
	ctx, endProgress := progressOn(context.Background(), o.stderr)
	defer endProgress()
	progress.Report(ctx, 0, 0, "parsing "+filepath.Base(file))
	doc, err := dli.Parse(file, src)
	if err != nil {
		endProgress()
		var list dli.ErrorList
		if errors.As(err, &list) {
			for _, e := range list {
				io.WriteString(stdout, compilerStyle(e))
			}
		}
		return fmt.Errorf("%s does not parse; nothing imported", file)
	}
	if doc.Scope, err = o.pickScope(file, doc.Scope); err != nil {
		return err
	}
	res, err := svc.Import(ctx, author.ImportRequest{Doc: doc, Branch: o.branch, Materialize: o.materialize, Source: filepath.Base(file)})
	endProgress()
	if res.Scope != "" { // staged: its findings and diff are known, committed or not
		printPlaced(stdout, file, res.Findings)
		printConsequences(stdout, res.Consequences)
	}
	if fault.CodeOf(err) == author.CodeMaterializeBlocked {
		return fmt.Errorf("%w: %s", errRefused, userMessage(err))
	}
	if err != nil {
		return err
	}
	switch {
	case !o.materialize:
		fmt.Fprintln(stdout, "nothing committed (dry run; --materialize commits)")
	case !res.Committed:
		fmt.Fprintf(stdout, "nothing new to commit: every declaration is already on %s\n", o.branch)
	default:
		fmt.Fprintf(stdout, "committed %s on %s: %d declarations\n", res.Commit[:12], o.branch, len(doc.Decls))
	}
	return nil
}

// pickScope is the scope an import writes: --scope, which must agree with
// the file's own scope line when it has one.
func (o *importOptions) pickScope(name, written string) (string, error) {
	switch {
	case o.scope == "":
	case written != "" && written != o.scope:
		return "", fmt.Errorf("%s is written for scope %s, not %s", name, written, o.scope)
	default:
		written = o.scope
	}
	if written == "" {
		return "", errors.New("no scope: give --scope or a scope line")
	}
	return written, nil
}

// printConsequences writes the derived-consequence diff, one section per
// kind.
func printConsequences(w io.Writer, d author.Consequences) {
	if len(d.GradeChanged) == 0 && len(d.Conflicts) == 0 {
		fmt.Fprintln(w, "consequences: none moved")
		return
	}
	fmt.Fprintln(w, "consequences:")
	for _, sec := range []struct {
		name string
		cs   []author.Consequence
	}{{"newly certain", d.NewlyCertain}, {"possible", d.Possible}, {"dead", d.Dead}} {
		for _, c := range sec.cs {
			was := "new"
			if c.Before != "absent" {
				was = "was " + c.Before
			}
			fmt.Fprintf(w, "  %s: %s(%s)  (%s)\n", sec.name, c.Pred, strings.Join(c.Args, ", "), was)
		}
	}
	for _, f := range d.Conflicts {
		fmt.Fprintf(w, "  conflict: %s: %s\n", f.Code, f.Message)
	}
}
