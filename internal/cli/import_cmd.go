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
	verbose       bool // every finding and consequence, not the first few of each kind
	format        *formatFlag

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

By default the findings and consequences are summarised: counts by kind,
and the first few of each kind; --verbose prints every one, and
--format json the whole result.

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
	fl.BoolVarP(&o.verbose, "verbose", "v", false, "print every finding and consequence, not the first few of each kind")
	o.format = addFormat[importReport](cmd)
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
	src, err := readRegularText(file)
	if err != nil {
		return err
	}
	ctx, endProgress := progressOn(context.Background(), o.stderr)
	defer endProgress()
	progress.Report(ctx, 0, 0, "parsing "+filepath.Base(file))
	doc, err := author.ParseImport(file, src)
	if err != nil {
		endProgress()
		var list dli.ErrorList
		if errors.As(err, &list) {
			if err := o.parseErrors(stdout, file, list); err != nil {
				return err
			}
		}
		return fmt.Errorf("%s does not parse; nothing imported", file)
	}
	if doc.Scope, err = o.pickScope(file, doc.Scope); err != nil {
		return err
	}
	req := author.ImportRequest{Parsed: doc, Branch: o.branch, Materialize: o.materialize, Source: filepath.Base(file), Listed: o.listed()}
	doc = nil // the use case lets the parse tree go once the objects are staged
	res, err := svc.Import(ctx, req)
	endProgress()
	if res.Scope != "" { // staged: its findings and diff are known, committed or not
		if o.format.json() {
			if jerr := o.format.emit(stdout, o.report(file, res)); jerr != nil {
				return jerr
			}
		} else {
			o.summary(stdout, file, res)
		}
	}
	if fault.CodeOf(err) == author.CodeMaterializeBlocked {
		return fmt.Errorf("%w: %s", errRefused, userMessage(err))
	}
	if err != nil || o.format.json() {
		return err
	}
	switch {
	case !o.materialize:
		fmt.Fprintln(stdout, "nothing committed (dry run; --materialize commits)")
	case !res.Committed:
		fmt.Fprintf(stdout, "nothing new to commit: every declaration is already on %s\n", o.branch)
	default:
		fmt.Fprintf(stdout, "committed %s on %s: %s\n", res.Commit[:12], o.branch, plural(res.Declarations, "declaration", "declarations"))
	}
	return nil
}

// listed is how many consequences of each kind the use case lists: all of
// them, in every list, for --format json; the first few of each kind for
// the text summary, every one with --verbose (DL-0507).
func (o *importOptions) listed() int {
	switch {
	case o.format.json():
		return 0
	case o.verbose:
		return -1
	}
	return summaryFirst
}

// report is the JSON result of an import that was staged.
func (o *importOptions) report(file string, res author.ImportResult) importReport {
	res.Findings = orEmpty(res.Findings)
	c := &res.Consequences
	c.NewlyCertain, c.Possible, c.Dead = orEmpty(c.NewlyCertain), orEmpty(c.Possible), orEmpty(c.Dead)
	c.GradeChanged, c.Conflicts = orEmpty(c.GradeChanged), orEmpty(c.Conflicts)
	return importReport{File: file, Branch: o.branch, Materialize: o.materialize, Bulk: o.bulk,
		ParseErrors: []author.TextError{}, ImportResult: res}
}

// parseErrors says why a file does not parse: compiler-style, or as the
// JSON result of an import that staged nothing.
func (o *importOptions) parseErrors(stdout io.Writer, file string, list dli.ErrorList) error {
	if !o.format.json() {
		for _, e := range list {
			io.WriteString(stdout, compilerStyle(e))
		}
		return nil
	}
	r := o.report(file, author.ImportResult{})
	for _, e := range list {
		r.ParseErrors = append(r.ParseErrors, author.TextError{Line: e.Pos.Line, Col: e.Pos.Col, Message: e.Msg})
	}
	return o.format.emit(stdout, r)
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

// summaryFirst is how many findings of one code, and consequences of one
// kind, import prints without --verbose.
const summaryFirst = 5

// summary prints a staged import's findings and consequence diff: counts
// by kind and the first few of each (every one with --verbose), so that a
// file of millions of declarations prints a screenful, not millions of
// lines.
func (o *importOptions) summary(w io.Writer, file string, res author.ImportResult) {
	limit := summaryFirst
	if o.verbose {
		limit = -1
	}
	shown, byCode, listed, total := []author.PlacedFinding{}, map[string]int{}, map[string]int{}, 0
	var codes []string
	for _, f := range res.Findings {
		if byCode[f.Code] == 0 {
			codes = append(codes, f.Code)
		}
		// The use case lists a few findings of a code and stands the rest
		// for one that counts them (data.more): count them all.
		n, unlisted := 1, false
		if more, ok := f.Data["more"].(int); ok && len(f.Citations) == 0 {
			n, unlisted = more, true
		}
		byCode[f.Code] += n
		total += n
		if limit < 0 || !unlisted && listed[f.Code] < limit {
			listed[f.Code]++
			shown = append(shown, f)
		}
	}
	if total > 0 {
		counts := make([]string, len(codes))
		for i, c := range codes {
			counts[i] = fmt.Sprintf("%d %s", byCode[c], c)
		}
		fmt.Fprintf(w, "findings: %d (%s)\n", total, strings.Join(counts, ", "))
		printPlaced(w, file, shown)
		if more := total - len(shown); limit >= 0 && more > 0 {
			fmt.Fprintf(w, "... and %s (--verbose lists every one)\n", plural(more, "more finding", "more findings"))
		}
	}
	printConsequences(w, res.Consequences, res.Counts, limit)
}

// printConsequences writes the derived-consequence diff, one section per
// kind, each after its count (n): the first limit of each kind, or all for
// a negative limit, of those d lists.
func printConsequences(w io.Writer, d author.Consequences, n author.ConsequenceCounts, limit int) {
	if n.Moved() == 0 && len(d.Conflicts) == 0 {
		fmt.Fprintln(w, "consequences: none moved")
		return
	}
	sections := []struct {
		name  string
		cs    []author.Consequence
		count int
	}{{"newly certain", d.NewlyCertain, n.NewlyCertain}, {"possible", d.Possible, n.Possible}, {"dead", d.Dead, n.Dead}}
	var counts []string
	for _, sec := range sections {
		if sec.count > 0 {
			counts = append(counts, fmt.Sprintf("%d %s", sec.count, sec.name))
		}
	}
	if len(d.Conflicts) > 0 {
		counts = append(counts, plural(len(d.Conflicts), "conflict", "conflicts"))
	}
	fmt.Fprintf(w, "consequences: %s\n", strings.Join(counts, ", "))
	more := func(n int, what string) {
		if limit >= 0 && n > limit {
			fmt.Fprintf(w, "  %s: ... and %d more (--verbose lists every one)\n", what, n-limit)
		}
	}
	for _, sec := range sections {
		for i, c := range sec.cs {
			if limit >= 0 && i == limit {
				break
			}
			was := "new"
			if c.Before != "absent" {
				was = "was " + c.Before
			}
			fmt.Fprintf(w, "  %s: %s(%s)  (%s)\n", sec.name, c.Pred, strings.Join(c.Args, ", "), was)
		}
		more(sec.count, sec.name)
	}
	for i, f := range d.Conflicts {
		if limit >= 0 && i == limit {
			break
		}
		fmt.Fprintf(w, "  conflict: %s: %s\n", f.Code, f.Message)
	}
	more(len(d.Conflicts), "conflict")
}
