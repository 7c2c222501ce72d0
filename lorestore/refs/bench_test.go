// This file holds the benchmarks: one Update with and without fsync, and
// one Read, loose and packed.

package refs

import (
	"fmt"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
)

func benchUpdate(b *testing.B, fsync bool) {
	_, s := newRepo(b, Options{NoFsync: !fsync})
	cur := plumbing.ZeroHash
	for i := 0; b.Loop(); i++ {
		next := fakeHash(i%60000 + 1)
		if err := s.Update(main, next, cur); err != nil {
			b.Fatal(err)
		}
		cur = next
	}
}

func BenchmarkUpdate(b *testing.B)      { benchUpdate(b, false) }
func BenchmarkUpdateFsync(b *testing.B) { benchUpdate(b, true) }

func BenchmarkRead(b *testing.B) {
	_, s := newRepo(b, Options{})
	if err := s.Update(main, fakeHash(1), plumbing.ZeroHash); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := s.Read(main); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkReadPacked(b *testing.B) {
	dir, s := newRepo(b, Options{})
	h := commit(b, dir, "a")
	var in strings.Builder
	for i := 0; i < 100; i++ {
		fmt.Fprintf(&in, "create refs/heads/b%03d %s\n", i, h)
	}
	if _, err := gitErr(dir, in.String(), "update-ref", "--stdin"); err != nil {
		b.Fatal(err)
	}
	git(b, dir, "pack-refs", "--all")
	for b.Loop() {
		if _, err := s.Read("refs/heads/b050"); err != nil {
			b.Fatal(err)
		}
	}
}
