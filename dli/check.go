// deloreis check: parse .dli files and run the world's check battery on
// each file's own world, printing findings like a compiler.

package dli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/deloreis/deloreis/objects"
	"github.com/deloreis/deloreis/world"
)

// CheckMain is `deloreis check FILE…`: each file is parsed and compiled as
// a world of its own (its declarations staged over nothing), and every
// parse error and finding is printed as `file:line:col: severity code:
// message`. The exit status is 1 when any file has a parse error or an
// error-severity finding, 2 on a usage error.
func CheckMain(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("check", flag.ContinueOnError)
	fs.SetOutput(stderr)
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() == 0 {
		fmt.Fprintln(stderr, "usage: deloreis check FILE…")
		return 2
	}
	status := 0
	for _, path := range fs.Args() {
		status = max(status, checkFile(path, stdout, stderr))
	}
	return status
}

func checkFile(path string, stdout, stderr io.Writer) int {
	src, err := os.ReadFile(path)
	if err != nil {
		fmtIOError(stderr, path, err)
		return 1
	}
	doc, err := Parse(path, src)
	status := 0
	if err != nil {
		var list ErrorList
		if !errors.As(err, &list) {
			fmt.Fprintf(stderr, "%s: error: %v\n", path, err)
			return 1
		}
		for _, e := range list {
			io.WriteString(stdout, compilerStyle(e))
		}
		status = 1
	}
	w, err := CompileDocument(doc, nil)
	if err != nil {
		fmt.Fprintf(stderr, "%s: error: %v\n", path, err)
		return 1
	}
	if printFindings(stdout, path, doc, w.Findings()) {
		status = 1
	}
	return status
}

// printFindings writes findings compiler-style, in source order, each
// followed by its repair when it has one; it reports whether any is an
// error.
func printFindings(w io.Writer, path string, doc *Document, fs []world.Finding) bool {
	type placed struct {
		pos Pos
		f   world.Finding
	}
	ps := make([]placed, len(fs))
	for i, f := range fs {
		ps[i] = placed{findingPos(doc, f), f}
	}
	sort.SliceStable(ps, func(i, j int) bool {
		if ps[i].pos.Line != ps[j].pos.Line {
			return ps[i].pos.Line < ps[j].pos.Line
		}
		return ps[i].pos.Col < ps[j].pos.Col
	})
	errs := false
	for _, p := range ps {
		f := p.f
		fmt.Fprintf(w, "%s:%d:%d: %s %s: %s\n", path, p.pos.Line, p.pos.Col, f.Severity, f.Code, f.Message)
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

// CompileDocument compiles a document's declarations, staged over the
// committed base entries (nil for a file's own world).
func CompileDocument(doc *Document, base []world.Entry) (*world.World, error) {
	staged := make([]objects.Object, 0, len(doc.Decls))
	for _, d := range doc.Decls {
		staged = append(staged, d.Object)
	}
	return world.Compile(world.Input{Scope: doc.Scope, Base: base, Staged: staged})
}

// findingPos places a finding at the first declaration it cites, or at
// the scope line (or 1:1) when it cites none in the file.
func findingPos(doc *Document, f world.Finding) Pos {
	at := map[string]Pos{}
	for _, d := range doc.Decls {
		if id, err := d.Object.ID(); err == nil {
			at[id.String()] = d.Pos
		}
	}
	var ps []Pos
	for _, c := range f.Citations {
		if p, ok := at[c]; ok {
			ps = append(ps, p)
		}
	}
	if len(ps) > 0 {
		sort.Slice(ps, func(i, j int) bool { return ps[i].Line < ps[j].Line })
		return ps[0]
	}
	if doc.ScopePos.IsValid() {
		return doc.ScopePos
	}
	return Pos{Line: 1, Col: 1}
}
