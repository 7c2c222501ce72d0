// Tests across processes: two writers on one branch, writers killed
// mid-commit, readers racing a writer, and a lock held by real git. The
// test binary re-executes itself in a child role (see TestMain).

package lorestore

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/deloreis/deloreis/lorestore/odb"
	"github.com/deloreis/deloreis/lorestore/refs"
)

const childEnv = "LORESTORE_TEST_CHILD"

func TestMain(m *testing.M) {
	if role := os.Getenv(childEnv); role != "" {
		os.Exit(runChild(role))
	}
	os.Exit(m.Run())
}

// runChild plays one role in a separate process.
func runChild(role string) int {
	dir := os.Getenv("LORE_DIR")
	start, _ := strconv.Atoi(os.Getenv("LORE_START"))
	count, _ := strconv.Atoi(os.Getenv("LORE_COUNT"))
	per, _ := strconv.Atoi(os.Getenv("LORE_PER_COMMIT"))
	s, err := Open(dir, Options{})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 3
	}
	defer s.Close()
	for i := start; strings.HasPrefix(role, "forever") || i < start+count; i += per {
		b := NewBatch()
		if strings.HasSuffix(role, "-stream") {
			b = s.NewBatch()
		}
		for j := i; j < i+per; j++ {
			if _, err := b.Put("camelot", fact(j)); err != nil {
				fmt.Fprintln(os.Stderr, err)
				return 4
			}
		}
		res, err := s.Commit(b, NewMessage(fmt.Sprintf("%s %d", role, i), "materialize", "camelot"), CommitOptions{})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 5
		}
		fmt.Printf("committed %s %d\n", res.Commit, i+per)
	}
	return 0
}

func child(t *testing.T, role, dir string, start, count, per int) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"="+role, "LORE_DIR="+dir,
		"LORE_START="+strconv.Itoa(start), "LORE_COUNT="+strconv.Itoa(count), "LORE_PER_COMMIT="+strconv.Itoa(per))
	cmd.Stderr = os.Stderr
	return cmd
}

// TestTwoWritersLoseNothing: two processes commit to main at the same
// time, one object a commit, or big streamed batches; every object ends up
// on main and git fsck accepts the history.
func TestTwoWritersLoseNothing(t *testing.T) {
	tests := []struct {
		name       string
		suffix     string
		count, per int
	}{
		{"small", "", 200, 1},
		{"streamed", "-stream", 9000, 3000},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { twoWriters(t, tc.suffix, tc.count, tc.per) })
	}
}

func twoWriters(t *testing.T, suffix string, count, per int) {
	_, dir := newStore(t)
	const bStart = 100_000
	a := child(t, "writer-a"+suffix, dir, 0, count, per)
	b := child(t, "writer-b"+suffix, dir, bStart, count, per)
	if err := a.Start(); err != nil {
		t.Fatal(err)
	}
	if err := b.Start(); err != nil {
		t.Fatal(err)
	}
	if err := a.Wait(); err != nil {
		t.Fatalf("writer a: %v", err)
	}
	if err := b.Wait(); err != nil {
		t.Fatalf("writer b: %v", err)
	}
	s, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	sn, err := s.Snapshot("main")
	if err != nil {
		t.Fatal(err)
	}
	ids, err := sn.IDs("camelot", Claims)
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]bool{}
	for _, id := range ids {
		have[id.String()] = true
	}
	for _, n := range append(seq(0, count), seq(bStart, bStart+count)...) {
		if !have[factID(t, n).String()] {
			t.Fatalf("fact %d is lost", n)
		}
	}
	if len(ids) != 2*count {
		t.Fatalf("%d claims on main, want %d", len(ids), 2*count)
	}
	log, err := s.Log(LogOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if want := 2*count/per + 1; len(log) != want {
		t.Fatalf("%d commits, want %d with the init commit", len(log), want)
	}
	s.WaitBackground()
	fsckClean(t, dir)
}

func seq(from, to int) []int {
	var out []int
	for i := from; i < to; i++ {
		out = append(out, i)
	}
	return out
}

// TestKilledWriterLeavesAConsistentStore: a writer killed with SIGKILL
// mid-commit, many times in a row, leaves a store that opens at its last
// complete commit and passes git fsck: with small in-memory batches, and
// with big streamed ones (killed while they spool their packs).
func TestKilledWriterLeavesAConsistentStore(t *testing.T) {
	tests := []struct {
		role   string
		per    int
		rounds int
		waitMS int // the kill comes 5 ms to this much after the start
		// afterFirst starts the wait at the round's first commit: a
		// streamed commit takes long, longer still under -race.
		afterFirst bool
	}{
		{"forever", 50, 20, 65, false},
		{"forever-stream", 2000, 6, 150, true},
	}
	for _, tc := range tests {
		t.Run(tc.role, func(t *testing.T) {
			killWriterRounds(t, tc.role, tc.per, tc.rounds, tc.waitMS, tc.afterFirst)
		})
	}
}

func killWriterRounds(t *testing.T, role string, per, rounds, waitMS int, afterFirst bool) {
	_, dir := newStore(t)
	next, midSpool := 0, 0
	for round := 0; round < rounds; round++ {
		cmd := child(t, role, dir, next, 0, per)
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		lines := make(chan string, 1024)
		go func() {
			sc := bufio.NewScanner(out)
			for sc.Scan() {
				lines <- sc.Text()
			}
			close(lines)
		}()
		var got []string
		// A slow machine (or -race) may kill every round before its first
		// commit; the last round then waits for one, so the test always
		// checks a store a writer was killed in after committing.
		if afterFirst || round == rounds-1 && next == 0 {
			if l, ok := <-lines; ok {
				got = append(got, l)
			}
		}
		// Let it commit a little, then kill it at a random moment.
		time.Sleep(time.Duration(5+rand.IntN(waitMS-5)) * time.Millisecond)
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()
		if len(spooled(t, dir)) > 0 {
			midSpool++ // killed with a pack half written
		}
		var last string
		lastN := next
		for l := range lines {
			got = append(got, l)
		}
		for _, l := range got {
			f := strings.Fields(l)
			last = f[1]
			lastN, _ = strconv.Atoi(f[2])
		}
		s, err := Open(dir, Options{})
		if err != nil {
			t.Fatalf("round %d: open: %v", round, err)
		}
		head, err := s.Head("main")
		if err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		ids, err := s.Snapshot("main")
		if err != nil {
			t.Fatalf("round %d: snapshot: %v", round, err)
		}
		claims, err := ids.Objects("camelot", Claims)
		if err != nil {
			t.Fatalf("round %d: read: %v", round, err)
		}
		// The head is the last commit the writer reported, or the one it
		// completed but was killed before reporting.
		switch {
		case len(claims) == lastN && (last == "" || head.String() == last):
		case len(claims) == lastN+per:
		default:
			t.Fatalf("round %d: head %s with %d claims; writer last reported %q with %d", round, head, len(claims), last, lastN)
		}
		next = len(claims)
		s.Close()
		fsckClean(t, dir)
	}
	if next == 0 {
		t.Fatal("no writer ever completed a commit; the test proved nothing")
	}
	t.Logf("%d of %d kills left a half-written pack behind", midSpool, rounds)
}

// TestReadersNeverSeeTheBranchMissing: while a process commits in a loop,
// another reads the branch 10,000 times.
func TestReadersNeverSeeTheBranchMissing(t *testing.T) {
	s, dir := newStore(t)
	cmd := child(t, "forever", dir, 0, 0, 1)
	cmd.Stdout = io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	// At least 10,000 reads, and on until the writer has moved the branch
	// (a loaded machine may start the child after that many reads), for
	// at most half a minute.
	seen := map[string]bool{}
	deadline := time.Now().Add(30 * time.Second)
	for i := 0; i < 10000 || len(seen) < 2 && time.Now().Before(deadline); i++ {
		h, err := s.Head("main")
		if err != nil {
			t.Fatalf("read %d: %v", i, err)
		}
		seen[h.String()] = true
	}
	if len(seen) < 2 {
		t.Fatal("the writer never moved the branch while we read; the test proved nothing")
	}
}

// TestRealGitLockIsHonoured: while real git holds refs/heads/main.lock, an
// update is refused and changes nothing, for an in-memory batch and for a
// streamed one (whose pack is written before the ref is tried); once git
// lets go it succeeds.
func TestRealGitLockIsHonoured(t *testing.T) {
	tests := []struct {
		name     string
		newBatch func(*Store) *Batch
	}{
		{"in-memory", func(*Store) *Batch { return NewBatch() }},
		{"streamed", func(s *Store) *Batch { return s.NewBatch() }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { gitLockHonoured(t, tc.newBatch) })
	}
}

func gitLockHonoured(t *testing.T, newBatch func(*Store) *Batch) {
	_, dir := newStore(t)
	s, err := Open(dir, Options{LockTimeout: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	commitFacts(t, s, "camelot", 0, 3)
	head, _ := s.Head("main")
	cmd := exec.Command("git", "--git-dir", dir, "update-ref", "--stdin")
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(stdin, "start\nupdate refs/heads/main %s %s\nprepare\n", head, head)
	r := bufio.NewReader(stdout)
	for _, want := range []string{"start: ok", "prepare: ok"} {
		line, _ := r.ReadString('\n')
		if strings.TrimSpace(line) != want {
			t.Fatalf("git update-ref said %q, want %q", line, want)
		}
	}
	s.WaitBackground()
	before := dirState(t, dir)
	b := newBatch(s)
	for i := 10; i < 3010; i++ { // a few chunks: a streamed batch spools
		b.Put("camelot", fact(i))
	}
	_, err = s.Commit(b, NewMessage("while git holds the lock", "materialize", "camelot"), CommitOptions{})
	if !errors.Is(err, refs.ErrLocked) {
		t.Fatalf("commit under git's lock: %v, want refs.ErrLocked", err)
	}
	s.WaitBackground()
	sameState(t, before, dirState(t, dir))
	if ts := spooled(t, dir); len(ts) != 0 {
		t.Fatalf("temporary files left: %v", ts)
	}
	fmt.Fprintln(stdin, "abort")
	stdin.Close()
	cmd.Wait()
	b = newBatch(s)
	b.Put("camelot", fact(10))
	if _, err := s.Commit(b, NewMessage("after git let go", "materialize", "camelot"), CommitOptions{}); err != nil {
		t.Fatalf("commit after git let go: %v", err)
	}
}

// TestStreamedCommitRebasesWhenGitMovesTheBranch: real git moves the
// branch after a streamed commit has read it. The commit rebases, its
// blobs staying in the first attempt's pack; or finds them all on the new
// head and writes no commit; or, when it may not retry, fails and takes
// back every pack it wrote.
func TestStreamedCommitRebasesWhenGitMovesTheBranch(t *testing.T) {
	tests := []struct {
		name    string
		retries int
		same    bool // git moves main to a commit holding the batch already
	}{
		{"rebases", 64, false},
		{"finds-it-done", 64, true},
		{"out-of-retries", 1, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, dir := newStore(t)
			s.opts.MaxRetries = tc.retries
			first := commitFacts(t, s, "camelot", 0, 1)
			moved := commitFacts(t, s, "camelot", 1, 2)
			if tc.same {
				git(t, dir, "update-ref", "refs/heads/main", first.Commit.String())
				moved = commitFacts(t, s, "camelot", 10, 3010)
			}
			git(t, dir, "update-ref", "refs/heads/main", first.Commit.String())
			s.WaitBackground()
			b := s.NewBatch()
			for i := 10; i < 3010; i++ {
				b.Put("camelot", fact(i))
			}
			var before map[string]string
			attempts := 0
			build := func(ob *odb.Batch, parent, base Hash) (Hash, []Hash, error) {
				if attempts++; attempts == 1 {
					// git moves main after we read it.
					git(t, dir, "update-ref", "refs/heads/main", moved.Commit.String())
					before = dirState(t, dir)
				}
				tree, err := s.writeTree(ob, base, b, b.root, "", false)
				return tree, []Hash{parent}, err
			}
			res, err := s.commitLoopWith("refs/heads/main", CommitOptions{Branch: "main"}, ZeroHash,
				NewMessage("bulk", "materialize", "camelot"), b.ob, build)
			b.Close()
			s.WaitBackground()
			switch {
			case tc.retries == 1:
				var se *StaleError
				if !errors.As(err, &se) {
					t.Fatalf("got %v, want a *StaleError", err)
				}
				sameState(t, before, dirState(t, dir))
				return
			case err != nil || res.Parent != moved.Commit || res.Empty != tc.same:
				t.Fatalf("got %+v, %v; want a rebase onto %s (empty: %v)", res, err, moved.Commit, tc.same)
			}
			want := 3002
			if tc.same {
				want = 3001
			}
			if ids := allIDs(t, s, "main"); len(ids) != want {
				t.Fatalf("%d objects on main, want %d", len(ids), want)
			}
			fsckClean(t, dir)
		})
	}
}
