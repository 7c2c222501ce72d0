package odb

import (
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
)

// TestExpand: every abbreviation of every stored object (packed over
// several packs, and loose, written by real git) expands to exactly the
// stored names it begins, as a brute-force scan says.
func TestExpand(t *testing.T) {
	dir := initBare(t)
	db := openDB(t, dir, Options{AutoPackLimit: -1})
	written, _ := writeHistory(t, db, rand.New(rand.NewPCG(4, 4)), 20, 30)
	var all []plumbing.Hash
	for _, w := range written {
		all = append(all, w.hash)
	}
	for _, c := range []string{"loose one\n", "loose two\n", "loose three\n"} {
		h := plumbing.NewHash(strings.TrimSpace(string(git(t, dir, []byte(c), "hash-object", "-w", "--stdin"))))
		all = append(all, h)
	}
	brute := func(prefix string) []plumbing.Hash {
		var out []plumbing.Hash
		for _, h := range all {
			if strings.HasPrefix(h.String(), prefix) && !slices.Contains(out, h) {
				out = append(out, h)
			}
		}
		slices.SortFunc(out, func(a, b plumbing.Hash) int { return strings.Compare(a.String(), b.String()) })
		return out
	}
	r := rand.New(rand.NewPCG(9, 9))
	for i, h := range all {
		n := MinPrefix + r.IntN(2*hashLen-MinPrefix+1)
		if i%7 == 0 {
			n = MinPrefix // short enough to collide now and then
		}
		prefix := h.String()[:n]
		if i%5 == 0 {
			prefix = strings.ToUpper(prefix)
		}
		got, err := db.Expand(prefix, 0)
		if err != nil {
			t.Fatal(err)
		}
		if want := brute(strings.ToLower(prefix)); !slices.Equal(got, want) {
			t.Fatalf("Expand(%q) = %v, want %v", prefix, got, want)
		}
	}
	// Limits, misses and bad abbreviations.
	if got, _ := db.Expand(all[0].String()[:MinPrefix], 1); len(got) != 1 {
		t.Fatalf("limit 1 gave %d names", len(got))
	}
	if got, err := db.Expand("0000000000000000000000000000000000000001", 0); err != nil || len(got) != 0 {
		t.Fatalf("Expand(missing) = %v, %v", got, err)
	}
	for _, bad := range []string{"", "abc", "abcg", strings.Repeat("a", 41), "../../x", "ab cd"} {
		if _, err := db.Expand(bad, 0); !errors.Is(err, ErrBadPrefix) {
			t.Fatalf("Expand(%q) error = %v, want ErrBadPrefix", bad, err)
		}
	}
}
