// `deloreis dke check`: check module files without storing anything and
// print their diagnostics compiler-style or as JSON.

package dke

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/deloreis/deloreis/dke/check"
	"github.com/deloreis/deloreis/dke/diag"
	"github.com/deloreis/deloreis/dke/keywords"
	"github.com/deloreis/deloreis/dke/syntax"
)

const checkUsage = `usage: deloreis dke check FILE… [--language eng|nob] [--json]

Checks DKE Python module files without storing anything. Each file is a
module named after the file (its base name without extension); the files
may import one another. Prints each diagnostic as file:line:col: class:
message, followed by its fix when it has one, or the diagnostics as one
JSON array with --json (each element the wire diagnostic {class, line,
col, message, fix?} with the file it is in). Exits 1 if there is any diagnostic, 2 on a usage
error.
`

// CheckMain runs `deloreis dke check` with args (the arguments after
// "check"), writing diagnostics to stdout and usage errors to stderr. It
// returns the exit code: 0 clean, 1 any diagnostic, 2 usage error.
func CheckMain(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("deloreis dke check", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	lang := fs.String("language", "eng", "keyword surface: eng or nob")
	asJSON := fs.Bool("json", false, "print the diagnostics as a JSON array")
	files, err := parseInterleaved(fs, args)
	if err != nil || len(files) == 0 {
		if err == nil || errors.Is(err, flag.ErrHelp) {
			err = errors.New("no files to check")
		}
		fmt.Fprintf(stderr, "deloreis dke check: %v\n%s", err, checkUsage)
		return 2
	}
	l, err := keywords.ParseLang(*lang)
	if err != nil {
		fmt.Fprintf(stderr, "deloreis dke check: %v\n", err)
		return 2
	}
	diags, err := CheckFiles(files, l)
	if err != nil {
		fmt.Fprintf(stderr, "deloreis dke check: %v\n", err)
		return 2
	}
	if *asJSON {
		writeJSON(stdout, diags)
	} else {
		for _, d := range diags {
			fmt.Fprintln(stdout, d.Error())
			if d.Fix != "" {
				fmt.Fprintf(stdout, "\tfix: %s\n", d.Fix)
			}
		}
	}
	if len(diags) > 0 {
		return 1
	}
	return 0
}

// fileDiagnostic is a wire diagnostic with the file it is in.
type fileDiagnostic struct {
	File string `json:"file"`
	diag.Diagnostic
}

// writeJSON prints the diagnostics as one indented JSON array, without
// escaping <, > and & (fixes hold placeholders such as <var>).
func writeJSON(w io.Writer, diags diag.List) {
	out := make([]fileDiagnostic, len(diags))
	for i, d := range diags {
		out[i] = fileDiagnostic{File: d.File, Diagnostic: d}
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	enc.Encode(out)
}

// parseInterleaved parses flags that may come before, between or after
// the file arguments.
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	var files []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			return files, nil
		}
		if args[0] == "--" {
			return append(files, args[1:]...), nil
		}
		files = append(files, args[0])
		args = args[1:]
	}
}

// CheckFiles checks module files as if compiled together: each may import
// the others by name. It returns the diagnostics of every file, in the
// order the files were given; an error only when a file cannot be read.
func CheckFiles(paths []string, lang keywords.Lang) (diag.List, error) {
	type unit struct {
		name string
		file *syntax.File
		errs diag.List
	}
	units := make([]*unit, len(paths))
	for i, p := range paths {
		src, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		u := &unit{name: moduleName(p)}
		u.file, u.errs = syntax.Parse(p, string(src), lang)
		if err := syntax.CheckModuleName(u.name); err != nil {
			u.errs = append(u.errs, diag.Diagnostic{File: p, Class: diag.ParseError, Line: 1, Col: 1,
				Message: "the file name does not name a module: " + err.Error()})
		}
		units[i] = u
	}
	// Two rounds: the first learns every module's scripts and kinds, the
	// second its calls, so that recursion across files is found.
	env := check.NewMapEnv()
	for round := 0; round < 2; round++ {
		next := check.NewMapEnv()
		for _, u := range units {
			info, _ := check.Check(u.file, check.Options{Module: u.name, Env: env})
			next.Put(info)
		}
		env = next
	}
	var out diag.List
	for _, u := range units {
		_, errs := check.Check(u.file, check.Options{Module: u.name, Env: env})
		all := append(u.errs, errs...)
		all.Sort()
		out = append(out, all...)
	}
	return out, nil
}

// moduleName is the module a file holds: its base name without extension.
func moduleName(path string) string {
	base := filepath.Base(path)
	return strings.TrimSuffix(base, filepath.Ext(base))
}
