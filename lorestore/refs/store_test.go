// This file tests the compare-and-swap semantics of Update and Delete, and
// that real git agrees with what the Store reads and writes, loose and
// packed.

package refs

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
)

const main = "refs/heads/main"

// casRepo is a fresh bare repository with three real commits.
type casRepo struct {
	dir     string
	s       *Store
	a, b, c plumbing.Hash
}

func newCASRepo(t *testing.T) *casRepo {
	dir, s := newRepo(t, Options{LockTimeout: 50 * time.Millisecond})
	return &casRepo{dir: dir, s: s, a: commit(t, dir, "a"), b: commit(t, dir, "b"), c: commit(t, dir, "c")}
}

// clone copies the repository for a subtest (git is slow to start on a
// loaded machine, so the table copies one template).
func (tpl *casRepo) clone(t *testing.T) *casRepo {
	dir := filepath.Join(t.TempDir(), "repo.git")
	err := filepath.WalkDir(tpl.dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(tpl.dir, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dir, rel), 0o777)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dir, rel), data, 0o666)
	})
	if err != nil {
		t.Fatal(err)
	}
	s, err := Open(dir, tpl.s.opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return &casRepo{dir: dir, s: s, a: tpl.a, b: tpl.b, c: tpl.c}
}

// casCase is one row of the compare-and-swap table.
type casCase struct {
	name  string
	setup []string // real git steps, see applySetup
	op    func(r *casRepo) error
	want  error                          // nil, or the sentinel the error must match
	value func(r *casRepo) plumbing.Hash // main afterwards; zero: absent
}

func casCases() []casCase {
	update := func(name string, n, o func(r *casRepo) plumbing.Hash) func(r *casRepo) error {
		return func(r *casRepo) error { return r.s.Update(name, n(r), o(r)) }
	}
	del := func(name string, o func(r *casRepo) plumbing.Hash) func(r *casRepo) error {
		return func(r *casRepo) error { return r.s.Delete(name, o(r)) }
	}
	zero := func(*casRepo) plumbing.Hash { return plumbing.ZeroHash }
	a := func(r *casRepo) plumbing.Hash { return r.a }
	b := func(r *casRepo) plumbing.Hash { return r.b }
	c := func(r *casRepo) plumbing.Hash { return r.c }
	return []casCase{
		{name: "create absent", op: update(main, a, zero), value: a},
		{name: "create present", setup: []string{"main=a"}, op: update(main, b, zero), want: ErrStale, value: a},
		{name: "update right old", setup: []string{"main=a"}, op: update(main, b, a), value: b},
		{name: "update wrong old", setup: []string{"main=a"}, op: update(main, c, b), want: ErrStale, value: a},
		{name: "update absent", op: update(main, b, a), want: ErrStale, value: zero},
		{name: "update same value", setup: []string{"main=a"}, op: update(main, a, a), value: a},
		{name: "delete right", setup: []string{"main=a"}, op: del(main, a), value: zero},
		{name: "delete wrong", setup: []string{"main=a"}, op: del(main, b), want: ErrStale, value: a},
		{name: "delete absent", op: del(main, a), want: ErrStale, value: zero},
		{name: "packed create present", setup: []string{"main=a", "pack"}, op: update(main, b, zero), want: ErrStale, value: a},
		{name: "packed update right", setup: []string{"main=a", "pack"}, op: update(main, b, a), value: b},
		{name: "packed update wrong", setup: []string{"main=a", "pack"}, op: update(main, c, b), want: ErrStale, value: a},
		{name: "packed delete right", setup: []string{"main=a", "pack"}, op: del(main, a), value: zero},
		{name: "packed delete wrong", setup: []string{"main=a", "pack"}, op: del(main, b), want: ErrStale, value: a},
		{name: "loose over packed delete", setup: []string{"main=a", "pack", "main=b"}, op: del(main, b), value: zero},
		{name: "loose over packed stale", setup: []string{"main=a", "pack", "main=b"}, op: del(main, a), want: ErrStale, value: b},
		{name: "zero new", setup: []string{"main=a"}, op: update(main, zero, a), want: ErrZeroHash, value: a},
		{name: "zero old delete", setup: []string{"main=a"}, op: del(main, zero), want: ErrZeroHash, value: a},
		{name: "symbolic update", setup: []string{"main=a", "sym"}, op: update("refs/heads/sym", b, a), want: ErrSymbolic, value: a},
		{name: "symbolic delete", setup: []string{"main=a", "sym"}, op: del("refs/heads/sym", a), want: ErrSymbolic, value: a},
		{name: "escape ../x", setup: []string{"main=a"}, op: update("../x", b, zero), want: ErrInvalidName, value: a},
		{name: "escape config", setup: []string{"main=a"}, op: update("refs/heads/../../config", b, zero), want: ErrInvalidName, value: a},
		{name: "lock name", setup: []string{"main=a"}, op: update("refs/heads/main.lock", b, zero), want: ErrInvalidName, value: a},
		{name: "dotdot", setup: []string{"main=a"}, op: del("refs/heads/a..b", a), want: ErrInvalidName, value: a},
		{name: "nul", setup: []string{"main=a"}, op: update("refs/heads/m\x00", b, zero), want: ErrInvalidName, value: a},
		{name: "newline", setup: []string{"main=a"}, op: update("refs/heads/m\n", b, zero), want: ErrInvalidName, value: a},
		{name: "del char", setup: []string{"main=a"}, op: del("refs/heads/m\x7f", a), want: ErrInvalidName, value: a},
		{name: "under a file", setup: []string{"main=a"}, op: update(main+"/x", b, zero), want: ErrConflict, value: a},
		{name: "under a packed ref", setup: []string{"main=a", "pack"}, op: update(main+"/x", b, zero), want: ErrConflict, value: a},
		{name: "over a dir", setup: []string{"main/x=a"}, op: update(main, b, zero), want: ErrConflict, value: zero},
		{name: "over a packed dir", setup: []string{"main/x=a", "pack"}, op: update(main, b, zero), want: ErrConflict, value: zero},
		{name: "over an empty dir", setup: []string{"mkdir main/x/y"}, op: update(main, b, zero), value: b},
		{name: "deep create", op: update("refs/deloreis/a/b/c/d", a, zero), value: zero},
	}
}

// applySetup runs real git: "main=a" points refs/heads/main at commit a;
// "pack" packs all refs; "sym" makes refs/heads/sym -> main; "mkdir p"
// makes the directory refs/heads/p.
func applySetup(t *testing.T, r *casRepo, steps []string) {
	for _, step := range steps {
		switch {
		case step == "pack":
			git(t, r.dir, "pack-refs", "--all")
		case step == "sym":
			git(t, r.dir, "symbolic-ref", "refs/heads/sym", main)
		case strings.HasPrefix(step, "mkdir "):
			os.MkdirAll(filepath.Join(r.dir, "refs/heads", step[6:]), 0o777)
		default:
			name, v, _ := strings.Cut(step, "=")
			h := map[string]plumbing.Hash{"a": r.a, "b": r.b, "c": r.c}[v]
			git(t, r.dir, "update-ref", "refs/heads/"+name, h.String())
		}
	}
}

// TestCASTable: each row's outcome, the value afterwards as we and git see
// it, and for failures that every ref file and packed-refs is unchanged.
func TestCASTable(t *testing.T) {
	tpl := newCASRepo(t)
	for _, tc := range casCases() {
		t.Run(tc.name, func(t *testing.T) {
			r := tpl.clone(t)
			applySetup(t, r, tc.setup)
			before := snapshot(t, r.dir)
			err := tc.op(r)
			if tc.want == nil && err != nil || tc.want != nil && !errors.Is(err, tc.want) {
				t.Fatalf("got %v, want %v", err, tc.want)
			}
			if err != nil {
				if !strings.HasPrefix(err.Error(), "refs: ") {
					t.Errorf("message %q lacks the prefix", err)
				}
				if d := diffSnapshots(before, snapshot(t, r.dir)); d != "" {
					t.Errorf("failed call changed files:\n%s", d)
				}
			}
			checkClean(t, r.dir)
			got, rerr := r.s.Read(main)
			if want := tc.value(r); want.IsZero() && !errors.Is(rerr, ErrNotFound) || !want.IsZero() && got != want {
				t.Errorf("afterwards main = %v, %v; want %v", got, rerr, want)
			}
			out, gerr := gitErr(r.dir, "", "rev-parse", "-q", "--verify", main)
			if (gerr != nil) != (rerr != nil) || rerr == nil && out != got.String() {
				t.Errorf("git rev-parse says %q (%v), we say %v (%v)", out, gerr, got, rerr)
			}
		})
	}
}

func TestStaleErrorFields(t *testing.T) {
	r := newCASRepo(t)
	if err := r.s.Update(main, r.a, plumbing.ZeroHash); err != nil {
		t.Fatal(err)
	}
	err := r.s.Update(main, r.c, r.b)
	var se *StaleError
	if !errors.As(err, &se) || se.Name != main || se.Expected != r.b || se.Actual != r.a {
		t.Fatalf("got %#v", err)
	}
	err = r.s.Delete("refs/heads/none", r.a)
	if !errors.As(err, &se) || !se.Actual.IsZero() || se.Expected != r.a {
		t.Fatalf("got %#v", err)
	}
	if !strings.Contains(err.Error(), "no ref") {
		t.Errorf("message %q", err)
	}
}

// gitRefs returns git for-each-ref's view as "<hash> <name>" lines.
func gitRefs(t *testing.T, dir string) string {
	return git(t, dir, "for-each-ref", "--format=%(objectname) %(refname)")
}

func ourRefs(t *testing.T, s *Store, prefix string) string {
	t.Helper()
	refs, err := s.List(prefix)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, r := range refs {
		lines = append(lines, r.Hash.String()+" "+r.Name)
	}
	return strings.Join(lines, "\n")
}

// TestGitAgrees: after our updates git rev-parse, for-each-ref,
// symbolic-ref and fsck agree with us.
func TestGitAgrees(t *testing.T) {
	dir, s := newRepo(t, Options{})
	var hs []plumbing.Hash
	for i := 0; i < 4; i++ {
		hs = append(hs, commit(t, dir, fmt.Sprint("c", i)))
	}
	names := []string{main, "refs/heads/feature/x", "refs/tags/v1", "refs/deloreis/lore/a", "refs/heads/z"}
	for i, n := range names {
		if err := s.Update(n, hs[i%4], plumbing.ZeroHash); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Update(main, hs[3], hs[0]); err != nil {
		t.Fatal(err)
	}
	if got := git(t, dir, "rev-parse", main); got != hs[3].String() {
		t.Errorf("git rev-parse main = %s", got)
	}
	if g, o := gitRefs(t, dir), ourRefs(t, s, ""); g != o {
		t.Errorf("for-each-ref:\n%s\nList:\n%s", g, o)
	}
	if err := s.SetHead(main); err != nil {
		t.Fatal(err)
	}
	if got := git(t, dir, "symbolic-ref", "HEAD"); got != main {
		t.Errorf("git symbolic-ref HEAD = %s", got)
	}
	git(t, dir, "fsck", "--strict", "--no-dangling")
	checkClean(t, dir)
}

// TestGitAgreesPacked: after git pack-refs --all (with annotated tags, so
// that packed-refs has peel lines) Read, List, Update and Delete work on
// packed refs, Delete rewrites packed-refs as git would, and git agrees.
func TestGitAgreesPacked(t *testing.T) {
	dir, s := newRepo(t, Options{})
	var hs []plumbing.Hash
	for i := 0; i < 4; i++ {
		hs = append(hs, commit(t, dir, fmt.Sprint("c", i)))
	}
	for name, h := range map[string]plumbing.Hash{main: hs[3], "refs/heads/feature/x": hs[1],
		"refs/tags/v1": hs[2], "refs/deloreis/lore/a": hs[3], "refs/heads/z": hs[0]} {
		git(t, dir, "update-ref", name, h.String())
	}
	git(t, dir, "tag", "-a", "-m", "t", "v2", hs[1].String())
	git(t, dir, "tag", "-a", "-m", "t", "v3", hs[2].String())
	git(t, dir, "pack-refs", "--all")
	if _, err := os.Stat(filepath.Join(dir, main)); !os.IsNotExist(err) {
		t.Fatalf("main still loose after pack-refs: %v", err)
	}
	packed, _ := os.ReadFile(filepath.Join(dir, "packed-refs"))
	if !strings.Contains(string(packed), "\n^") {
		t.Fatalf("no peel line in packed-refs:\n%s", packed)
	}
	if g, o := gitRefs(t, dir), ourRefs(t, s, ""); g != o {
		t.Errorf("packed: for-each-ref:\n%s\nList:\n%s", g, o)
	}
	if h, err := s.Read("refs/heads/feature/x"); err != nil || h != hs[1] {
		t.Errorf("Read packed = %v, %v", h, err)
	}
	if err := s.Update("refs/heads/feature/x", hs[2], hs[1]); err != nil {
		t.Fatal(err)
	}
	v2 := plumbing.NewHash(git(t, dir, "rev-parse", "refs/tags/v2"))
	for _, del := range []struct {
		name string
		h    plumbing.Hash
	}{{"refs/tags/v2", v2}, {"refs/heads/z", hs[0]}, {"refs/heads/feature/x", hs[2]}} {
		if err := s.Delete(del.name, del.h); err != nil {
			t.Fatalf("delete %s: %v", del.name, err)
		}
		if _, err := gitErr(dir, "", "rev-parse", "-q", "--verify", del.name); err == nil {
			t.Errorf("git still sees %s", del.name)
		}
	}
	packed2, _ := os.ReadFile(filepath.Join(dir, "packed-refs"))
	want := dropPacked(string(packed), "refs/tags/v2", "refs/heads/z", "refs/heads/feature/x")
	if string(packed2) != want {
		t.Errorf("packed-refs after deletes:\n%s\nwant:\n%s", packed2, want)
	}
	if got := git(t, dir, "rev-parse", "refs/tags/v3^{}"); got != hs[2].String() {
		t.Errorf("v3 peels to %s", got)
	}
	if g, o := gitRefs(t, dir), ourRefs(t, s, ""); g != o {
		t.Errorf("after deletes: for-each-ref:\n%s\nList:\n%s", g, o)
	}
	if g, o := git(t, dir, "for-each-ref", "--format=%(objectname) %(refname)", "refs/heads/"), ourRefs(t, s, "refs/heads/"); g != o {
		t.Errorf("refs/heads/: for-each-ref:\n%s\nList:\n%s", g, o)
	}
	git(t, dir, "fsck", "--strict", "--no-dangling")
	checkClean(t, dir)
	// Git keeps working on what we left: a pack, update and delete by git.
	git(t, dir, "pack-refs", "--all")
	git(t, dir, "update-ref", "-d", main, hs[3].String())
	if _, err := s.Read(main); !errors.Is(err, ErrNotFound) {
		t.Errorf("main after git delete: %v", err)
	}
}

// dropPacked removes the named entries and their peel lines from a
// packed-refs text, independently of the package's own code.
func dropPacked(text string, names ...string) string {
	var out []string
	skipping := false
	for _, line := range strings.SplitAfter(text, "\n") {
		if strings.HasPrefix(line, "^") && skipping {
			continue
		}
		skipping = false
		for _, n := range names {
			if strings.HasSuffix(line, " "+n+"\n") {
				skipping = true
			}
		}
		if !skipping {
			out = append(out, line)
		}
	}
	return strings.Join(out, "")
}

func TestListPrefixAndSymbolic(t *testing.T) {
	dir, s := newRepo(t, Options{})
	a, b := commit(t, dir, "a"), commit(t, dir, "b")
	git(t, dir, "update-ref", "refs/heads/ma", a.String())
	git(t, dir, "update-ref", "refs/heads/main", b.String())
	git(t, dir, "update-ref", "refs/heads/other", a.String())
	git(t, dir, "update-ref", "refs/remotes/origin/main", b.String())
	git(t, dir, "symbolic-ref", "refs/remotes/origin/HEAD", "refs/remotes/origin/main")
	git(t, dir, "symbolic-ref", "refs/heads/dangling", "refs/heads/nowhere")
	if g, o := git(t, dir, "for-each-ref", "--format=%(objectname) %(refname)", "refs/remotes/"), ourRefs(t, s, "refs/remotes/"); g != o {
		t.Errorf("for-each-ref:\n%s\nList:\n%s", g, o)
	}
	if h, err := s.Read("refs/remotes/origin/HEAD"); err != nil || h != b {
		t.Errorf("Read symbolic = %v, %v", h, err)
	}
	if _, err := s.Read("refs/heads/dangling"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Read dangling = %v", err)
	}
	refs, err := s.List("refs/heads/ma")
	if err != nil || len(refs) != 2 || refs[0].Name != "refs/heads/ma" || refs[1].Name != "refs/heads/main" {
		t.Errorf("List(refs/heads/ma) = %v, %v", refs, err)
	}
	for _, bad := range []string{"refs/../", "heads/", "refs/heads/../../"} {
		if _, err := s.List(bad); !errors.Is(err, ErrInvalidName) {
			t.Errorf("List(%q) = %v", bad, err)
		}
	}
	if refs, err := s.List("refs/none/"); err != nil || len(refs) != 0 {
		t.Errorf("List(refs/none/) = %v, %v", refs, err)
	}
}

func TestHead(t *testing.T) {
	dir, s := newRepo(t, Options{})
	if got, err := s.Head(); err != nil || got != git(t, dir, "symbolic-ref", "HEAD") {
		t.Errorf("Head() = %q, %v", got, err)
	}
	if err := s.SetHead("refs/heads/lore"); err != nil {
		t.Fatal(err)
	}
	if got := git(t, dir, "symbolic-ref", "HEAD"); got != "refs/heads/lore" {
		t.Errorf("git symbolic-ref HEAD = %s", got)
	}
	if got, err := s.Head(); err != nil || got != "refs/heads/lore" {
		t.Errorf("Head() = %q, %v", got, err)
	}
	if err := s.SetHead("../config"); !errors.Is(err, ErrInvalidName) {
		t.Errorf("SetHead(bad) = %v", err)
	}
	a := commit(t, dir, "a")
	git(t, dir, "update-ref", "--no-deref", "HEAD", a.String())
	if _, err := s.Head(); !errors.Is(err, ErrDetached) {
		t.Errorf("Head() detached = %v", err)
	}
	checkClean(t, dir)
}

func TestMalformed(t *testing.T) {
	dir, s := newRepo(t, Options{})
	for _, content := range []string{"", "\n", "zz", "0123", strings.Repeat("g", 40) + "\n", strings.Repeat("a", 41) + "\n"} {
		os.WriteFile(filepath.Join(dir, main), []byte(content), 0o666)
		if _, err := s.Read(main); !errors.Is(err, ErrMalformed) {
			t.Errorf("Read of %q = %v", content, err)
		}
		if err := s.Update(main, fakeHash(1), plumbing.ZeroHash); !errors.Is(err, ErrMalformed) {
			t.Errorf("Update over %q = %v", content, err)
		}
	}
	os.WriteFile(filepath.Join(dir, main), []byte(strings.Repeat("a", 40)+" trailing\n"), 0o666)
	if h, err := s.Read(main); err != nil || h.String() != strings.Repeat("a", 40) {
		t.Errorf("Read with trailing text = %v, %v", h, err)
	}
	// A broken loose ref is left out of List, as git leaves it out; Check
	// names it.
	os.WriteFile(filepath.Join(dir, "refs", "heads", "junk"), []byte("garbage\n"), 0o666)
	if rs, err := s.List(""); err != nil || len(rs) != 1 || rs[0].Name != main {
		t.Errorf("List beside a broken ref = %v, %v", rs, err)
	}
	good, bad := s.Check()
	named := 0
	for _, err := range bad {
		if errors.Is(err, ErrMalformed) && strings.Contains(err.Error(), "refs/heads/junk") {
			named++
		}
	}
	if len(good) != 1 || named != 1 {
		t.Errorf("Check = %v, %v", good, bad)
	}
	os.Remove(filepath.Join(dir, "refs", "heads", "junk"))
	os.Remove(filepath.Join(dir, main))
	os.WriteFile(filepath.Join(dir, "packed-refs"), []byte("# pack-refs with: peeled \nnot a line\n"), 0o666)
	if _, err := s.Read(main); !errors.Is(err, ErrMalformed) {
		t.Errorf("Read with bad packed-refs = %v", err)
	}
	if _, err := s.List(""); !errors.Is(err, ErrMalformed) {
		t.Errorf("List with bad packed-refs = %v", err)
	}
	checkClean(t, dir)
}

func TestOpen(t *testing.T) {
	if _, err := Open(filepath.Join(t.TempDir(), "none"), Options{}); err == nil {
		t.Error("Open of a missing directory succeeded")
	}
	f := filepath.Join(t.TempDir(), "file")
	os.WriteFile(f, nil, 0o666)
	if _, err := Open(f, Options{}); err == nil {
		t.Error("Open of a file succeeded")
	}
}
