// Checking module files without storing anything, for `deloreis dke
// check` (the command itself lives in internal/cli).

package dke

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/deloreis/deloreis/dke/check"
	"github.com/deloreis/deloreis/dke/diag"
	"github.com/deloreis/deloreis/dke/keywords"
	"github.com/deloreis/deloreis/dke/syntax"
)

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
