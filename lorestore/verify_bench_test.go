// Benchmarks of the check a merge, branch or clone runs before a ref
// moves: a full check (as clone does) should grow linearly with the
// store, and the check of a one-commit merge should not grow with it.

package lorestore

import (
	"fmt"
	"testing"
)

func BenchmarkVerifyFull(b *testing.B) {
	for _, n := range benchSizes(1_000, 10_000, 100_000) {
		b.Run(fmt.Sprintf("objects=%d", n), func(b *testing.B) {
			s, _ := bigStore(b, n)
			defer s.Close()
			head, _ := s.Head("main")
			for b.Loop() {
				if err := s.verifyNew(head, nil); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "objects/s")
		})
	}
}

func BenchmarkVerifyMergeOneCommit(b *testing.B) {
	for _, n := range benchSizes(1_000, 10_000, 100_000) {
		b.Run(fmt.Sprintf("objects=%d", n), func(b *testing.B) {
			s, _ := bigStore(b, n)
			defer s.Close()
			if _, err := s.CreateBranch("side", ""); err != nil {
				b.Fatal(err)
			}
			batch := NewBatch()
			batch.Put("camelot", fact(n+1))
			side, err := s.Commit(batch, NewMessage("side", "materialize", "camelot"), CommitOptions{Branch: "side"})
			if err != nil {
				b.Fatal(err)
			}
			head, _ := s.Head("main")
			for b.Loop() {
				if err := s.verifyNew(side.Commit, []Hash{head}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N), "µs/check")
		})
	}
}
