// The check command: parse .dli files and run the world's check battery,
// printing findings like a compiler. Inside a project each file is staged
// over its scope's head in the store, as import does; --standalone checks
// each file as a world of its own.

package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/deloreis/deloreis/author"
	"github.com/deloreis/deloreis/dli"
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
	format     *formatFlag

	svc *author.Service // the project's use cases; nil when checking standalone
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
			if err := o.setup(); err != nil {
				return err
			}
			defer o.close()
			status := 0
			report := checkReport{Files: []checkedFile{}}
			for _, path := range args {
				f, st := o.file(path)
				status = max(status, st)
				report.Files = append(report.Files, f)
			}
			if o.format.json() {
				report.Clean = status == 0
				if err := o.format.emit(o.stdout, report); err != nil {
					return err
				}
			}
			return exitStatus(status)
		},
	}
	o.format = addFormat[checkReport](cmd)
	cmd.Flags().BoolVar(&o.standalone, "standalone", false, "check each file as a world of its own, ignoring the project's store")
	cmd.Flags().StringVar(&o.branch, "branch", author.DefaultBranch, "branch whose head the files are checked over")
	return cmd
}

// setup decides whether the run checks over a store: inside a project
// (found from --project or the current folder up, as git finds its
// repository, or the store --store names), unless --standalone. Outside
// any project, or in one whose store does not exist yet, each file is a
// world of its own.
func (o *checkOptions) setup() error {
	if o.standalone {
		return nil
	}
	if o.g.store == "" {
		dir, err := author.StoreDir(o.g.project)
		if errors.Is(err, author.ErrNoProject) {
			return nil
		}
		if err != nil {
			return err
		}
		if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
			return nil
		}
	}
	svc, err := o.g.service()
	if err != nil {
		return err
	}
	o.svc = svc
	return nil
}

func (o *checkOptions) close() {
	if o.svc != nil {
		o.svc.Close()
	}
}

// check runs the check battery on a document: over its scope's head in
// the project's store, or as a world of its own (standalone, no project,
// or a file of no scope). A file with no scope line whose path is a
// declared document's source is checked as that document.
func (o *checkOptions) check(path string, doc *dli.Document) (author.TextCheckResult, error) {
	ctx, endProgress := progressOn(context.Background(), o.stderr)
	defer endProgress() // before the findings are printed
	if o.svc == nil {
		return author.CheckStandalone(ctx, doc)
	}
	if doc.Scope == "" {
		abs, _ := filepath.Abs(path)
		scope, err := o.svc.DocumentOf(abs)
		if err != nil {
			return author.TextCheckResult{}, err
		}
		doc.Scope = scope
	}
	return o.svc.CheckDocument(ctx, author.CheckRequest{Doc: doc, Branch: o.branch})
}

// file checks one file and returns what was found and its status; in
// text it prints them as it goes, compiler-style.
func (o *checkOptions) file(path string) (checkedFile, int) {
	out := checkedFile{Path: path}
	text := !o.format.json()
	failed := func(err error) (checkedFile, int) {
		out.Error = userMessage(err).Error()
		out.ParseErrors, out.Findings = []author.TextError{}, []author.PlacedFinding{}
		return out, 1
	}
	src, err := readRegular(path)
	if err != nil {
		fileError(o.stderr, path, err)
		return failed(err)
	}
	doc, err := dli.Parse(path, src)
	status := 0
	out.ParseErrors = []author.TextError{}
	if err != nil {
		var list dli.ErrorList
		if !errors.As(err, &list) {
			fileError(o.stderr, path, err)
			return failed(err)
		}
		for _, e := range list {
			out.ParseErrors = append(out.ParseErrors, author.TextError{Line: e.Pos.Line, Col: e.Pos.Col, Message: e.Msg})
			if text {
				io.WriteString(o.stdout, compilerStyle(e))
			}
		}
		status = 1
	}
	res, err := o.check(path, doc)
	if err != nil {
		fmt.Fprintf(o.stderr, "%s: error: %v\n", path, userMessage(err))
		return failed(err)
	}
	parseErrors := out.ParseErrors
	out.TextCheckResult = res
	out.ParseErrors, out.Findings = parseErrors, orEmpty(res.Findings)
	out.Clean = res.Clean && len(parseErrors) == 0
	if hasError(res.Findings) {
		status = 1
	}
	if text {
		printPlaced(o.stdout, path, res.Findings)
	}
	return out, status
}

// hasError reports whether any finding is an error.
func hasError(fs []author.PlacedFinding) bool {
	for _, f := range fs {
		if f.Severity == author.SeverityError {
			return true
		}
	}
	return false
}

// printPlaced writes findings compiler-style, in source order, each
// followed by its repair when it has one; it reports whether any is an
// error.
func printPlaced(w io.Writer, path string, fs []author.PlacedFinding) bool {
	errs := false
	for _, f := range fs {
		fmt.Fprintf(w, "%s:%d:%d: %s %s: %s\n", path, f.Line, f.Col, f.Severity, f.Code, f.Message)
		if r := f.Repair; r != nil {
			switch {
			case len(r.Candidates) > 0:
				fmt.Fprintf(w, "\trepair: %s: %s\n", r.Kind, strings.Join(r.Candidates, ", "))
			case r.Kind == "add-before":
				fmt.Fprintf(w, "\trepair: add before(%v, %v)\n", r.Params["earlier"], r.Params["later"])
			}
		}
		errs = errs || f.Severity == author.SeverityError
	}
	return errs
}
