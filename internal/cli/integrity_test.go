// Integrity on the command line: merge, merge --ff, pull and clone refuse
// a branch that real git filled with corrupt content (exit 1, one line
// naming the path and the object, every ref as it was); two stores made
// in the same second do not pull into each other; an unusable pack is
// skipped with a warning and reported by fsck.

package cli

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deloreis/deloreis/internal/testenv"
)

// dl runs one command line in-process and returns stdout, stderr, code.
func dl(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(args, &out, &errb)
	return out.String(), errb.String(), code
}

func dlOK(t *testing.T, args ...string) string {
	t.Helper()
	out, errs, code := dl(t, args...)
	if code != 0 {
		t.Fatalf("deloreis %s: exit %d: %s", strings.Join(args, " "), code, errs)
	}
	return out
}

// realGit runs git with stdin and extra environment; it fails the test on
// a non-zero exit.
func realGit(t *testing.T, stdin string, env []string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t",
		"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
	cmd.Env = append(cmd.Env, env...)
	cmd.Stdin = strings.NewReader(stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("git %s: %v\n%s%s", strings.Join(args, " "), err, stdout.String(), stderr.String())
	}
	return strings.TrimSpace(stdout.String())
}

// localBranches is testenv.Branches without the remote-tracking refs,
// which a fetch moves into quarantine as git's does.
func localBranches(t *testing.T, gitDir string) map[string]string {
	t.Helper()
	st := testenv.Branches(t, gitDir)
	for k := range st {
		if strings.HasPrefix(k, "refs/remotes/") {
			delete(st, k)
		}
	}
	return st
}

// corruptProject makes a project with the grail world on main and a branch
// side whose newest commit real git made with one claim blob rewritten to
// {"broken":true}; it returns the project folder, its store and the path
// of the rewritten file.
func corruptProject(t *testing.T) (string, string, string) {
	t.Helper()
	proj := filepath.Join(t.TempDir(), "p")
	store := filepath.Join(proj, ".lore")
	dlOK(t, "--project", proj, "init", "--scope", "camelot")
	dlOK(t, "import", "../../testdata/dli/grail-base.dli", "--project", proj, "--materialize")
	dlOK(t, "--project", proj, "branch", "side")
	gd := "--git-dir=" + store
	var claim string
	for _, p := range strings.Split(realGit(t, "", nil, gd, "ls-tree", "-r", "--name-only", "side"), "\n") {
		if strings.Contains(p, "/claims/") {
			claim = p
			break
		}
	}
	if claim == "" {
		t.Fatal("the grail world has no claim")
	}
	env := []string{"GIT_INDEX_FILE=" + filepath.Join(t.TempDir(), "index")}
	realGit(t, "", env, gd, "read-tree", "side")
	blob := realGit(t, `{"broken":true}`, env, gd, "hash-object", "-w", "--stdin")
	realGit(t, "", env, gd, "update-index", "--cacheinfo", "100644,"+blob+","+claim)
	tree := realGit(t, "", env, gd, "write-tree")
	commit := realGit(t, "", env, gd, "commit-tree", tree, "-p", "side", "-m", "rewritten by real git")
	realGit(t, "", env, gd, "update-ref", "refs/heads/side", commit)
	return proj, store, claim
}

func wantOneLineRefusal(t *testing.T, errs string, code int, claim string) {
	t.Helper()
	if code != 1 || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, claim) || !strings.Contains(errs, "git object ") {
		t.Fatalf("exit %d, stderr %q; want exit 1 and one line naming %s and its object", code, errs, claim)
	}
}

func TestCorruptBranchIsRefused(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"merge", []string{"merge", "side"}},
		{"merge-ff", []string{"merge", "--ff", "side"}},
		{"merge-into", []string{"merge", "--into", "main", "side~0"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			proj, store, claim := corruptProject(t)
			before := testenv.Branches(t, store)
			_, errs, code := dl(t, append([]string{"--project", proj}, tc.args...)...)
			wantOneLineRefusal(t, errs, code, claim)
			testenv.SameBranches(t, "the refused "+tc.name, before, testenv.Branches(t, store))
			// A rerun refuses again rather than saying up to date.
			_, errs, code = dl(t, append([]string{"--project", proj}, tc.args...)...)
			wantOneLineRefusal(t, errs, code, claim)
		})
	}
	t.Run("pull-and-clone", func(t *testing.T) {
		proj, store, claim := corruptProject(t)
		remote := filepath.Join(t.TempDir(), "remote.git")
		realGit(t, "", nil, "clone", "-q", "--bare", store, remote)
		realGit(t, "", nil, "--git-dir="+remote, "symbolic-ref", "HEAD", "refs/heads/side")
		url := "file://" + remote
		other := filepath.Join(t.TempDir(), "o")
		_, errs, code := dl(t, "clone", url, other)
		wantOneLineRefusal(t, errs, code, claim)
		if _, err := os.Stat(other); !os.IsNotExist(err) {
			t.Fatalf("a refused clone left %s", other)
		}
		dlOK(t, "--project", proj, "remote", "add", "up", url)
		before := localBranches(t, store)
		_, errs, code = dl(t, "--project", proj, "pull", "up", "side")
		wantOneLineRefusal(t, errs, code, claim)
		testenv.SameBranches(t, "the refused pull", before, localBranches(t, store))
		// fetch fills quarantine only.
		dlOK(t, "--project", proj, "fetch", "up")
		testenv.SameBranches(t, "fetch", before, localBranches(t, store))
	})
}

// TestUnrelatedStoresDoNotPull: two stores made back to back (in the same
// second) have different roots, so a pull between them is refused.
func TestUnrelatedStoresDoNotPull(t *testing.T) {
	work := t.TempDir()
	a, b := filepath.Join(work, "a"), filepath.Join(work, "b")
	dlOK(t, "--project", a, "init", "--scope", "camelot")
	dlOK(t, "--project", b, "init", "--scope", "camelot")
	ra := realGit(t, "", nil, "--git-dir="+filepath.Join(a, ".lore"), "rev-parse", "main")
	rb := realGit(t, "", nil, "--git-dir="+filepath.Join(b, ".lore"), "rev-parse", "main")
	if ra == rb {
		t.Fatal("two new stores share their root commit")
	}
	dlOK(t, "--project", a, "remote", "add", "b", filepath.Join(b, ".lore"))
	_, errs, code := dl(t, "--project", a, "pull", "b")
	if code != 1 || !strings.Contains(errs, "unrelated") || strings.Count(errs, "\n") != 1 {
		t.Fatalf("pull of an unrelated store: exit %d, %q", code, errs)
	}
}

// TestUnusablePacks: an empty .idx or .pack beside the good packs leaves
// every command working, with a warning; fsck reports it (exit 1), and
// reports a truncated pack and a garbage ref; a sound store passes (0).
func TestUnusablePacks(t *testing.T) {
	const stray = "pack-0123456789abcdef0123456789abcdef01234567"
	for _, tc := range []struct {
		name     string
		spoil    func(t *testing.T, store string)
		warn     bool
		readable bool
		want     string
	}{
		{"clean", func(*testing.T, string) {}, false, true, ""},
		{"empty-idx", func(t *testing.T, store string) {
			os.WriteFile(filepath.Join(store, "objects", "pack", stray+".idx"), nil, 0o644)
		}, true, true, stray + ".idx"},
		{"empty-pack", func(t *testing.T, store string) {
			idx, _ := filepath.Glob(filepath.Join(store, "objects", "pack", "pack-*.idx"))
			data, _ := os.ReadFile(idx[0])
			os.WriteFile(filepath.Join(store, "objects", "pack", stray+".idx"), data, 0o644)
			os.WriteFile(filepath.Join(store, "objects", "pack", stray+".pack"), nil, 0o644)
		}, true, true, stray + ".pack"},
		{"truncated-pack", func(t *testing.T, store string) {
			packs, _ := filepath.Glob(filepath.Join(store, "objects", "pack", "pack-*.pack"))
			for _, p := range packs {
				data, _ := os.ReadFile(p)
				os.WriteFile(p, data[:len(data)/2], 0o644)
			}
		}, true, false, ".pack"},
		{"garbage-ref", func(t *testing.T, store string) {
			os.WriteFile(filepath.Join(store, "refs", "heads", "junk"), []byte("garbage\n"), 0o644)
		}, false, true, "refs/heads/junk"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			proj := filepath.Join(t.TempDir(), "p")
			store := filepath.Join(proj, ".lore")
			dlOK(t, "--project", proj, "init", "--scope", "camelot")
			dlOK(t, "import", "../../testdata/dli/grail-base.dli", "--project", proj, "--materialize")
			tc.spoil(t, store)
			_, errs, code := dl(t, "--project", proj, "log", "--oneline", "main")
			if (code == 0) != tc.readable || strings.Contains(errs, "warning") != tc.warn {
				t.Fatalf("log: exit %d, stderr %q", code, errs)
			}
			out, errs, code := dl(t, "--project", proj, "fsck")
			if tc.want == "" {
				if code != 0 || out != "" {
					t.Fatalf("fsck of a sound store: exit %d, %q %q", code, out, errs)
				}
				return
			}
			if code != 1 || !strings.Contains(out, tc.want) {
				t.Fatalf("fsck: exit %d, stdout %q, stderr %q; want exit 1 naming %s", code, out, errs, tc.want)
			}
		})
	}
}
