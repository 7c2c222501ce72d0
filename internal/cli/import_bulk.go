// The bulk import (`import --bulk`): a .dli file or a stream of any size
// becomes one commit in bounded memory. Every declaration is parsed and
// validated as the staged import does it (syntax, ids, fields, canonical
// encoding, scope and path), but the world is not compiled: its findings
// are computed when the commit is next opened or checked (DL-0270).

package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/deloreis/deloreis/author"
	"github.com/deloreis/deloreis/dli"
	"github.com/deloreis/deloreis/objects"
)

// bulkRecordError refuses a bulk import at its first bad chunk of
// declarations: every problem in it, with its position in the whole file.
// Nothing was committed.
type bulkRecordError struct {
	file string
	errs dli.ErrorList
}

func (e *bulkRecordError) Error() string {
	first := e.errs[0]
	return fmt.Sprintf("%s:%s: %s; nothing imported", e.file, first.Pos, first.Msg)
}

func (e *bulkRecordError) Unwrap() error { return e.errs }

// runBulk streams file (or stdin for "-") into one commit, or with no
// --materialize checks every declaration and commits nothing.
func (o *importOptions) runBulk(file string, stdin io.Reader, stdout io.Writer) error {
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
	name, r := file, stdin
	if file == "-" {
		name = "<stdin>"
	} else {
		f, err := openRegular(file)
		if err != nil {
			return err
		}
		defer f.Close()
		r = f
	}
	ds := dli.NewStream(name, r)
	defer ds.Close()
	first, more, err := ds.Next()
	if err != nil {
		return o.refuse(stdout, name, err)
	}
	scope, err := o.pickScope(name, ds.Scope())
	if err != nil {
		return err
	}
	base := filepath.Base(file)
	if file == "-" {
		base = "standard input"
	}
	ctx, endProgress := progressOn(context.Background(), o.stderr)
	defer endProgress()
	res, err := svc.BulkImport(ctx, author.BulkRequest{Scope: scope, First: first, More: more, Next: ds.Next,
		Branch: o.branch, Materialize: o.materialize, Source: base, Name: name})
	endProgress()
	if err != nil {
		return o.refuse(stdout, name, err)
	}
	if o.format.json() {
		r := author.ImportResult{Scope: scope, Declarations: res.Declarations, Committed: res.Committed}
		if o.materialize {
			r.Commit = res.Commit
		}
		return o.format.emit(stdout, o.report(file, r))
	}
	decls := plural(res.Declarations, "declaration", "declarations")
	switch {
	case !o.materialize:
		fmt.Fprintf(stdout, "%s checked for scope %s (objects only; the world is not compiled)\n", decls, scope)
		fmt.Fprintln(stdout, "nothing committed (dry run; --materialize commits)")
	case res.Empty:
		fmt.Fprintf(stdout, "nothing new to commit: every declaration is already on %s\n", o.branch)
	default:
		fmt.Fprintf(stdout, "committed %s on %s: %s (bulk: objects checked; `deloreis check` reports the world's findings)\n",
			res.Commit[:12], o.branch, decls)
	}
	return nil
}

// refuse prints a bad chunk's problems compiler-style and returns them as
// a *bulkRecordError; other errors pass through.
func (o *importOptions) refuse(stdout io.Writer, name string, err error) error {
	var list dli.ErrorList
	if !errors.As(err, &list) || len(list) == 0 {
		return err
	}
	if err := o.parseErrors(stdout, name, list); err != nil {
		return err
	}
	return &bulkRecordError{file: name, errs: list}
}

// openRegular opens the regular file at path for streaming, as readRegular
// reads one: without blocking on a FIFO, checking what it opened.
func openRegular(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|openNonBlock, 0)
	if err != nil {
		return nil, err
	}
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !info.Mode().IsRegular() {
		f.Close()
		return nil, &fs.PathError{Op: "read", Path: path, Err: fmt.Errorf("%w (%s)", ErrNotRegular, fileKind(info.Mode()))}
	}
	return f, nil
}
