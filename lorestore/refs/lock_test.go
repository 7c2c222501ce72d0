// This file tests the lock protocol against real git holding a lock, and
// the recovery of locks left by deloreis writers killed mid-update (while
// locks made by anyone else are never removed).

package refs

import (
	"bufio"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
)

// TestGitHoldsLock: while git update-ref --stdin holds refs/heads/main.lock
// in a prepared transaction, Update returns *LockedError and changes
// nothing; after git aborts, Update succeeds.
func TestGitHoldsLock(t *testing.T) {
	dir, s := newRepo(t, Options{LockTimeout: 100 * time.Millisecond})
	a, b, c := commit(t, dir, "a"), commit(t, dir, "b"), commit(t, dir, "c")
	if err := s.Update(main, a, plumbing.ZeroHash); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("git", "--git-dir="+dir, "update-ref", "--stdin")
	cmd.Env = gitEnv()
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	io.WriteString(stdin, "start\nupdate "+main+" "+b.String()+" "+a.String()+"\nprepare\n")
	out := bufio.NewReader(stdout)
	for _, want := range []string{"start: ok", "prepare: ok"} {
		line, err := out.ReadString('\n')
		if strings.TrimSpace(line) != want {
			t.Fatalf("git said %q, %v; want %q", line, err, want)
		}
	}
	lockPath := filepath.Join(dir, main+".lock")
	before := snapshot(t, dir)
	start := time.Now()
	err := s.Update(main, c, a)
	var le *LockedError
	if !errors.As(err, &le) || !errors.Is(err, ErrLocked) || le.LockPath != lockPath || le.Name != main {
		t.Fatalf("Update under git's lock = %#v", err)
	}
	if waited := time.Since(start); waited < 100*time.Millisecond {
		t.Errorf("gave up after %v, before LockTimeout", waited)
	}
	if err := s.Delete(main, a); !errors.Is(err, ErrLocked) {
		t.Fatalf("Delete under git's lock = %v", err)
	}
	if d := diffSnapshots(before, snapshot(t, dir)); d != "" {
		t.Fatalf("changed under git's lock:\n%s", d)
	}
	io.WriteString(stdin, "abort\n")
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	if err := s.Update(main, c, a); err != nil {
		t.Fatalf("Update after git aborted: %v", err)
	}
	if got := git(t, dir, "rev-parse", main); got != c.String() {
		t.Errorf("git sees %s", got)
	}
	checkClean(t, dir)
}

// TestWaitsForLock: a lock released within LockTimeout is waited for.
func TestWaitsForLock(t *testing.T) {
	dir, s := newRepo(t, Options{LockTimeout: 5 * time.Second})
	lockPath := filepath.Join(dir, main+".lock")
	if err := os.WriteFile(lockPath, nil, 0o666); err != nil {
		t.Fatal(err)
	}
	go func() {
		time.Sleep(100 * time.Millisecond)
		os.Remove(lockPath)
	}()
	if err := s.Update(main, fakeHash(1), plumbing.ZeroHash); err != nil {
		t.Fatal(err)
	}
}

// TestHandMadeLockNeverRemoved: a lock file made by someone else is never
// removed, with or without a (dead writer's) record naming the same lock.
func TestHandMadeLockNeverRemoved(t *testing.T) {
	for _, stage := range []string{"", "recorded", "token"} {
		t.Run("after-"+stage, func(t *testing.T) {
			dir, s := newRepo(t, Options{LockTimeout: 30 * time.Millisecond})
			a := fakeHash(1)
			if err := s.Update(main, a, plumbing.ZeroHash); err != nil {
				t.Fatal(err)
			}
			if stage != "" {
				// A deloreis writer dies after recording the lock it is
				// about to take, before taking it.
				c := startChild(t, "hang", dir, "REFS_TEST_STAGE="+stage, "REFS_TEST_REF="+main,
					"REFS_TEST_NEW="+fakeHash(2).String(), "REFS_TEST_OLD="+a.String())
				c.line(t)
				c.kill(t)
			}
			// Then git (here: a hand) takes the lock.
			lockPath := filepath.Join(dir, main+".lock")
			if err := os.WriteFile(lockPath, []byte("git's\n"), 0o666); err != nil {
				t.Fatal(err)
			}
			for i := 0; i < 2; i++ {
				if err := s.Update(main, fakeHash(3), a); !errors.Is(err, ErrLocked) {
					t.Fatalf("Update = %v, want ErrLocked", err)
				}
			}
			if data, err := os.ReadFile(lockPath); err != nil || string(data) != "git's\n" {
				t.Fatalf("the hand-made lock was touched: %q, %v", data, err)
			}
			os.Remove(lockPath)
			if err := s.Update(main, fakeHash(3), a); err != nil {
				t.Fatal(err)
			}
			checkClean(t, dir)
		})
	}
}

// TestStaleLockRecovery: a deloreis writer SIGKILLed at each stage of the
// critical section does not block the next writer, in another process.
func TestStaleLockRecovery(t *testing.T) {
	cases := []struct {
		op, stage, suffix string
		want              func(a plumbing.Hash) plumbing.Hash // main afterwards, before our update
	}{
		{"update", "recorded", "", same},
		{"update", "token", "", same},
		{"update", "locked", "", same},
		{"update", "renamed", "", func(plumbing.Hash) plumbing.Hash { return fakeHash(2) }},
		{"delete", "locked", "main.lock", same},
		{"delete", "locked", "packed-refs.lock", same},
		{"delete", "renamed", "packed-refs", same}, // packed entry gone, loose still there
		{"sethead", "locked", "", same},
	}
	for _, tc := range cases {
		t.Run(tc.op+"-"+tc.stage+"-"+tc.suffix, func(t *testing.T) {
			dir, s := newRepo(t, Options{LockTimeout: 200 * time.Millisecond})
			a := commit(t, dir, "a")
			if err := s.Update(main, a, plumbing.ZeroHash); err != nil {
				t.Fatal(err)
			}
			git(t, dir, "pack-refs", "--all")
			if err := s.Update(main, a, a); err != nil { // loose and packed
				t.Fatal(err)
			}
			c := startChild(t, "hang", dir, "REFS_TEST_STAGE="+tc.stage, "REFS_TEST_SUFFIX="+tc.suffix, "REFS_TEST_OP="+tc.op,
				"REFS_TEST_REF="+main, "REFS_TEST_NEW="+fakeHash(2).String(), "REFS_TEST_OLD="+a.String())
			line := c.line(t)
			if tc.stage == "locked" {
				// The child holds its lock(s): we must time out on the
				// sidecar flock, not touch anything.
				if _, err := os.Stat(strings.TrimPrefix(line, "locked ")); err != nil {
					t.Fatalf("child reported %q: %v", line, err)
				}
				err := s.Update(main, fakeHash(3), a)
				var le *LockedError
				if !errors.As(err, &le) || le.LockPath != filepath.Join(dir, sidecarName) {
					t.Fatalf("Update while a live deloreis writer holds the lock = %v", err)
				}
			}
			c.kill(t)
			want := tc.want(a)
			if got, err := s.Read(main); err != nil || got != want {
				t.Fatalf("after the kill main = %v, %v; want %v", got, err, want)
			}
			if err := s.Update(main, fakeHash(3), want); err != nil {
				t.Fatalf("Update after the kill: %v", err)
			}
			if err := s.Delete(main, fakeHash(3)); err != nil {
				t.Fatalf("Delete after the kill: %v", err)
			}
			checkClean(t, dir)
			if out, err := gitErr(dir, "", "update-ref", main, a.String(), ""); err != nil || checkGitFsck(dir) != nil {
				t.Fatalf("git cannot create main afterwards: %v %s", err, out)
			}
		})
	}
}

func checkGitFsck(dir string) error {
	_, err := gitErr(dir, "", "fsck", "--no-dangling")
	return err
}

func same(a plumbing.Hash) plumbing.Hash { return a }

// TestRecordIgnoresForeignLines: a record line that names anything other
// than a token and a ref lock is not acted on.
func TestRecordIgnoresForeignLines(t *testing.T) {
	dir, s := newRepo(t, Options{})
	victim := filepath.Join(dir, "config")
	before, _ := os.ReadFile(victim)
	record := "config config\n" + tokenPrefix + "x ../config\n" + tokenPrefix + "x config\n" +
		"config refs/heads/main.lock\n" + "../" + tokenPrefix + "y refs/heads/main.lock\n"
	os.WriteFile(filepath.Join(dir, sidecarName), []byte(record), 0o666)
	os.WriteFile(filepath.Join(dir, tokenPrefix+"x"), nil, 0o666)
	if err := s.Update(main, fakeHash(1), plumbing.ZeroHash); err != nil {
		t.Fatal(err)
	}
	if after, err := os.ReadFile(victim); err != nil || string(after) != string(before) {
		t.Fatalf("config touched: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, tokenPrefix+"x")); err != nil {
		t.Errorf("an unrecorded token was removed: %v", err)
	}
}

// TestGoroutineCAS: goroutines of one process incrementing one counter
// with CAS lose no update (run with -race).
func TestGoroutineCAS(t *testing.T) {
	dir, _ := newRepo(t, Options{})
	const workers, each = 4, 30
	s0, _ := Open(dir, Options{LockTimeout: 20 * time.Second})
	defer s0.Close()
	if err := s0.Update("refs/heads/counter", counterHash(0), plumbing.ZeroHash); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, _ := Open(dir, Options{LockTimeout: 20 * time.Second}) // a Store each, or shared: both must work
			defer s.Close()
			if w%2 == 0 {
				s = s0
			}
			for done := 0; done < each; {
				cur, err := s.Read("refs/heads/counter")
				if err != nil {
					errs <- err
					return
				}
				v, _ := counterValue(cur)
				switch err := s.Update("refs/heads/counter", counterHash(v+1), cur); {
				case err == nil:
					done++
				case !errors.Is(err, ErrStale):
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	cur, _ := s0.Read("refs/heads/counter")
	if v, _ := counterValue(cur); v != workers*each {
		t.Fatalf("counter = %d, want %d", v, workers*each)
	}
	checkClean(t, dir)
}
