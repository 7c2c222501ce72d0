// The config reader and writer against real git: what git writes we read
// back value for value, what we write git reads back, a file git refuses
// we refuse, and an edit leaves every key it does not own as it was.

package lorestore

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// awkwardValues are values a URL or a name may hold that need quoting or
// escaping in a config file.
var awkwardValues = []string{
	"file:///srv/lore.git",
	"/path with  two spaces/lore.git",
	" leading and trailing ",
	"semi;colon#hash",
	"only;semicolon",
	`back\slash "quoted"`,
	"tab\there",
	"new\nline",
	"ssh://git@example.com:2222/~user/lore.git",
}

// TestConfigWeWriteGitReads: a section appended by appendSection reads
// back, key for key, through `git config --get`, and through our parser.
func TestConfigWeWriteGitReads(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "config")
	text := "[core]\n\tbare = true"
	for i, v := range awkwardValues {
		text = appendSection(text, "remote", "r"+string(rune('a'+i)), [2]string{"url", v})
	}
	text = appendSection(text, "branch", `odd "sub" \name`, [2]string{"remote", "ra"})
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	cf, err := parseConfig(text)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range awkwardValues {
		name := "r" + string(rune('a'+i))
		got := strings.TrimSuffix(git(t, dir, "config", "--file", file, "--get", "remote."+name+".url"), "\n")
		if got != v {
			t.Errorf("git reads remote.%s.url as %q, we wrote %q", name, got, v)
		}
		if ours := cf.get("remote", name, "url"); ours != v {
			t.Errorf("we read remote.%s.url as %q, we wrote %q", name, ours, v)
		}
	}
	if got := git(t, dir, "config", "--file", file, "--get", `branch.odd "sub" \name.remote`); got != "ra\n" {
		t.Errorf("git reads the escaped subsection's key as %q", got)
	}
}

// TestConfigGitWritesWeRead: keys set by `git config` (quoting and
// escaping as git chooses, several values of one key, the old
// [section.sub] form, comments) read back as git reads them.
func TestConfigGitWritesWeRead(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "config")
	for i, v := range awkwardValues {
		git(t, dir, "config", "--file", file, "--add", "remote.multi.url", v)
		git(t, dir, "config", "--file", file, "remote.r"+string(rune('a'+i))+".url", v)
	}
	git(t, dir, "config", "--file", file, "user.name", "Ann O'Ther ; #1")
	extra := "# a comment\n[Remote.OldStyle]\n\tURL = /old ; trailing comment\n\tflag\n[user]\n\temail = \"a@b\" \\\n  continued\n"
	f, err := os.OpenFile(file, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(extra)
	f.Close()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	cf, err := parseConfig(string(data))
	if err != nil {
		t.Fatal(err)
	}
	if got := cf.all("remote", "multi", "url"); !slices.Equal(got, awkwardValues) {
		t.Errorf("remote.multi.url: got %q, want %q", got, awkwardValues)
	}
	keys := []struct{ section, sub, key, gitKey string }{
		{"user", "", "name", "user.name"},
		{"user", "", "email", "user.email"},
		{"remote", "oldstyle", "url", "remote.oldstyle.url"},
		{"remote", "oldstyle", "flag", "remote.oldstyle.flag"},
	}
	for i := range awkwardValues {
		name := "r" + string(rune('a'+i))
		keys = append(keys, struct{ section, sub, key, gitKey string }{"remote", name, "url", "remote." + name + ".url"})
	}
	for _, k := range keys {
		want := strings.TrimSuffix(git(t, dir, "config", "--file", file, "--get", k.gitKey), "\n")
		if k.key == "flag" {
			want = "" // git prints "true" for a key without a value
		}
		if got := cf.get(k.section, k.sub, k.key); got != want {
			t.Errorf("%s: we read %q, git reads %q", k.gitKey, got, want)
		}
	}
}

// TestConfigRefusesWhatGitRefuses: malformed files are errors for both.
func TestConfigRefusesWhatGitRefuses(t *testing.T) {
	tests := []struct {
		name, text string
		bad        bool
	}{
		{"empty", "", false},
		{"blank section", "[core]\n", false},
		{"key on header line", "[core] bare = true\n", false},
		{"no newline at end", "[core]\n\tbare = true", false},
		{"crlf", "[core]\r\n\tbare = true\r\n", false},
		{"unterminated subsection", "[remote \"x]\n", true},
		{"unterminated quote", "[a]\n\tk = \"abc\n", true},
		{"unknown escape", "[a]\n\tk = a\\qb\n", true},
		{"key outside section", "k = v\n", false},
		{"no section name", "[]\n", true},
		{"key without =", "[a]\n\tk v\n", true},
		{"junk", "[a]\n\t=v\n", true},
	}
	dir := t.TempDir()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			file := filepath.Join(dir, "c")
			if err := os.WriteFile(file, []byte(tc.text), 0o644); err != nil {
				t.Fatal(err)
			}
			_, gerr := gitErr(dir, "config", "--file", file, "--list")
			_, err := parseConfig(tc.text)
			if (gerr != nil) != tc.bad || (err != nil) != tc.bad {
				t.Fatalf("bad=%v: git says %v, we say %v", tc.bad, gerr, err)
			}
		})
	}
}

// TestRemoteConfigWithGit: remotes added and removed by the store are seen
// by `git remote`, remotes git adds are seen by the store, a url.insteadOf
// rule rewrites the URL as git rewrites it, and keys the store does not
// own survive its edits unchanged.
func TestRemoteConfigWithGit(t *testing.T) {
	s, dir := newStore(t)
	git(t, dir, "config", "core.mine", "kept ; as is")
	git(t, dir, "remote", "add", "bygit", "/srv/by git.git")
	git(t, dir, "config", "url.https://mirror.example/.insteadOf", "lore:")
	if err := s.CreateRemote("origin", "file:///srv/origin.git"); err != nil {
		t.Fatal(err)
	}
	if err := s.CreateRemote("short", "lore:team.git"); err != nil {
		t.Fatal(err)
	}
	if err := s.CreateRemote("origin", "/elsewhere"); err == nil {
		t.Fatal("a second remote named origin was added")
	}
	git(t, dir, "config", "branch.main.remote", "short")
	git(t, dir, "config", "branch.main.merge", "refs/heads/main")
	if got, want := git(t, dir, "remote", "-v"), "bygit\t/srv/by git.git (fetch)\nbygit\t/srv/by git.git (push)\n"+
		"origin\tfile:///srv/origin.git (fetch)\norigin\tfile:///srv/origin.git (push)\n"+
		"short\thttps://mirror.example/team.git (fetch)\nshort\thttps://mirror.example/team.git (push)\n"; got != want {
		t.Errorf("git remote -v:\n%s\nwant:\n%s", got, want)
	}
	if got := git(t, dir, "config", "--get", "remote.origin.fetch"); got != "+refs/heads/*:refs/remotes/origin/*\n" {
		t.Errorf("remote.origin.fetch = %q", got)
	}
	rs, err := s.Remotes()
	if err != nil {
		t.Fatal(err)
	}
	want := []Remote{{"bygit", []string{"/srv/by git.git"}}, {"origin", []string{"file:///srv/origin.git"}}, {"short", []string{"https://mirror.example/team.git"}}}
	if !slices.EqualFunc(rs, want, func(a, b Remote) bool { return a.Name == b.Name && slices.Equal(a.URLs, b.URLs) }) {
		t.Errorf("Remotes: %v, want %v", rs, want)
	}
	if err := s.RemoveRemote("short"); err != nil {
		t.Fatal(err)
	}
	if err := s.RemoveRemote("short"); err == nil {
		t.Fatal("a missing remote was removed")
	}
	if got := git(t, dir, "remote"); got != "bygit\norigin\n" {
		t.Errorf("git remote after removing short: %q", got)
	}
	if out, err := gitErr(dir, "config", "--get", "branch.main.remote"); err == nil {
		t.Errorf("branch.main still tracks the removed remote: %q", out)
	}
	if got := git(t, dir, "config", "--get", "core.mine"); got != "kept ; as is\n" {
		t.Errorf("core.mine after the edits: %q", got)
	}
	if _, err := os.Stat(filepath.Join(dir, "config.lock")); !os.IsNotExist(err) {
		t.Errorf("config.lock left behind: %v", err)
	}
}

// TestGitAuthorReadsGitConfig: user.name and user.email as git resolves
// them, the repository's config over the global one.
func TestGitAuthorReadsGitConfig(t *testing.T) {
	_, dir := newStore(t)
	global := filepath.Join(t.TempDir(), "gitconfig")
	git(t, dir, "config", "--file", global, "user.name", "Global Name")
	git(t, dir, "config", "--file", global, "user.email", "global@example.com")
	git(t, dir, "config", "user.name", "Ann \"the\" Author")
	t.Setenv("GIT_CONFIG_GLOBAL", global)
	sig, ok, err := GitAuthor(dir)
	if err != nil || !ok || sig.Name != `Ann "the" Author` || sig.Email != "global@example.com" {
		t.Fatalf("GitAuthor: %+v %v %v", sig, ok, err)
	}
	if err := os.WriteFile(global, []byte("[user\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := GitAuthor(dir); err == nil || !strings.Contains(err.Error(), "does not parse as git config") {
		t.Fatalf("a broken global config: %v", err)
	}
}
