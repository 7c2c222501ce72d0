// The fmt command: format .dli files gofmt-style, printing the result,
// listing the files whose formatting differs (-l), rewriting them in place
// atomically (-w), or printing a unified diff (-d).

package cli

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/deloreis/deloreis/dli"
	"github.com/spf13/cobra"
)

// fmtLong is the long help of `deloreis fmt`.
const fmtLong = `Formats .dli files in the canonical surface. With no flags the formatted
text is printed; -l lists the files whose formatting differs; -w rewrites
each file that changes, in place; -d prints a unified diff of each file
that changes. A directory is searched for regular .dli files (symbolic
links are not followed there); a named file must be a regular file once
symbolic links are resolved. With no FILE, standard input is formatted to
standard output.

Exit status: 1 when a file does not parse or cannot be read or written,
2 on a usage error, 0 otherwise.`

func newFmtCmd() *cobra.Command {
	var o fmtOptions
	cmd := &cobra.Command{
		Use:   "fmt [-l] [-w] [-d] [FILE|DIR…]",
		Short: "Print .dli files in canonical form (-l: list those that differ; -w: rewrite them; -d: show the diff)",
		Long:  fmtLong,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.stdout, o.stderr = cmd.OutOrStdout(), cmd.ErrOrStderr()
			return exitStatus(o.run(args, cmd.InOrStdin()))
		},
	}
	fl := cmd.Flags()
	fl.BoolVarP(&o.list, "list", "l", false, "list the files whose formatting differs, instead of the result")
	fl.BoolVarP(&o.write, "write", "w", false, "write the result to each file that changes, instead of to stdout")
	fl.BoolVarP(&o.diff, "diff", "d", false, "print a unified diff of each file that changes, instead of the result")
	return cmd
}

// exitStatus turns a status whose diagnostics are printed into the error
// run maps back to it.
func exitStatus(status int) error {
	if status == 0 {
		return nil
	}
	return exitCode(status)
}

// fmtOptions are the flags and outputs of one fmt run.
type fmtOptions struct {
	list, write, diff bool
	stdout, stderr    io.Writer
}

// run formats each argument, or standard input when there is none, and
// returns the exit status.
func (o *fmtOptions) run(args []string, stdin io.Reader) int {
	if len(args) == 0 {
		if o.write {
			return fail(usageError{"fmt: cannot use -w with standard input"}, o.stderr)
		}
		src, err := io.ReadAll(stdin)
		if err != nil {
			fileError(o.stderr, "<standard input>", err)
			return 1
		}
		return o.format("<standard input>", src, 0)
	}
	status := 0
	for _, path := range args {
		status = max(status, o.path(path))
	}
	return status
}

// fail prints a usage error as run would and returns its status.
func fail(err usageError, stderr io.Writer) int {
	io.WriteString(stderr, "deloreis: "+err.Error()+"\n")
	return 2
}

// path formats one FILE argument, or every regular .dli file under a
// directory.
func (o *fmtOptions) path(path string) int {
	info, err := os.Stat(path)
	if err != nil {
		fileError(o.stderr, path, err)
		return 1
	}
	if !info.IsDir() {
		return o.file(path)
	}
	status := 0
	err = filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			fileError(o.stderr, p, err)
			status = 1
			return nil
		}
		// Only regular files: a walk never reads a device, a FIFO or a
		// link that may lead to one.
		if d.Type().IsRegular() && strings.HasSuffix(p, ".dli") {
			status = max(status, o.file(p))
		}
		return nil
	})
	if err != nil {
		fileError(o.stderr, path, err)
		return 1
	}
	return status
}

// file formats one regular file.
func (o *fmtOptions) file(path string) int {
	src, err := readRegular(path)
	if err != nil {
		fileError(o.stderr, path, err)
		return 1
	}
	info, err := os.Stat(path)
	if err != nil {
		fileError(o.stderr, path, err)
		return 1
	}
	return o.format(path, src, info.Mode().Perm())
}

// format formats the source of one file named name; perm is its
// permission bits, for -w.
func (o *fmtOptions) format(name string, src []byte, perm fs.FileMode) int {
	doc, err := dli.Parse(name, src)
	if err != nil {
		printParseError(o.stderr, name, err)
		return 1
	}
	out := dli.Format(doc)
	changed := !bytes.Equal(src, out)
	if o.write && changed {
		if err := writeAtomic(name, out, perm); err != nil {
			fileError(o.stderr, name, err)
			return 1
		}
	}
	if o.list && changed {
		io.WriteString(o.stdout, name+"\n")
	}
	if o.diff && changed {
		o.stdout.Write(unifiedDiff(name+".orig", name, src, out))
	}
	if !o.write && !o.diff && !o.list {
		o.stdout.Write(out)
	}
	return 0
}

// printParseError prints the errors of a parse compiler-style, one
// `file:line:col: error: message` line each.
func printParseError(w io.Writer, name string, err error) {
	var list dli.ErrorList
	if !errors.As(err, &list) {
		fileError(w, name, err)
		return
	}
	for _, e := range list {
		io.WriteString(w, compilerStyle(e))
	}
}

// compilerStyle writes one parse error as `file:line:col: error: message`.
func compilerStyle(e *dli.Error) string {
	return fmt.Sprintf("%s:%d:%d: error: %s\n", e.Filename, e.Pos.Line, e.Pos.Col, e.Msg)
}

// fileError prints an error that is not a parse error, as
// `file: error: message`.
func fileError(stderr io.Writer, name string, err error) {
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
