// This file holds the test helpers: TestMain with its child-process modes
// (tests re-execute the test binary to get real concurrent processes), and
// the helpers that drive real git as the referee.

package refs

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
)

const childEnv = "REFS_TEST_CHILD"

func TestMain(m *testing.M) {
	if mode := os.Getenv(childEnv); mode != "" {
		os.Exit(runChild(mode))
	}
	os.Exit(m.Run())
}

// runChild is the body of a child process; its settings come from the
// environment.
func runChild(mode string) int {
	s, err := Open(os.Getenv("REFS_TEST_DIR"), Options{LockTimeout: 20 * time.Second})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	switch mode {
	case "writer":
		err = childWriter(s)
	case "counter":
		err = childCounter(s)
	case "hang":
		err = childHang(s)
	default:
		err = fmt.Errorf("unknown child mode %q", mode)
	}
	if cerr := s.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		return 1
	}
	return 0
}

// childWriter flips refs/heads/main between two values until the stop file
// exists.
func childWriter(s *Store) error {
	a, b := fakeHash(1), fakeHash(2)
	stop := os.Getenv("REFS_TEST_STOP")
	for i := 0; ; i++ {
		cur, err := s.Read("refs/heads/main")
		if err != nil {
			return err
		}
		next := a
		if cur == a {
			next = b
		}
		if err := s.Update("refs/heads/main", next, cur); err != nil {
			return err
		}
		if i == 0 {
			fmt.Println("started")
		}
		if _, err := os.Stat(stop); err == nil {
			return nil
		}
	}
}

// childCounter performs n read-modify-CAS increments of the counter ref,
// retrying on staleness, and prints how many succeeded.
func childCounter(s *Store) error {
	n, _ := strconv.Atoi(os.Getenv("REFS_TEST_N"))
	const name = "refs/heads/counter"
	stale := 0
	for done := 0; done < n; {
		cur, err := s.Read(name)
		if err != nil {
			return err
		}
		v, ok := counterValue(cur)
		if !ok {
			return fmt.Errorf("counter holds %s", cur)
		}
		err = s.Update(name, counterHash(v+1), cur)
		switch {
		case err == nil:
			done++
		case errors.Is(err, ErrStale):
			stale++
		default:
			return err
		}
	}
	fmt.Printf("ok %d %d\n", n, stale)
	return nil
}

// childHang runs one operation with a hook that, at the named stage (and
// path suffix, if given), reports the path on stdout and then hangs until
// killed.
func childHang(s *Store) error {
	stage, suffix := os.Getenv("REFS_TEST_STAGE"), os.Getenv("REFS_TEST_SUFFIX")
	testHook = func(st, path string) {
		if st == stage && strings.HasSuffix(path, suffix) {
			fmt.Printf("%s %s\n", st, path)
			time.Sleep(time.Hour) // (select{} would die as a deadlock)
		}
	}
	name := os.Getenv("REFS_TEST_REF")
	newH := plumbing.NewHash(os.Getenv("REFS_TEST_NEW"))
	oldH := plumbing.NewHash(os.Getenv("REFS_TEST_OLD"))
	switch os.Getenv("REFS_TEST_OP") {
	case "delete":
		return s.Delete(name, oldH)
	case "sethead":
		return s.SetHead(name)
	default:
		return s.Update(name, newH, oldH)
	}
}

// fakeHash returns a distinct non-zero hash for i (not an object).
func fakeHash(i int) plumbing.Hash {
	var h plumbing.Hash
	h[0] = 0xde
	h[19] = byte(i)
	h[18] = byte(i >> 8)
	return h
}

// counterHash encodes a counter value in a hash; counterValue decodes it.
func counterHash(v uint64) plumbing.Hash {
	var h plumbing.Hash
	copy(h[:], "counter:")
	for i := 0; i < 8; i++ {
		h[19-i] = byte(v >> (8 * i))
	}
	return h
}

func counterValue(h plumbing.Hash) (uint64, bool) {
	if string(h[:8]) != "counter:" {
		return 0, false
	}
	var v uint64
	for i := 12; i < 20; i++ {
		v = v<<8 | uint64(h[i])
	}
	return v, h[8] == 0 && h[9] == 0 && h[10] == 0 && h[11] == 0
}

// child is a running child process with a line reader on its stdout.
type child struct {
	cmd    *exec.Cmd
	lines  chan string
	stderr bytes.Buffer
}

// startChild re-executes the test binary in the given mode.
func startChild(t *testing.T, mode, dir string, env ...string) *child {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"="+mode, "REFS_TEST_DIR="+dir)
	cmd.Env = append(cmd.Env, env...)
	c := &child{cmd: cmd, lines: make(chan string, 16)}
	cmd.Stderr = &c.stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			c.lines <- sc.Text()
		}
		close(c.lines)
	}()
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
	})
	return c
}

// line waits for the child's next stdout line.
func (c *child) line(t *testing.T) string {
	t.Helper()
	select {
	case l, ok := <-c.lines:
		if !ok {
			c.cmd.Wait()
			t.Fatalf("child exited without output: %s", c.stderr.String())
		}
		return l
	case <-time.After(20 * time.Second):
		t.Fatalf("child said nothing for 20s: %s", c.stderr.String())
	}
	return ""
}

// kill SIGKILLs the child and reaps it.
func (c *child) kill(t *testing.T) {
	t.Helper()
	if err := c.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	c.cmd.Wait()
}

// wait waits for the child to exit successfully.
func (c *child) wait(t *testing.T) {
	t.Helper()
	if err := c.cmd.Wait(); err != nil {
		t.Fatalf("child: %v: %s", err, c.stderr.String())
	}
}

// gitEnv isolates git from the user's and system's configuration.
func gitEnv() []string {
	return append(os.Environ(),
		"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "LC_ALL=C",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com",
		"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com",
		"GIT_AUTHOR_DATE=1700000000 +0000", "GIT_COMMITTER_DATE=1700000000 +0000")
}

// git runs real git on the bare repository dir and returns its trimmed
// stdout, failing the test on error.
func git(t testing.TB, dir string, args ...string) string {
	t.Helper()
	out, err := gitErr(dir, "", args...)
	if err != nil {
		t.Fatalf("git %s: %v", strings.Join(args, " "), err)
	}
	return out
}

func gitErr(dir, stdin string, args ...string) (string, error) {
	cmd := exec.Command("git", append([]string{"--git-dir=" + dir}, args...)...)
	cmd.Env = gitEnv()
	cmd.Stdin = strings.NewReader(stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("%v: %s", err, stderr.String())
	}
	return strings.TrimSpace(stdout.String()), nil
}

// newRepo makes a bare repository with git init --bare and returns its path
// and a Store on it.
func newRepo(t testing.TB, opts Options) (string, *Store) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "repo.git")
	if out, err := exec.Command("git", "init", "-q", "--bare", dir).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v: %s", err, out)
	}
	s, err := Open(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return dir, s
}

// commit makes a real commit object in dir with git commit-tree.
func commit(t testing.TB, dir, msg string) plumbing.Hash {
	t.Helper()
	tree := git(t, dir, "hash-object", "-t", "tree", "-w", "--stdin")
	out, err := gitErr(dir, "", "commit-tree", "-m", msg, tree)
	if err != nil {
		t.Fatal(err)
	}
	return plumbing.NewHash(out)
}

// snapshot maps every file and directory that holds refs state (refs/,
// packed-refs, HEAD and any lock file beside them) to its content.
func snapshot(t testing.TB, dir string) map[string]string {
	t.Helper()
	snap := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		switch {
		case rel == "objects" || rel == "hooks" || rel == "info" || rel == "logs":
			return filepath.SkipDir
		case rel == sidecarName || rel == "config" || rel == "description":
			return nil
		case isOwnSpare(p):
			return nil // a spare token comes and goes in the background
		case d.IsDir():
			snap[rel+"/"] = "dir"
			return nil
		}
		data, err := os.ReadFile(p)
		snap[rel] = string(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return snap
}

func diffSnapshots(before, after map[string]string) string {
	var b strings.Builder
	for k, v := range before {
		if w, ok := after[k]; !ok {
			fmt.Fprintf(&b, "removed %s\n", k)
		} else if w != v {
			fmt.Fprintf(&b, "changed %s: %q -> %q\n", k, v, w)
		}
	}
	for k, v := range after {
		if _, ok := before[k]; !ok {
			fmt.Fprintf(&b, "added %s: %q\n", k, v)
		}
	}
	return b.String()
}

// checkClean fails if any lock file, token or record is left in dir. The
// one exception is a spare token of this live process (see spare.go): not
// linked as any lock, named in no record.
func checkClean(t testing.TB, dir string) {
	t.Helper()
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if strings.HasSuffix(p, ".lock") && !strings.HasSuffix(p, sidecarName) ||
			strings.HasPrefix(d.Name(), tokenPrefix) && !isOwnSpare(p) {
			t.Errorf("left behind: %s", p)
		}
		return nil
	})
	if data, err := os.ReadFile(filepath.Join(dir, sidecarName)); err == nil && len(data) > 0 {
		t.Errorf("sidecar record left: %q", data)
	}
}

// isOwnSpare reports whether the token at path is an unlinked token of this
// process: a spare.
func isOwnSpare(path string) bool {
	var st syscall.Stat_t
	if syscall.Stat(path, &st) != nil || st.Nlink != 1 {
		return false
	}
	return strings.HasPrefix(filepath.Base(path), fmt.Sprintf("%s%d.", tokenPrefix, os.Getpid()))
}
