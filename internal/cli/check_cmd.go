// The check command: parse .dli files and run the world's check battery,
// printing findings like a compiler. Inside a project each file is staged
// over its scope's head in the store, as import does; --standalone checks
// each file as a world of its own.

package cli

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
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

// checkLong is the long help of `deloreis check`.
const checkLong = `Parses each .dli file and runs the world's check battery on it, printing
every parse error and finding as file:line:col: severity code: message.

Inside a project (a deloreis.toml in the --project folder, or an explicit
--store) a file is staged over its scope's head in the store, as import
does without --materialize: what the store holds is known. The scope is
the file's scope line, or the document of deloreis.toml whose source the
file is. With --standalone, or outside a project, each file is a world of
its own.

Exit status: 1 when a file does not parse, cannot be read, or has an
error-severity finding; 2 on a usage error; 0 otherwise.`

// checkOptions are the flags and state of one check run.
type checkOptions struct {
	g          *globals
	standalone bool
	branch     string
	stdout     io.Writer
	stderr     io.Writer

	proj   *project.Project // nil when checking standalone
	store  *lorestore.Store // opened on first need
	stager *author.Stager   // stages each file over its scope's head
}

func newCheckCmd(g *globals) *cobra.Command {
	o := &checkOptions{g: g}
	cmd := &cobra.Command{
		Use:   "check FILE…",
		Short: "Check .dli files against the world's check battery (over the store inside a project), compiler-style",
		Long:  checkLong,
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.stdout, o.stderr = cmd.OutOrStdout(), cmd.ErrOrStderr()
			defer o.close()
			if err := o.setup(); err != nil {
				return err
			}
			status := 0
			for _, path := range args {
				status = max(status, o.file(path))
			}
			return exitStatus(status)
		},
	}
	cmd.Flags().BoolVar(&o.standalone, "standalone", false, "check each file as a world of its own, ignoring the project's store")
	cmd.Flags().StringVar(&o.branch, "branch", lorestore.DefaultBranch, "branch whose head the files are checked over")
	return cmd
}

// setup decides whether the run checks over a store: inside a project,
// unless --standalone. A project whose store does not exist yet has
// nothing to check over.
func (o *checkOptions) setup() error {
	if o.standalone || (o.g.store == "" && !hasProjectFile(o.g.project)) {
		return nil
	}
	p, err := loadProject(o.g.project)
	if err != nil {
		return err
	}
	if o.g.store != "" {
		p.Store = o.g.store
	}
	if _, err := os.Stat(p.Store); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	o.proj = p
	return nil
}

func (o *checkOptions) close() {
	if o.store != nil {
		o.store.Close()
	}
}

// stage stages a file's declarations over its document's head in the
// store, or as a world of its own (standalone, or a file of no scope).
func (o *checkOptions) stage(path string, doc *dli.Document) (*world.World, error) {
	objs := make([]objects.Object, len(doc.Decls))
	for i, d := range doc.Decls {
		objs[i] = d.Object
	}
	if o.proj != nil && doc.Scope == "" {
		abs, _ := filepath.Abs(path)
		for _, d := range o.proj.Documents {
			if d.Source == abs {
				doc.Scope = d.Scope
			}
		}
	}
	if o.stager == nil {
		if o.proj != nil && doc.Scope != "" {
			s, err := lorestore.Open(o.proj.Store, o.g.options())
			if err != nil {
				return nil, err
			}
			o.store = s
		}
		st, err := author.NewStager(o.store, o.branch)
		if err != nil {
			return nil, err
		}
		if o.proj != nil {
			st.WithDialects(o.proj.Dialects)
		}
		o.stager = st
	}
	sg, err := o.stager.Stage(doc.Scope, objs)
	if err != nil {
		return nil, err
	}
	return sg.After, nil
}

// file checks one file and returns its status.
func (o *checkOptions) file(path string) int {
	src, err := readRegular(path)
	if err != nil {
		fileError(o.stderr, path, err)
		return 1
	}
	doc, err := dli.Parse(path, src)
	status := 0
	if err != nil {
		var list dli.ErrorList
		if !errors.As(err, &list) {
			fileError(o.stderr, path, err)
			return 1
		}
		for _, e := range list {
			io.WriteString(o.stdout, compilerStyle(e))
		}
		status = 1
	}
	w, err := o.stage(path, doc)
	if err != nil {
		fmt.Fprintf(o.stderr, "%s: error: %v\n", path, err)
		return 1
	}
	if printFindings(o.stdout, path, doc, w.Findings()) {
		status = 1
	}
	return status
}

// printFindings writes findings compiler-style, in source order, each
// followed by its repair when it has one; it reports whether any is an
// error.
func printFindings(w io.Writer, path string, doc *dli.Document, fs []world.Finding) bool {
	ps := author.PlaceAll(doc, fs)
	errs := false
	for _, p := range ps {
		f := p.Finding
		fmt.Fprintf(w, "%s:%d:%d: %s %s: %s\n", path, p.Pos.Line, p.Pos.Col, f.Severity, f.Code, f.Message)
		if r := f.Repair; r != nil {
			switch {
			case len(r.Candidates) > 0:
				fmt.Fprintf(w, "\trepair: %s: %s\n", r.Kind, strings.Join(r.Candidates, ", "))
			case r.Kind == "add-before":
				fmt.Fprintf(w, "\trepair: add before(%v, %v)\n", r.Params["earlier"], r.Params["later"])
			}
		}
		errs = errs || f.Severity == world.SeverityError
	}
	return errs
}
