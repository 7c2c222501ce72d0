// Cross-process tests: a child process (this test binary re-executed with
// ODB_TEST_CHILD set) writes and consolidates while the parent reads, or is
// killed with SIGKILL at random moments.

package odb

import (
	"bufio"
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
)

// runChild is the child's main: it writes batches into ODB_TEST_DIR,
// appending the names of each written batch to ODB_TEST_LOG only after
// Write returned; one batch in five is discarded instead. Mode "write" stops after ODB_TEST_N batches; mode "crash"
// runs until killed.
func runChild(mode string) int {
	dir, logPath := os.Getenv("ODB_TEST_DIR"), os.Getenv("ODB_TEST_LOG")
	n, _ := strconv.Atoi(os.Getenv("ODB_TEST_N"))
	if mode == "crash" {
		n = 1 << 30
	}
	db, err := Open(dir, Options{AutoPackLimit: 4})
	if err != nil {
		fmt.Fprintln(os.Stderr, "child open:", err)
		return 1
	}
	logf, err := os.OpenFile(logPath, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		fmt.Fprintln(os.Stderr, "child log:", err)
		return 1
	}
	r := rand.New(rand.NewPCG(uint64(os.Getpid()), uint64(time.Now().UnixNano())))
	for i := 0; i < n; i++ {
		b := db.NewBatch()
		var names bytes.Buffer
		for j := 0; j < 1+r.IntN(300); j++ {
			h := b.Add(plumbing.BlobObject, blob(r, 20+r.IntN(500)))
			names.WriteString(h.String() + "\n")
		}
		if err := b.Write(); err != nil {
			fmt.Fprintln(os.Stderr, "child write:", err)
			return 1
		}
		if r.IntN(5) == 0 { // a lost ref race: take the pack back
			if err := b.Discard(); err != nil {
				fmt.Fprintln(os.Stderr, "child discard:", err)
				return 1
			}
			continue
		}
		if _, err := logf.Write(names.Bytes()); err != nil {
			return 1
		}
		if i%3 == 2 {
			if err := db.Consolidate(); err != nil {
				fmt.Fprintln(os.Stderr, "child consolidate:", err)
				return 1
			}
		}
	}
	return 0
}

func startChild(t *testing.T, mode, dir, logPath string, n int) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "ODB_TEST_CHILD="+mode, "ODB_TEST_DIR="+dir,
		"ODB_TEST_LOG="+logPath, "ODB_TEST_N="+strconv.Itoa(n))
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd
}

// logged returns the names in the child's log (complete lines only).
func logged(t testing.TB, logPath string) []plumbing.Hash {
	t.Helper()
	data, err := os.ReadFile(logPath)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var hs []plumbing.Hash
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		if l := sc.Text(); len(l) == 40 {
			hs = append(hs, plumbing.NewHash(l))
		}
	}
	return hs
}

// readAllNamed reads every h and checks that its content hashes to h.
func readAllNamed(t testing.TB, db *DB, hs []plumbing.Hash) {
	t.Helper()
	for _, h := range hs {
		typ, data, err := db.Read(h)
		if err != nil {
			t.Fatalf("Read %s: %v", h, err)
		}
		if HashObject(typ, data) != h {
			t.Fatalf("Read %s: content hashes to %s", h, HashObject(typ, data))
		}
	}
}

func TestCrossProcessReadWhileWriting(t *testing.T) {
	dir := initBare(t)
	logPath := filepath.Join(t.TempDir(), "log")
	db := openDB(t, dir, Options{AutoPackLimit: -1})
	child := startChild(t, "write", dir, logPath, 60)
	done := make(chan error, 1)
	go func() { done <- child.Wait() }()
	rounds := 0
	for {
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("child: %v", err)
			}
			hs := logged(t, logPath)
			readAllNamed(t, db, hs)
			if rounds < 3 || len(hs) < 60 {
				t.Fatalf("only %d read rounds over %d objects: the test proved little", rounds, len(hs))
			}
			fsckClean(t, dir)
			return
		default:
		}
		readAllNamed(t, db, logged(t, logPath))
		rounds++
	}
}

func TestSIGKILLCrashSafety(t *testing.T) {
	dir := initBare(t)
	logPath := filepath.Join(t.TempDir(), "log")
	r := rand.New(rand.NewPCG(11, 12))
	rounds := 30
	if testing.Short() {
		rounds = 8
	}
	for i := 0; i < rounds; i++ {
		before := len(logged(t, logPath))
		child := startChild(t, "crash", dir, logPath, 0)
		// Kill anywhere from start-up to a few batches in.
		time.Sleep(time.Duration(r.IntN(60_000)) * time.Microsecond)
		for j := 0; j < 200 && i%4 == 0 && len(logged(t, logPath)) == before; j++ {
			time.Sleep(time.Millisecond) // every 4th round: at least one batch
		}
		child.Process.Signal(syscall.SIGKILL)
		child.Wait()
		fsckClean(t, dir)
		db, err := Open(dir, Options{AutoPackLimit: -1})
		if err != nil {
			t.Fatalf("round %d: Open after SIGKILL: %v", i, err)
		}
		readAllNamed(t, db, logged(t, logPath))
		db.Close()
	}
	if n := len(logged(t, logPath)); n == 0 {
		t.Fatalf("no batch ever completed: the test proved nothing")
	}
	// Leftovers (temporary files, a .pack without .idx) are removed by
	// the next writer once stale; real git never complained about them
	// above.
	tmps, _ := filepath.Glob(filepath.Join(dir, "objects", "pack", "tmp_*"))
	t.Logf("%d rounds, %d objects committed, %d temporary files left by kills",
		rounds, len(logged(t, logPath)), len(tmps))
	db, err := Open(dir, Options{StaleAge: time.Nanosecond})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	readAllNamed(t, db, logged(t, logPath))
	b := db.NewBatch()
	b.Add(plumbing.BlobObject, []byte("the next writer\n"))
	if err := b.Write(); err != nil {
		t.Fatal(err)
	}
	left, _ := filepath.Glob(filepath.Join(dir, "objects", "pack", "tmp_*"))
	if len(left) != 0 {
		t.Fatalf("temporary files left after stale cleanup: %v", left)
	}
	co := string(git(t, dir, nil, "count-objects", "-v"))
	if !bytes.Contains([]byte(co), []byte("\ngarbage: 0\n")) {
		t.Fatalf("count-objects -v after cleanup:\n%s", co)
	}
}
