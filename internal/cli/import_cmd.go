// The import command: compile a .dli file's declarations as a staged layer
// over a scope's current head, show the findings and the derived-consequence
// diff, and with --materialize commit them as one commit — only when no
// finding is an error.

package cli

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/deloreis/deloreis/author"
	"github.com/deloreis/deloreis/dli"
	"github.com/deloreis/deloreis/lorestore"
	"github.com/deloreis/deloreis/objects"
	"github.com/deloreis/deloreis/project"
	"github.com/deloreis/deloreis/world"
	"github.com/spf13/cobra"
)

// importOptions are the flags of the import command.
type importOptions struct {
	g             *globals
	scope, branch string
	materialize   bool
	bulk          bool               // stream into one commit, objects checked, the world not compiled
	dialects      []*objects.Dialect // the project file's, for the naming oracle
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
			if o.bulk {
				return o.runBulk(file, cmd.InOrStdin(), cmd.OutOrStdout())
			}
			return o.run(file, cmd.OutOrStdout())
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&o.scope, "scope", "", "scope to import into (default: the file's scope line)")
	fl.StringVar(&o.branch, "branch", lorestore.DefaultBranch, "branch whose head the file is staged over")
	fl.BoolVar(&o.materialize, "materialize", false, "commit the declarations when no finding is an error")
	fl.BoolVar(&o.bulk, "bulk", false, "stream FILE (\"-\": standard input) checking objects only, without compiling the world")
	return cmd
}

// errRefused marks an import the findings did not allow.
var errRefused = errors.New("import refused")

func (o *importOptions) run(file string, stdout io.Writer) error {
	if o.scope != "" && !objects.ValidID(o.scope) {
		return usageError{fmt.Sprintf("--scope %q is not a scope id", o.scope)}
	}
	proj, err := loadProject(o.g.project)
	if err == nil {
		o.dialects = proj.Dialects
	}
	if err != nil {
		return err
	}
	if file == "" {
		d, ok := proj.Document(o.scope)
		if !ok || d.Source == "" {
			return fmt.Errorf("no FILE given and %s names no source for scope %q", project.FileName, o.scope)
		}
		file = d.Source
	}
	src, err := readRegular(file)
	if err != nil {
		return err
	}
	doc, err := dli.Parse(file, src)
	if err != nil {
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
	s, err := o.openStore(proj)
	if err != nil {
		return err
	}
	defer s.Close()
	return o.stage(s, doc, file, stdout)
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

// openStore opens the project's lorestore, or the one --store names.
func (o *importOptions) openStore(proj *project.Project) (*lorestore.Store, error) {
	dir := proj.Store
	if o.g.store != "" {
		dir = o.g.store
	}
	return lorestore.Open(dir, o.g.options())
}

// stage stages the document over the branch head, reports, and commits
// when asked and allowed.
func (o *importOptions) stage(s *lorestore.Store, doc *dli.Document, file string, stdout io.Writer) error {
	st, err := author.NewStager(s, o.branch)
	if err != nil {
		return err
	}
	st.WithDialects(o.dialects)
	objs := make([]objects.Object, len(doc.Decls))
	for i, d := range doc.Decls {
		objs[i] = d.Object
	}
	sg, err := st.Stage(doc.Scope, objs)
	if err != nil {
		return err
	}
	printFindings(stdout, file, doc, sg.After.Findings())
	d, err := sg.Diff()
	if err != nil {
		return err
	}
	printDiff(stdout, d)
	sg.Release() // a big file's worlds need not sit beside the pack Materialize writes
	if !o.materialize {
		fmt.Fprintln(stdout, "nothing committed (dry run; --materialize commits)")
		return nil
	}
	m := lorestore.NewMessage(fmt.Sprintf("import %s into %s: %d declarations", filepath.Base(file), doc.Scope, len(doc.Decls)), "import", doc.Scope)
	res, err := sg.Materialize(m)
	if errors.Is(err, author.ErrBlocked) {
		return fmt.Errorf("%w: %v", errRefused, err)
	}
	if err != nil {
		return err
	}
	if res.Empty {
		fmt.Fprintf(stdout, "nothing new to commit: every declaration is already on %s\n", o.branch)
		return nil
	}
	fmt.Fprintf(stdout, "committed %s on %s: %d declarations\n", res.Commit.String()[:12], o.branch, len(doc.Decls))
	return nil
}

// printDiff writes the derived-consequence diff, one section per kind.
func printDiff(w io.Writer, d world.ConsequenceDiff) {
	if d.Empty() {
		fmt.Fprintln(w, "consequences: none moved")
		return
	}
	fmt.Fprintln(w, "consequences:")
	for _, sec := range []struct {
		name string
		cs   []world.Consequence
	}{{"newly certain", d.NewlyCertain}, {"possible", d.Possible}, {"dead", d.Dead}} {
		for _, c := range sec.cs {
			was := "new"
			if !c.New {
				was = "was " + c.Before.String()
			}
			fmt.Fprintf(w, "  %s: %s(%s)  (%s)\n", sec.name, c.Pred, strings.Join(c.Args, ", "), was)
		}
	}
	for _, f := range d.Conflicts {
		fmt.Fprintf(w, "  conflict: %s: %s\n", f.Code, f.Message)
	}
}
