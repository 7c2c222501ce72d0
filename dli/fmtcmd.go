// This file holds FmtMain, the body of `deloreis fmt [-w] [-d] FILE…`: it
// formats .dli files gofmt-style, printing the result, rewriting files in
// place atomically, or printing a unified diff.

package dli

import (
	"bytes"
	"errors"
	"flag"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// fmtUsage is the usage text of `deloreis fmt`.
const fmtUsage = `usage: deloreis fmt [-w] [-d] [FILE|DIR …]

Formats .dli files in the canonical surface. With no flags the formatted
text is printed; -w rewrites each file that changes, in place; -d prints a
unified diff of each file that changes. A directory is searched for .dli
files. With no FILE, standard input is formatted to standard output.
The exit status is 1 when a file does not parse or cannot be read or
written, 2 on a usage error, and 0 otherwise.

flags:
`

// FmtMain runs `deloreis fmt` with args (the arguments after "fmt"),
// printing results to stdout and errors to stderr, compiler-style
// (`file:line:col: error: message`). It returns the exit status: 0 when
// every file was formatted, 1 when a file did not parse or could not be
// read or written, 2 on a usage error. With no files it reads standard
// input.
func FmtMain(args []string, stdout, stderr io.Writer) int {
	return fmtMain(args, os.Stdin, stdout, stderr)
}

// fmtOptions are the flags of one fmt run.
type fmtOptions struct {
	write, diff    bool
	stdout, stderr io.Writer
}

// fmtMain is FmtMain with standard input as a parameter.
func fmtMain(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fset := flag.NewFlagSet("fmt", flag.ContinueOnError)
	fset.SetOutput(stderr)
	o := fmtOptions{stdout: stdout, stderr: stderr}
	fset.BoolVar(&o.write, "w", false, "write the result to each file that changes, instead of to stdout")
	fset.BoolVar(&o.diff, "d", false, "print a unified diff of each file that changes, instead of the result")
	fset.Usage = func() {
		io.WriteString(stderr, fmtUsage)
		fset.PrintDefaults()
	}
	if err := fset.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fset.NArg() == 0 {
		if o.write {
			io.WriteString(stderr, "deloreis fmt: cannot use -w with standard input\n")
			return 2
		}
		src, err := io.ReadAll(stdin)
		if err != nil {
			fmtIOError(stderr, "<standard input>", err)
			return 1
		}
		return o.format("<standard input>", src, 0)
	}
	status := 0
	for _, path := range fset.Args() {
		if s := o.path(path); s > status {
			status = s
		}
	}
	return status
}

// path formats one FILE argument, or every .dli file under a directory.
func (o *fmtOptions) path(path string) int {
	info, err := os.Stat(path)
	if err != nil {
		fmtIOError(o.stderr, path, err)
		return 1
	}
	if !info.IsDir() {
		return o.file(path)
	}
	status := 0
	err = filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			fmtIOError(o.stderr, p, err)
			status = 1
			return nil
		}
		if !d.IsDir() && strings.HasSuffix(p, ".dli") {
			if s := o.file(p); s > status {
				status = s
			}
		}
		return nil
	})
	if err != nil {
		fmtIOError(o.stderr, path, err)
		return 1
	}
	return status
}

// file formats one file.
func (o *fmtOptions) file(path string) int {
	src, err := os.ReadFile(path)
	if err != nil {
		fmtIOError(o.stderr, path, err)
		return 1
	}
	info, err := os.Stat(path)
	if err != nil {
		fmtIOError(o.stderr, path, err)
		return 1
	}
	return o.format(path, src, info.Mode().Perm())
}

// format formats the source of one file named name; perm is its
// permission bits, for -w.
func (o *fmtOptions) format(name string, src []byte, perm fs.FileMode) int {
	doc, err := Parse(name, src)
	if err != nil {
		var list ErrorList
		if errors.As(err, &list) {
			for _, e := range list {
				io.WriteString(o.stderr, compilerStyle(e))
			}
		} else {
			fmtIOError(o.stderr, name, err)
		}
		return 1
	}
	out := Format(doc)
	changed := !bytes.Equal(src, out)
	if o.write && changed {
		if err := writeAtomic(name, out, perm); err != nil {
			fmtIOError(o.stderr, name, err)
			return 1
		}
	}
	if o.diff && changed {
		o.stdout.Write(unifiedDiff(name+".orig", name, src, out))
	}
	if !o.write && !o.diff {
		o.stdout.Write(out)
	}
	return 0
}

// compilerStyle writes one parse error as `file:line:col: error: message`.
func compilerStyle(e *Error) string {
	var b strings.Builder
	b.WriteString(e.Filename)
	b.WriteByte(':')
	b.WriteString(itoa(e.Pos.Line))
	b.WriteByte(':')
	b.WriteString(itoa(e.Pos.Col))
	b.WriteString(": error: ")
	b.WriteString(e.Msg)
	b.WriteByte('\n')
	return b.String()
}

// fmtIOError prints an error that is not a parse error, as
// `file: error: message`.
func fmtIOError(stderr io.Writer, name string, err error) {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	io.WriteString(stderr, name+": error: "+err.Error()+"\n")
}

// writeAtomic replaces the file at path with data: it writes a temporary
// file beside it (beside the link's target, for a symbolic link), gives it
// perm, syncs it and renames it over the file, so a reader sees the old
// content or the new, never a part.
func writeAtomic(path string, data []byte, perm fs.FileMode) (err error) {
	if target, err := filepath.EvalSymlinks(path); err == nil {
		path = target
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".fmt-*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if _, err = tmp.Write(data); err != nil {
		return err
	}
	if err = tmp.Chmod(perm); err != nil {
		return err
	}
	if err = tmp.Sync(); err != nil {
		return err
	}
	if err = tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
