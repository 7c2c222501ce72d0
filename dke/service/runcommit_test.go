// One commit per run and per compile (DL-0239): what each call adds to
// the lorestore's history, and a run that another writer races.

package service

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/deloreis/deloreis/lorestore"
)

// commitsSince returns the summaries of the commits after head, newest
// first, failing when head is not in the branch's history.
func (f *fixture) commitsSince(head string) []string {
	f.t.Helper()
	es, err := f.ls.Log(lorestore.LogOptions{})
	if err != nil {
		f.t.Fatal(err)
	}
	var out []string
	for _, e := range es {
		if e.Commit.String() == head {
			return out
		}
		out = append(out, e.Message.Summary)
	}
	f.t.Fatalf("commit %s is not in the history", head)
	return nil
}

// manyWrites is a program of n remembers.
func manyWrites(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "remember(S.m%d.room, \"r%d\", \"bulk\")\n", i, i)
	}
	return b.String()
}

func TestRunCommits(t *testing.T) {
	const seed = "remember(S.s1.room, \"kitchen\", \"survey\")\n"
	cases := []struct {
		name, src string
		want      []string // the run's commits
		// check is a program whose transcript must end with after.
		check, after string
	}{
		{"several writes", "remember(S.a.room, \"x\", \"s\")\nupdate(S.a.room, \"y\", \"s\")\nremember(S.b.room, \"z\", \"s\")\n",
			[]string{"dke run: 3 claims written, 0 removed"}, "print(current(S.a.room).value, current(S.b.room).value)\n", "print: y z\n"},
		{"reads see the run's writes", "remember(S.a.room, \"x\", \"s\")\nprint(current(S.a.room).value)\nforget(S.s1.room)\nprint(current(S.s1.room).found)\n",
			[]string{"dke run: 1 claim written, 1 removed"}, "print(current(S.a.room).value, current(S.s1.room).found)\n", "print: x False\n"},
		{"failed run keeps its earlier writes", "remember(S.a.room, \"x\", \"s\")\nremember(S.b.room, \"z\", \"s\")\nx = current(S.s9.room).value\nremember(S.c.room, \"never\", \"s\")\n",
			[]string{"dke run: 2 claims written, 0 removed"}, "print(current(S.b.room).value, current(S.c.room).found)\n", "print: z False\n"},
		{"rolled-back branch", "branch:\n    update(S.s1.room, \"hall\", \"x\")\n    rollback\n",
			nil, "print(current(S.s1.room).value)\n", "print: kitchen\n"},
		{"committed and rolled-back branches", "branch:\n    update(S.s1.room, \"hall\", \"x\")\nbranch:\n    update(S.s2.room, \"attic\", \"x\")\n    rollback\nremember(S.s3.room, \"cellar\", \"x\")\n",
			[]string{"dke run: 2 claims written, 0 removed"}, "print(current(S.s1.room).value, current(S.s2.room).found, current(S.s3.room).value)\n", "print: hall False cellar\n"},
		{"idempotent remember", seed, nil, "print(current(S.s1.room).value)\n", "print: kitchen\n"},
		{"a write the run forgets again", "remember(S.a.room, \"x\", \"s\")\nforget(S.a.room)\n",
			nil, "print(current(S.a.room).found)\n", "print: False\n"},
		{"a thousand writes", manyWrites(1000),
			[]string{"dke run: 1000 claims written, 0 removed"}, "print(current(S.m999.room).value, current(S.m0.room).value)\n", "print: r999 r0\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t)
			bg := context.Background()
			f.mustOK(bg, "run", map[string]any{"source": seed})
			h := f.head()
			f.call(bg, "run", map[string]any{"source": c.src})
			if got := f.commitsSince(h); strings.Join(got, "|") != strings.Join(c.want, "|") {
				t.Errorf("commits %q, want %q", got, c.want)
			}
			if got := f.mustOK(bg, "run", map[string]any{"source": c.check}); !strings.HasSuffix(got, c.after) {
				t.Errorf("after the run: %q, want the suffix %q", got, c.after)
			}
		})
	}
}

func TestCompileCommits(t *testing.T) {
	cases := []struct {
		name, src string
		// files is what git shows the compile's commit adding.
		files int
		after string
	}{
		{"declarations only", "def f():\n    print(\"x\")\n", 2, "print: False False\n"},
		{"body writes", "remember(S.a.room, \"x\", \"s\")\nremember(S.b.room, \"y\", \"s\")\n", 4, "print: True True\n"},
		{"failing body keeps its earlier writes", "remember(S.a.room, \"x\", \"s\")\nx = current(S.s9.room).value\nremember(S.b.room, \"y\", \"s\")\n", 3, "print: True False\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t)
			bg := context.Background()
			h := f.head()
			f.mustOK(bg, "compile", map[string]any{"name": "m", "source": c.src})
			if got := f.commitsSince(h); len(got) != 1 || got[0] != "dke compile m" {
				t.Fatalf("commits %q, want one \"dke compile m\"", got)
			}
			out, err := exec.Command("git", "-C", f.dir, "show", "--format=", "--name-status", "main").Output()
			if err != nil {
				t.Fatal(err)
			}
			// The header, the module, and each claim.
			added := 0
			for _, l := range strings.Split(string(out), "\n") {
				if strings.HasPrefix(l, "A\t") {
					added++
				}
			}
			if lines := string(out); added != c.files || !strings.Contains(lines, "dke/default/modules/m.json") {
				t.Errorf("git show of the compile:\n%s", lines)
			}
			if got := f.mustOK(bg, "run", map[string]any{"source": "print(current(S.a.room).found, current(S.b.room).found)\n"}); !strings.HasSuffix(got, c.after) {
				t.Errorf("after the compile: %q, want the suffix %q", got, c.after)
			}
		})
	}
}

// TestRunRace has another writer commit to the same store between a
// run's end and its commit: both sides' writes stand, in two commits.
func TestRunRace(t *testing.T) {
	f := newFixture(t)
	bg := context.Background()
	f.mustOK(bg, "run", map[string]any{"source": "remember(S.shared.room, \"a\", \"s\")\nremember(S.kept.room, \"k\", \"s\")\n"})
	other, err := New(Config{Store: f.ls, Authority: "other"})
	if err != nil {
		t.Fatal(err)
	}
	attempts := 0
	f.svc.beforeRunCommit = func(attempt int) {
		attempts++
		if attempt == 0 {
			r, err := other.Run(bg, &RunParams{Source: "remember(S.theirs.room, \"t\", \"o\")\nforget(S.shared.room)\n"})
			if err != nil || r.Status != "ok" {
				t.Fatalf("the other writer: %v %+v", err, r.Outcome)
			}
		}
	}
	h := f.head()
	f.mustOK(bg, "run", map[string]any{"source": "remember(S.mine.room, \"m\", \"s\")\nforget(S.shared.room)\n"})
	f.svc.beforeRunCommit = nil
	if attempts != 2 {
		t.Errorf("%d commit attempts, want 2 (one lost race)", attempts)
	}
	want := []string{"dke run: 1 claim written, 1 removed", "dke run: 1 claim written, 1 removed"}
	if got := f.commitsSince(h); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("commits %q, want %q", got, want)
	}
	got := f.mustOK(bg, "run", map[string]any{"source": "print(current(S.mine.room).value, current(S.theirs.room).value, current(S.kept.room).value, current(S.shared.room).found)\n"})
	if !strings.HasSuffix(got, "print: m t k False\n") {
		t.Errorf("after the race: %q", got)
	}
	if out, err := exec.Command("git", "-C", f.dir, "fsck", "--strict").CombinedOutput(); err != nil {
		t.Fatalf("git fsck --strict: %v\n%s", err, out)
	}
}

// TestRunRaceBounded has another writer win every attempt: the run gives
// up with a conflict after runRetries, and the other writer's commits all
// stand.
func TestRunRaceBounded(t *testing.T) {
	f := newFixture(t)
	bg := context.Background()
	other, err := New(Config{Store: f.ls, Authority: "other"})
	if err != nil {
		t.Fatal(err)
	}
	f.svc.beforeRunCommit = func(attempt int) {
		src := fmt.Sprintf("remember(S.o%d.room, \"t\", \"o\")\n", attempt)
		if _, err := other.Run(bg, &RunParams{Source: src}); err != nil {
			t.Fatal(err)
		}
	}
	h := f.head()
	resp, _ := f.call(bg, "run", map[string]any{"source": "remember(S.mine.room, \"m\", \"s\")\n"})
	f.svc.beforeRunCommit = nil
	if resp.OK() || resp.Err.Code != CodeConflict {
		t.Fatalf("a run that always loses: %+v", resp)
	}
	if got := f.commitsSince(h); len(got) != runRetries {
		t.Errorf("%d commits, want the other writer's %d", len(got), runRetries)
	}
	got := f.mustOK(bg, "run", map[string]any{"source": fmt.Sprintf("print(current(S.o0.room).found, current(S.o%d.room).found)\n", runRetries-1)})
	if !strings.HasSuffix(got, "print: True True\n") {
		t.Errorf("the other writer's claims: %q", got)
	}
}

// TestRunsConcurrent runs two services over one lorestore at once, each
// writing its own claims: none is lost.
func TestRunsConcurrent(t *testing.T) {
	f := newFixture(t)
	bg := context.Background()
	svcs := []*Service{f.svc}
	second, err := New(Config{Store: f.ls, Authority: "second"})
	if err != nil {
		t.Fatal(err)
	}
	svcs = append(svcs, second)
	const runs = 10
	var wg sync.WaitGroup
	errs := make(chan error, 2*runs)
	for w, svc := range svcs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range runs {
				src := fmt.Sprintf("remember(S.w%d_%d.room, \"a\", \"s\")\nremember(S.w%d_%d.size, 1, \"s\")\n", w, i, w, i)
				r, err := svc.Run(bg, &RunParams{Source: src})
				if err == nil && r.Status != "ok" {
					err = fmt.Errorf("run %s: %s", src, r.Text)
				}
				if err != nil {
					errs <- err
				}
				time.Sleep(time.Millisecond)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	var b strings.Builder
	for w := range svcs {
		for i := range runs {
			fmt.Fprintf(&b, "print(current(S.w%d_%d.room).found, current(S.w%d_%d.size).found)\n", w, i, w, i)
		}
	}
	got := f.mustOK(bg, "run", map[string]any{"source": b.String()})
	if n := strings.Count(got, "print: True True\n"); n != 2*runs {
		t.Errorf("%d of %d runs' claims found:\n%s", n, 2*runs, got)
	}
}

// TestRecompileIdentical: compiling the same module again, its body's
// remember idempotent, changes nothing and commits nothing.
func TestRecompileIdentical(t *testing.T) {
	f := newFixture(t)
	bg := context.Background()
	args := map[string]any{"name": "m", "source": "remember(S.a.room, \"x\", \"s\")\n"}
	f.mustOK(bg, "compile", args)
	h := f.head()
	f.mustOK(bg, "compile", args)
	if got := f.commitsSince(h); len(got) != 0 {
		t.Errorf("an identical recompile committed %q", got)
	}
	f.mustOK(bg, "compile", map[string]any{"name": "m"})
	if got := f.commitsSince(h); len(got) != 0 {
		t.Errorf("a reload that wrote nothing committed %q", got)
	}
}
