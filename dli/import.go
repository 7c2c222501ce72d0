// deloreis import: compile a .dli file's declarations as a staged layer
// over a scope's current head, show the findings and the derived-consequence
// diff, and with --materialize commit them as one commit — only when no
// finding is an error.

package dli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/deloreis/deloreis/lorestore"
	"github.com/deloreis/deloreis/project"
	"github.com/deloreis/deloreis/world"
)

// importOptions are the flags of ImportMain.
type importOptions struct {
	project, scope, branch string
	materialize            bool
}

// ImportMain is `deloreis import [FILE] --project P --scope S
// [--branch B] [--materialize]`. FILE may be left out when deloreis.toml
// names the scope's source. The exit status is 1 when the file does not
// parse, when a materialization is refused, or on any failure; 2 on a usage
// error.
func ImportMain(args []string, stdout, stderr io.Writer) int {
	var o importOptions
	fs := flag.NewFlagSet("import", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.project, "project", ".", "project folder (holding deloreis.toml and the store)")
	fs.StringVar(&o.scope, "scope", "", "scope to import into (default: the file's scope line)")
	fs.StringVar(&o.branch, "branch", lorestore.DefaultBranch, "branch whose head the file is staged over")
	fs.BoolVar(&o.materialize, "materialize", false, "commit the declarations when no finding is an error")
	if err := fs.Parse(reorderFlags(args)); err != nil {
		return 2
	}
	if fs.NArg() > 1 {
		fmt.Fprintln(stderr, "usage: deloreis import [FILE] --project P --scope S [--materialize]")
		return 2
	}
	if err := o.run(fs.Arg(0), stdout, stderr); err != nil {
		fmt.Fprintf(stderr, "deloreis: %v\n", err)
		return 1
	}
	return 0
}

// reorderFlags moves flags after the file name to the front, so that
// `import FILE --scope S` works as well as `import --scope S FILE`.
func reorderFlags(args []string) []string {
	var flags, rest []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !strings.HasPrefix(a, "-") || a == "-" {
			rest = append(rest, a)
			continue
		}
		flags = append(flags, a)
		if !strings.Contains(a, "=") && a != "--materialize" && a != "-materialize" && i+1 < len(args) {
			flags = append(flags, args[i+1])
			i++
		}
	}
	return append(flags, rest...)
}

var errRefused = errors.New("import refused")

func (o importOptions) run(file string, stdout, stderr io.Writer) error {
	proj, err := project.Load(o.project)
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
	src, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	doc, err := Parse(file, src)
	if err != nil {
		var list ErrorList
		if errors.As(err, &list) {
			for _, e := range list {
				io.WriteString(stdout, compilerStyle(e))
			}
		}
		return fmt.Errorf("%s does not parse; nothing imported", file)
	}
	scope := o.scope
	switch {
	case scope == "":
		scope = doc.Scope
	case doc.Scope != "" && doc.Scope != scope:
		return fmt.Errorf("%s is written for scope %s, not %s", file, doc.Scope, scope)
	}
	if scope == "" {
		return errors.New("no scope: give --scope or a scope line")
	}
	doc.Scope = scope
	s, err := lorestore.Open(proj.Store, lorestore.Options{})
	if err != nil {
		return err
	}
	defer s.Close()
	return o.stage(s, doc, file, stdout)
}

// stage compiles the document over the branch head, reports, and commits
// when asked and allowed.
func (o importOptions) stage(s *lorestore.Store, doc *Document, file string, stdout io.Writer) error {
	sn, err := s.Snapshot(o.branch)
	if err != nil {
		return err
	}
	base, err := world.LoadScope(sn, doc.Scope)
	if err != nil {
		return err
	}
	before, err := world.Compile(world.Input{Scope: doc.Scope, Base: base})
	if err != nil {
		return err
	}
	after, err := CompileDocument(doc, base)
	if err != nil {
		return err
	}
	printFindings(stdout, file, doc, after.Findings())
	printDiff(stdout, before.Diff(after))
	if !o.materialize {
		return nil
	}
	if world.Blocking(after.Findings()) {
		return fmt.Errorf("%w: error findings block materialization; nothing committed", errRefused)
	}
	b := lorestore.NewBatch()
	for _, d := range doc.Decls {
		if _, err := b.Put(doc.Scope, d.Object); err != nil {
			return err
		}
	}
	m := lorestore.NewMessage(fmt.Sprintf("import %s into %s: %d declarations", filepath.Base(file), doc.Scope, len(doc.Decls)), "import", doc.Scope)
	res, err := s.Commit(b, m, lorestore.CommitOptions{Branch: o.branch, Parent: sn.Commit(), Refuse: true})
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
