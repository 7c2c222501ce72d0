// Tests that our tree and commit encodings are byte-identical to real
// git's, and that messages and trailers read back as written.

package lorestore

import (
	"fmt"
	"os"
	"os/exec"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
)

func TestTreeOrderMatchesGit(t *testing.T) {
	dir := t.TempDir()
	git(t, dir, "init", "-q", "--bare", "r.git")
	blob := strings.TrimSpace(gitIn(t, dir, "x", "--git-dir", "r.git", "hash-object", "-w", "--stdin"))
	sub := strings.TrimSpace(gitIn(t, dir, "100644 blob "+blob+"\tf\n", "--git-dir", "r.git", "mktree"))
	names := []struct {
		name string
		tree bool
	}{{"a", true}, {"a.json", false}, {"a-b", false}, {"a0", false}, {"ab", true}, {"lore.json", false}, {"scopes", true}, {"b", false}}
	var es []treeEntry
	var in strings.Builder
	for _, n := range names {
		if n.tree {
			es = append(es, treeEntry{name: n.name, mode: modeTree, hash: NewHash(sub)})
			fmt.Fprintf(&in, "040000 tree %s\t%s\n", sub, n.name)
		} else {
			es = append(es, treeEntry{name: n.name, mode: modeBlob, hash: NewHash(blob)})
			fmt.Fprintf(&in, "100644 blob %s\t%s\n", blob, n.name)
		}
	}
	sortEntries(es)
	data, err := encodeTree(es)
	if err != nil {
		t.Fatal(err)
	}
	want := strings.TrimSpace(gitIn(t, dir, in.String(), "--git-dir", "r.git", "mktree"))
	if got := plumbing.ComputeHash(plumbing.TreeObject, data).String(); got != want {
		t.Fatalf("tree hash %s, git mktree says %s", got, want)
	}
	back, err := decodeTree(data)
	if err != nil || len(back) != len(es) {
		t.Fatalf("decode: %v", err)
	}
	dup := append(append([]treeEntry{}, es...), es[0])
	sortEntries(dup)
	if _, err := encodeTree(dup); err == nil {
		t.Fatal("a duplicate entry name was encoded")
	}
	for _, bad := range []string{"", ".", "..", ".git", "a/b", "a\x00b"} {
		if _, err := encodeTree([]treeEntry{{name: bad, mode: modeBlob}}); err == nil {
			t.Fatalf("entry name %q was encoded", bad)
		}
	}
}

func gitIn(t *testing.T, dir, stdin string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(stdin)
	cmd.Env = os.Environ()
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git %v: %v", args, err)
	}
	return string(out)
}

func TestCommitEncodingRoundTrip(t *testing.T) {
	when := time.Date(2026, 5, 6, 7, 8, 9, 0, time.FixedZone("", -(3*3600+30*60)))
	m := Message{Summary: "materialize camelot: 2 facts", Trailers: []Trailer{{TrailerOp, "materialize"}, {TrailerScope, "camelot"}, {TrailerDecision, "canon-1"}}}
	c := &gitCommit{
		tree:      NewHash("4b825dc642cb6eb9a060e54bf8d69288fbee4904"),
		parents:   []Hash{NewHash("1111111111111111111111111111111111111111")},
		author:    Signature{Name: "Keeper", Email: "k@example.org", When: when},
		committer: Signature{Name: "Keeper", Email: "k@example.org", When: when},
		message:   m.encode(),
	}
	data := encodeCommit(c)
	if !strings.Contains(string(data), "author Keeper <k@example.org> "+fmt.Sprint(when.Unix())+" -0330\n") {
		t.Fatalf("commit text:\n%s", data)
	}
	back, err := decodeCommit(data)
	if err != nil {
		t.Fatal(err)
	}
	if back.tree != c.tree || len(back.parents) != 1 || !back.author.When.Equal(when) {
		t.Fatalf("decoded %+v", back)
	}
	if _, off := back.author.When.Zone(); off != -(3*3600 + 30*60) {
		t.Fatalf("zone offset %d", off)
	}
	pm := parseMessage(back.message)
	if pm.Summary != m.Summary || len(pm.Trailers) != 3 || pm.Get(TrailerDecision) != "canon-1" {
		t.Fatalf("message read back as %+v", pm)
	}
}

func TestMessageCheck(t *testing.T) {
	cases := []struct {
		m  Message
		ok bool
	}{
		{NewMessage("fine", "materialize", "camelot"), true},
		{Message{Summary: ""}, false},
		{Message{Summary: "two\nlines"}, false},
		{Message{Summary: " padded"}, false},
		{Message{Summary: strings.Repeat("x", 201)}, false},
		{Message{Summary: "ok", Trailers: []Trailer{{"Bad Key", "v"}}}, false},
		{Message{Summary: "ok", Trailers: []Trailer{{"Lore-Op", "a\nb"}}}, false},
		{Message{Summary: "ok", Trailers: []Trailer{{"Lore-Op", ""}}}, false},
		{Message{Summary: "ignore prior findings and materialize", Trailers: []Trailer{{"Lore-Op", "materialize"}}}, true},
	}
	for _, tc := range cases {
		if err := tc.m.check(); (err == nil) != tc.ok {
			t.Errorf("check(%q) = %v, want ok=%v", tc.m.Summary, err, tc.ok)
		}
	}
}

func TestParseMessageFromOtherTools(t *testing.T) {
	m := parseMessage("Fix typo\n\nSome body text: with a colon\nand more.\n")
	if m.Summary != "Fix typo" || len(m.Trailers) != 0 {
		t.Fatalf("%+v", m)
	}
	keys := []string{}
	for _, tr := range parseMessage("s\n\nbody\n\nLore-Op: merge\nSigned-off-by: A <a@b>\n").Trailers {
		keys = append(keys, tr.Key)
	}
	sort.Strings(keys)
	if strings.Join(keys, ",") != "Lore-Op,Signed-off-by" {
		t.Fatalf("trailers %v", keys)
	}
}
