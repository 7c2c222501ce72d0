// Tests of revisions: ancestry suffixes and abbreviated commit ids, held
// to what real git's rev-parse says of the same repository.

package lorestore

import (
	"errors"
	"strings"
	"testing"
)

func TestResolveAgreesWithGit(t *testing.T) {
	s, dir := newStore(t)
	commitFacts(t, s, "camelot", 0, 3)
	if _, err := s.CreateBranch("side", ""); err != nil {
		t.Fatal(err)
	}
	commitFacts(t, s, "camelot", 3, 5)
	commitFacts(t, s, "camelot", 5, 6)
	b := NewBatch()
	b.Put("avalon", fact(40))
	if _, err := s.Commit(b, NewMessage("side work", "materialize", "avalon"), CommitOptions{Branch: "side"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Merge("side", MergeOptions{}); err != nil {
		t.Fatal(err)
	}
	head, _ := s.Head("main")
	short := head.String()[:7]
	revs := []string{
		"main", "HEAD", "main~", "main~1", "main^", "main^1", "main^2", "main^0",
		"main~2", "main~3", "HEAD~1^", "main^2~1", "main^^", "main~1~1", "side~1",
		short, short + "~2", strings.ToUpper(short), head.String() + "^2",
	}
	for _, rev := range revs {
		want := strings.TrimSpace(git(t, dir, "rev-parse", "--verify", "--quiet", rev+"^{commit}"))
		got, err := s.Resolve(rev)
		if err != nil {
			t.Fatalf("Resolve(%q): %v (git says %s)", rev, err, want)
		}
		if got.String() != want {
			t.Fatalf("Resolve(%q) = %s, git says %s", rev, got, want)
		}
	}
	for _, rev := range []string{"main~99", "main^3", "~1", "^", "main~x", "main~1x", "main~9999999", "nosuch~1", "0000000", "abc", "main^-1"} {
		_, err := s.Resolve(rev)
		var re *RevisionError
		if !errors.As(err, &re) {
			t.Fatalf("Resolve(%q) error = %v, want a *RevisionError", rev, err)
		}
		if _, gitErr := gitErr(dir, "rev-parse", "--verify", "--quiet", rev+"^{commit}"); gitErr == nil && rev != "main~9999999" {
			t.Fatalf("Resolve(%q) refused, but git resolves it", rev)
		}
	}
}

// TestResolveAmbiguousAbbreviation: an abbreviation two commits share is
// refused, naming both; a blob that shares it is no candidate.
func TestResolveAmbiguousAbbreviation(t *testing.T) {
	s, _ := newStore(t)
	seen := map[string]string{}
	var shared string
	for i := 0; shared == "" && i < 3000; i++ {
		c := commitFacts(t, s, "camelot", i, i+1).Commit.String()
		if prev, ok := seen[c[:4]]; ok && prev != c {
			shared = c[:4]
		}
		seen[c[:4]] = c
	}
	if shared == "" {
		t.Fatal("no two commits share four digits")
	}
	_, err := s.Resolve(shared)
	var re *RevisionError
	if !errors.As(err, &re) || !strings.Contains(re.Reason, "ambiguous") {
		t.Fatalf("Resolve(%q) error = %v, want an ambiguity", shared, err)
	}
}

// TestSnapshotExpand: abbreviated object ids expand to exactly the ids of
// the scope that begin with them.
func TestSnapshotExpand(t *testing.T) {
	s, _ := newStore(t)
	commitFacts(t, s, "camelot", 0, 600)
	sn, err := s.Snapshot("")
	if err != nil {
		t.Fatal(err)
	}
	ids, err := sn.IDs("camelot", Claims)
	if err != nil {
		t.Fatal(err)
	}
	for i, id := range ids[:100] {
		prefix := id.String()[:4+i%10]
		var want []string
		for _, other := range ids {
			if strings.HasPrefix(other.String(), prefix) {
				want = append(want, other.String())
			}
		}
		got, err := sn.Expand("camelot", strings.ToUpper(prefix))
		if err != nil {
			t.Fatal(err)
		}
		var gotS []string
		for _, g := range got {
			gotS = append(gotS, g.String())
		}
		if strings.Join(gotS, ",") != strings.Join(want, ",") {
			t.Fatalf("Expand(%s) = %v, want %v", prefix, gotS, want)
		}
	}
	for _, bad := range []string{"abc", "xyz1", "../../", strings.Repeat("a", 65)} {
		if _, err := sn.Expand("camelot", bad); err == nil {
			t.Fatalf("Expand(%q) accepted", bad)
		}
	}
	if _, err := sn.Expand("../x", "abcd"); err == nil {
		t.Fatal("Expand accepted a bad scope")
	}
}
