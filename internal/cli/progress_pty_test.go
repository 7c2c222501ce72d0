//go:build unix

package cli

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/creack/pty"
)

// writeDeclarations writes a .dli of n declarations for scope big:
// places, then persons each with a fact and a relation to a place.
func writeDeclarations(t *testing.T, path string, n int) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(f)
	fmt.Fprintln(w, "scope big")
	const places = 100
	for i := 0; i < places; i++ {
		fmt.Fprintf(w, "place place-%d \"Place %d\"  proposed  session-7c9\n", i, i)
	}
	lines := [3]string{
		"person p-%d \"Person %d\"  proposed  session-7c9\n",
		"p-%d.title = \"Knight %d\"  proposed  session-7c9\n",
		"serves(p-%d, place-%d)  proposed  session-7c9\n",
	}
	for d, i := places, 0; d < n; i++ {
		args := [3][2]int{{i, i}, {i, i % 97}, {i, i % places}}
		for k := 0; k < 3 && d < n; k, d = k+1, d+1 {
			fmt.Fprintf(w, lines[k], args[k][0], args[k][1])
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// runOnTerminal runs the command with its stderr on a pseudo-terminal of
// 100 columns and returns what the terminal received.
func runOnTerminal(t *testing.T, cmd *exec.Cmd) string {
	t.Helper()
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminal here: %v", err)
	}
	defer ptmx.Close()
	if err := pty.Setsize(ptmx, &pty.Winsize{Rows: 24, Cols: 100}); err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = tty
	var got bytes.Buffer
	read := make(chan error, 1)
	go func() {
		_, err := io.Copy(&got, ptmx)
		read <- err
	}()
	err = cmd.Run()
	tty.Close() // the reader ends (EIO) once the child's copy is closed too
	if rerr := <-read; rerr != nil && !errors.Is(rerr, os.ErrClosed) && !strings.Contains(rerr.Error(), "input/output error") {
		t.Fatalf("reading the terminal: %v", rerr)
	}
	if err != nil {
		t.Fatalf("%v: %v\nterminal: %q", cmd.Args, err, got.String())
	}
	return got.String()
}

// TestImportProgressOnTerminal (issue 33): `deloreis import` of 100,000
// declarations with stderr on a terminal draws its stages there, redrawn
// in place and each ended, and so does the first compile of the new
// head's world (`check` over it); the same import piped writes nothing to
// stderr.
func TestImportProgressOnTerminal(t *testing.T) {
	bin := binary(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "big.dli")
	writeDeclarations(t, file, 100_000)
	run := func(args ...string) *exec.Cmd {
		c := exec.Command(bin, append([]string{"--project", dir}, args...)...)
		// Drawn from the start: whether a stage outlasts the half second
		// before the first line depends on the machine (CI saw check's
		// compile draw nothing).
		c.Env = append(os.Environ(), "DELOREIS_AUTHOR=Test <test@example.com>", "DELOREIS_PROGRESS_DELAY=0")
		return c
	}
	if out, err := run("init", "--scope", "big").CombinedOutput(); err != nil {
		t.Fatalf("init: %v\n%s", err, out)
	}

	imp := run("import", file, "--materialize")
	var stdout bytes.Buffer
	imp.Stdout = &stdout
	term := runOnTerminal(t, imp)
	for _, want := range []string{
		"\rcompiling 100000 declarations into big: ",
		"\rwriting objects: ",
		"\rwriting objects: 100% (100000/100000), ",
		", done.\r\n", // the terminal's line discipline makes "\n" "\r\n"
	} {
		if !strings.Contains(term, want) {
			t.Errorf("the terminal did not see %q:\n%q", want, term)
		}
	}
	if n := strings.Count(term, "\r\n"); n != strings.Count(term, ", done.\r\n") {
		t.Errorf("a line ended without \", done.\": %q", term)
	}
	if !strings.Contains(stdout.String(), "committed ") || strings.Contains(stdout.String(), "\r") {
		t.Errorf("stdout: %q", stdout.String())
	}

	// The first compile of the new head's world (no world file holds it),
	// as a check over it does.
	one := filepath.Join(dir, "one.dli")
	if err := os.WriteFile(one, []byte("scope big\np-1.seat = \"perilous\"  proposed  session-7c9\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	chk := run("check", one)
	chk.Stdout = io.Discard
	if term := runOnTerminal(t, chk); !strings.Contains(term, "\rcompiling the world of big: ") || !strings.HasSuffix(term, ", done.\r\n") {
		t.Errorf("check's first compile drew %q", term)
	}

	// Piped: the same size of work (a dry run over the commit) is silent.
	var errs bytes.Buffer
	piped := run("import", file)
	piped.Stdout, piped.Stderr = io.Discard, &errs
	if err := piped.Run(); err != nil {
		t.Fatalf("piped import: %v\n%s", err, errs.String())
	}
	if errs.Len() != 0 {
		t.Fatalf("piped, stderr got %q", errs.String())
	}
}
