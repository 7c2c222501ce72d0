package wire

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/deloreis/deloreis/internal/testenv"
	"github.com/deloreis/deloreis/lorestore"
	"github.com/go-git/go-git/v5/plumbing/transport"
)

// git runs real git in dir with stdin and returns its stdout.
func git(t *testing.T, dir string, stdin io.Reader, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Stdin = stdin
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir, "GIT_TERMINAL_PROMPT=0",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return stdout.String()
}

// remote makes a bare repository with commits on main and side (HEAD
// names main) and returns its path and the two tips.
func remote(t *testing.T) (dir string, main, side lorestore.Hash) {
	t.Helper()
	base := t.TempDir()
	work := filepath.Join(base, "work")
	git(t, base, nil, "init", "-q", "-b", "main", work)
	os.WriteFile(filepath.Join(work, "f"), []byte("one\n"), 0o644)
	git(t, work, nil, "add", "f")
	git(t, work, nil, "commit", "-q", "-m", "one")
	git(t, work, nil, "checkout", "-q", "-b", "side")
	os.WriteFile(filepath.Join(work, "f"), []byte("two\n"), 0o644)
	git(t, work, nil, "commit", "-q", "-am", "two")
	git(t, work, nil, "checkout", "-q", "main")
	dir = filepath.Join(base, "r.git")
	git(t, base, nil, "clone", "-q", "--bare", work, dir)
	main = lorestore.NewHash(strings.TrimSpace(git(t, dir, nil, "rev-parse", "main")))
	side = lorestore.NewHash(strings.TrimSpace(git(t, dir, nil, "rev-parse", "side")))
	return dir, main, side
}

func dial(t *testing.T, url string, service lorestore.Service) lorestore.RemoteSession {
	t.Helper()
	s, err := Dial(context.Background(), url, service)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// TestAdvertised: both services list the remote's refs; upload-pack says
// which branch HEAD names; an empty repository is ErrEmptyRemote to
// upload-pack and no refs to receive-pack; a HEAD naming a missing branch
// is not advertised.
func TestAdvertised(t *testing.T) {
	dir, main, side := remote(t)
	empty := filepath.Join(t.TempDir(), "empty.git")
	git(t, "/", nil, "init", "-q", "--bare", "-b", "main", empty)
	dangling := filepath.Join(t.TempDir(), "dangling.git")
	git(t, "/", nil, "clone", "-q", "--bare", dir, dangling)
	git(t, dangling, nil, "symbolic-ref", "HEAD", "refs/heads/master")
	full := map[string]lorestore.Hash{"refs/heads/main": main, "refs/heads/side": side}
	tests := []struct {
		name, url  string
		service    lorestore.Service
		refs       map[string]lorestore.Hash
		head       lorestore.Hash
		headBranch string
		err        error
	}{
		{"fetch", "file://" + dir, lorestore.UploadPack, full, main, "main", nil},
		{"fetch by path", dir, lorestore.UploadPack, full, main, "main", nil},
		{"push", "file://" + dir, lorestore.ReceivePack, full, lorestore.ZeroHash, "", nil},
		{"fetch empty", "file://" + empty, lorestore.UploadPack, nil, lorestore.ZeroHash, "", lorestore.ErrEmptyRemote},
		{"push empty", "file://" + empty, lorestore.ReceivePack, map[string]lorestore.Hash{}, lorestore.ZeroHash, "", nil},
		{"dangling head", "file://" + dangling, lorestore.UploadPack, full, lorestore.ZeroHash, "", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			adv, err := dial(t, tc.url, tc.service).Advertised(context.Background())
			if !errors.Is(err, tc.err) {
				t.Fatalf("error %v, want %v", err, tc.err)
			}
			if err != nil {
				return
			}
			if len(adv.Refs) != len(tc.refs) {
				t.Errorf("refs %v, want %v", adv.Refs, tc.refs)
			}
			for name, h := range tc.refs {
				if adv.Refs[name] != h {
					t.Errorf("%s = %s, want %s", name, adv.Refs[name], h)
				}
			}
			if adv.Head != tc.head || adv.HeadBranch != tc.headBranch {
				t.Errorf("HEAD %s (%q), want %s (%q)", adv.Head, adv.HeadBranch, tc.head, tc.headBranch)
			}
		})
	}
}

// TestFetchPack: the pack asked for (quiet or not) is a whole pack git
// indexes, holding the wanted commit; nothing wanted is no pack.
func TestFetchPack(t *testing.T) {
	dir, main, side := remote(t)
	for name, url := range transports(t, dir) {
		t.Run(name, func(t *testing.T) { fetchPack(t, dir, url, main, side) })
	}
}

func fetchPack(t *testing.T, dir, url string, main, side lorestore.Hash) {
	for _, quiet := range []bool{true, false} {
		sess := dial(t, url, lorestore.UploadPack)
		if _, err := sess.Advertised(context.Background()); err != nil {
			t.Fatal(err)
		}
		pack, err := sess.FetchPack(context.Background(), []lorestore.Hash{side}, []lorestore.Hash{main}, quiet)
		if err != nil || pack == nil {
			t.Fatalf("quiet=%v: %v, %v", quiet, pack, err)
		}
		data, err := io.ReadAll(pack)
		pack.Close()
		if err != nil || !bytes.HasPrefix(data, []byte("PACK")) {
			t.Fatalf("quiet=%v: not a pack (%d bytes, %q…): %v", quiet, len(data), data[:min(len(data), 8)], err)
		}
		into := filepath.Join(t.TempDir(), "into.git")
		git(t, "/", nil, "init", "-q", "--bare", into)
		git(t, into, bytes.NewReader(data), "index-pack", "--stdin")
		if got := git(t, into, nil, "cat-file", "-t", side.String()); got != "commit\n" {
			t.Fatalf("quiet=%v: the pack does not hold the wanted commit: %q", quiet, got)
		}
	}
	sess := dial(t, url, lorestore.UploadPack)
	if pack, err := sess.FetchPack(context.Background(), []lorestore.Hash{main}, []lorestore.Hash{main}, true); pack != nil || err != nil {
		t.Fatalf("a fetch of what we have: %v, %v", pack, err)
	}
}

// TestPushPack: a command with its pack moves the remote's ref and the
// report says ok; a command whose old value is stale is refused in the
// report, with an error, and the ref stays.
func TestPushPack(t *testing.T) {
	dir, main, side := remote(t)
	git(t, dir, nil, "update-ref", "-d", "refs/heads/side")
	// The remote may have dropped nothing: side's objects are still there,
	// so the pack carries side's commit alone and its tree and blob.
	pack := func() io.Reader {
		return strings.NewReader(git(t, dir, strings.NewReader(side.String()+"\n^"+main.String()+"\n"), "pack-objects", "--stdout", "--revs", "-q"))
	}
	tests := []struct {
		name     string
		cmd      lorestore.RefCommand
		wantMove bool // and the report says ok; else it gives git's reason
	}{
		{"new branch", lorestore.RefCommand{Ref: "refs/heads/new", New: side}, true},
		{"stale old", lorestore.RefCommand{Ref: "refs/heads/main", Old: side, New: side}, false},
	}
	for name, url := range transports(t, dir) {
		for _, tc := range tests {
			t.Run(name+"/"+tc.name, func(t *testing.T) {
				git(t, dir, nil, "update-ref", "-d", "refs/heads/new")
				before, _ := exec.Command("git", "--git-dir", dir, "rev-parse", "-q", "--verify", tc.cmd.Ref).Output()
				sess := dial(t, url, lorestore.ReceivePack)
				if _, err := sess.Advertised(context.Background()); err != nil {
					t.Fatal(err)
				}
				report, err := sess.PushPack(context.Background(), []lorestore.RefCommand{tc.cmd}, pack())
				if report == nil || report.Unpack != "ok" || len(report.Refs) != 1 || report.Refs[0].Ref != tc.cmd.Ref ||
					(report.Refs[0].Status == "ok") != tc.wantMove || report.Refs[0].Status == "" {
					t.Fatalf("report %+v (%v) for %s", report, err, tc.cmd.Ref)
				}
				if (err == nil) != tc.wantMove || (report.Err() == nil) != tc.wantMove {
					t.Fatalf("error %v, report error %v", err, report.Err())
				}
				after, _ := exec.Command("git", "--git-dir", dir, "rev-parse", "-q", "--verify", tc.cmd.Ref).Output()
				if moved := string(after) != string(before); moved != tc.wantMove {
					t.Fatalf("ref %s moved=%v (%q → %q)", tc.cmd.Ref, moved, before, after)
				}
			})
		}
	}
}

// TestWrongServiceAndBadURL: a session does only its own service, and a
// URL that is not one is refused at Dial.
func TestWrongServiceAndBadURL(t *testing.T) {
	dir, main, _ := remote(t)
	up := dial(t, "file://"+dir, lorestore.UploadPack)
	if _, err := up.PushPack(context.Background(), nil, strings.NewReader("")); !errors.Is(err, errWrongService) {
		t.Errorf("push on an upload-pack session: %v", err)
	}
	rp := dial(t, "file://"+dir, lorestore.ReceivePack)
	if _, err := rp.FetchPack(context.Background(), []lorestore.Hash{main}, nil, true); !errors.Is(err, errWrongService) {
		t.Errorf("fetch on a receive-pack session: %v", err)
	}
	if _, err := Dial(context.Background(), "file://"+dir, "git-upload-archive"); err == nil {
		t.Error("an unknown service was dialled")
	}
	if _, err := Dial(context.Background(), "ht!tp://bad url", lorestore.UploadPack); err == nil {
		t.Error("a malformed URL was dialled")
	}
}

// TestPushReportErr: the report's error names the first refusal.
func TestPushReportErr(t *testing.T) {
	tests := []struct {
		report lorestore.PushReport
		want   string
	}{
		{lorestore.PushReport{Unpack: "ok", Refs: []lorestore.RefStatus{{Ref: "refs/heads/a", Status: "ok"}}}, ""},
		{lorestore.PushReport{Unpack: "index-pack abnormal exit"}, "unpack error: index-pack abnormal exit"},
		{lorestore.PushReport{Unpack: "ok", Refs: []lorestore.RefStatus{{Ref: "refs/heads/a", Status: "ok"}, {Ref: "refs/heads/b", Status: "non-fast-forward"}}},
			"command error on refs/heads/b: non-fast-forward"},
	}
	for _, tc := range tests {
		err := tc.report.Err()
		if got := ""; err != nil {
			got = err.Error()
			if got != tc.want {
				t.Errorf("%+v: %q, want %q", tc.report, got, tc.want)
			}
		} else if tc.want != "" {
			t.Errorf("%+v: no error, want %q", tc.report, tc.want)
		}
	}
}

// TestLocalRepositories: a repository on this machine is reached by a
// plain path as well as a file:// URL, a path that starts with a dash is
// a path to git and not an option, and a folder that is not a repository
// is "repository not found" to both services.
func TestLocalRepositories(t *testing.T) {
	dir, main, _ := remote(t)
	base := filepath.Dir(dir)
	if err := os.Rename(dir, filepath.Join(base, "-dash.git")); err != nil {
		t.Fatal(err)
	}
	t.Chdir(base)
	// Dial makes a relative path absolute; localGit is given it as it is.
	dash, err := dialVia(localGit{dir: "-dash.git"}, lorestore.UploadPack)
	if err != nil {
		t.Fatal(err)
	}
	defer dash.Close()
	sessions := map[string]lorestore.RemoteSession{
		"-dash.git":          dash,
		"./-dash.git":        dial(t, "./-dash.git", lorestore.UploadPack),
		"file://…/-dash.git": dial(t, "file://"+filepath.Join(base, "-dash.git"), lorestore.UploadPack),
	}
	for name, s := range sessions {
		adv, err := s.Advertised(context.Background())
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if adv.Refs["refs/heads/main"] != main {
			t.Errorf("%s: main is %v, want %v", name, adv.Refs["refs/heads/main"], main)
		}
	}
	for _, svc := range []lorestore.Service{lorestore.UploadPack, lorestore.ReceivePack} {
		_, err := dial(t, filepath.Join(base, "none.git"), svc).Advertised(context.Background())
		if !errors.Is(err, transport.ErrRepositoryNotFound) || !strings.Contains(err.Error(), "does not appear to be a git repository") {
			t.Errorf("%s of a missing repository: %v", svc, err)
		}
	}
}

// transports names the URLs that reach the repository at dir: as a local
// repository, and over ssh through a stand-in for ssh (testenv.FakeSSH).
func transports(t *testing.T, dir string) map[string]string {
	testenv.FakeSSH(t)
	return map[string]string{"file": "file://" + dir, "ssh": "ssh://git@example.invalid:2222" + dir}
}

// TestSSHAsGitRunsIt: ssh is run as git runs it (the port, then the host
// with its user, then the remote command with the path quoted for the
// remote shell; GIT_SSH_COMMAND through the shell, else GIT_SSH, else
// ssh), a host that begins with a dash is refused before anything runs,
// and the stand-in's log shows what a real ssh would have been given.
func TestSSHAsGitRunsIt(t *testing.T) {
	tests := []struct {
		url, sshCommand, gitSSH string
		want                    []string
	}{
		{"ssh://kay@camelot:2222/srv/lore.git", "", "", []string{"ssh", "-p", "2222", "kay@camelot", "git-upload-pack '/srv/lore.git'"}},
		{"camelot:lore/it's here!.git", "", "", []string{"ssh", "camelot", `git-upload-pack 'lore/it'\''s here'\!'.git'`}},
		{"ssh://camelot/~/lore.git", "", "", []string{"ssh", "camelot", "git-upload-pack '~/lore.git'"}},
		{"ssh://camelot/lore.git", "ssh -i key", "", []string{"sh", "-c", `ssh -i key "$@"`, "ssh -i key", "camelot", "git-upload-pack '/lore.git'"}},
		{"ssh://camelot/lore.git", "", "/usr/bin/plink", []string{"/usr/bin/plink", "camelot", "git-upload-pack '/lore.git'"}},
	}
	for _, tc := range tests {
		t.Setenv("GIT_SSH_COMMAND", tc.sshCommand)
		t.Setenv("GIT_SSH", tc.gitSSH)
		ep, err := transport.NewEndpoint(tc.url)
		if err != nil {
			t.Fatal(err)
		}
		got, err := sshCommand(ep, "git-upload-pack")
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("%s: %q, %v; want %q", tc.url, got, err, tc.want)
		}
	}
	log := testenv.FakeSSH(t)
	for _, url := range []string{"ssh://-oProxyCommand=touch%20pwned/x.git", "-oProxyCommand=x:y.git"} {
		if s, err := Dial(context.Background(), url, lorestore.UploadPack); err == nil {
			_, err = s.Advertised(context.Background())
			s.Close()
			if err == nil || !strings.Contains(err.Error(), "begins with a dash") {
				t.Errorf("%s: %v", url, err)
			}
		}
	}
	if data, _ := os.ReadFile(log); len(data) != 0 {
		t.Errorf("ssh ran for a host that begins with a dash: %q", data)
	}
	dir, _, _ := remote(t)
	if _, err := dial(t, "ssh://kay@example.invalid:2222"+dir, lorestore.UploadPack).Advertised(context.Background()); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(log)
	if want := "-p\n2222\nkay@example.invalid\ngit-upload-pack '" + dir + "'\n"; string(data) != want {
		t.Errorf("ssh was given %q, want %q", data, want)
	}
	_, err := dial(t, "ssh://example.invalid"+dir+"-none", lorestore.UploadPack).Advertised(context.Background())
	if !errors.Is(err, transport.ErrRepositoryNotFound) || !strings.Contains(err.Error(), "does not appear to be a git repository") {
		t.Errorf("a missing repository over ssh: %v", err)
	}
}
