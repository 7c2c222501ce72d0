// The bulk import (`import --bulk`): a .dli file or a stream of any size
// becomes one commit in bounded memory. Every declaration is parsed and
// validated as the staged import does it (syntax, ids, fields, canonical
// encoding, scope and path), but the world is not compiled: its findings
// are computed when the commit is next opened or checked (DL-0270).

package cli

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/deloreis/deloreis/dli"
	"github.com/deloreis/deloreis/lorestore"
	"github.com/deloreis/deloreis/objects"
	"github.com/deloreis/deloreis/project"
)

// TrailerChecked records what a commit was checked against before it was
// written; a bulk import checks objects, not the world.
const TrailerChecked = "Lore-Checked"

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
	proj, err := loadProject(o.g.project)
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
	ds := newDeclStream(name, r)
	defer ds.Close()
	first, more, err := ds.next()
	if err != nil {
		return o.refuse(stdout, name, err)
	}
	scope, err := o.pickScope(name, ds.Scope())
	if err != nil {
		return err
	}
	s, err := o.openStore(proj)
	if err != nil {
		return err
	}
	defer s.Close()
	src := bulkSource{ds: ds, name: name, first: first, more: more}
	base := filepath.Base(file)
	if file == "-" {
		base = "standard input"
	}
	return o.bulkCommit(s, &src, scope, base, stdout)
}

// bulkSource is a declaration stream whose first chunk has been read.
type bulkSource struct {
	ds    *declStream
	name  string
	first []dli.Decl
	more  bool
}

// bulkCommit puts every declaration into a bulk commit of scope and
// commits it, or with no --materialize only checks them.
func (o *importOptions) bulkCommit(s *lorestore.Store, src *bulkSource, scope, base string, stdout io.Writer) error {
	put := checkOnly()
	var bulk *lorestore.Bulk
	if o.materialize {
		var err error
		if bulk, err = s.NewBulk(scope); err != nil {
			return err
		}
		defer bulk.Close()
		put = func(obj objects.Object) error { _, err := bulk.Put(obj); return err }
	}
	n := 0
	for decls, more := src.first, src.more; more; {
		for _, d := range decls {
			if err := put(d.Object); err != nil {
				var list dli.ErrorList
				list.Add(src.name, d.Pos, err.Error())
				return o.refuse(stdout, src.name, list)
			}
			n++
		}
		var err error
		if decls, more, err = src.ds.next(); err != nil {
			return o.refuse(stdout, src.name, err)
		}
	}
	if bulk == nil {
		fmt.Fprintf(stdout, "%d declarations checked for scope %s (objects only; the world is not compiled)\n", n, scope)
		fmt.Fprintln(stdout, "nothing committed (dry run; --materialize commits)")
		return nil
	}
	m := lorestore.NewMessage(fmt.Sprintf("bulk import %s into %s: %d declarations", base, scope, n), "import", scope)
	m.Trailers = append(m.Trailers, lorestore.Trailer{Key: TrailerChecked, Value: "objects"})
	res, err := bulk.Commit(m, lorestore.CommitOptions{Branch: o.branch})
	if err != nil {
		return err
	}
	if res.Empty {
		fmt.Fprintf(stdout, "nothing new to commit: every declaration is already on %s\n", o.branch)
		return nil
	}
	fmt.Fprintf(stdout, "committed %s on %s: %d declarations (bulk: objects checked; `deloreis check` reports the world's findings)\n",
		res.Commit.String()[:12], o.branch, n)
	return nil
}

// checkOnly validates an object as a commit would, writing nothing.
func checkOnly() func(objects.Object) error {
	var scratch []byte
	return func(obj objects.Object) error {
		var err error
		scratch, err = obj.AppendCanonical(scratch[:0])
		return err
	}
}

// refuse prints a bad chunk's problems compiler-style and returns them as
// a *bulkRecordError; other errors pass through.
func (o *importOptions) refuse(stdout io.Writer, name string, err error) error {
	var list dli.ErrorList
	if !errors.As(err, &list) || len(list) == 0 {
		return err
	}
	for _, e := range list {
		io.WriteString(stdout, compilerStyle(e))
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
