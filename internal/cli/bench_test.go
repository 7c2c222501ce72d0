// Benchmarks of the text commands on large input (issue 8 item 7): check
// of a generated file, reported as MB/s. bench/check-large.sh measures the
// 50 MB case end to end with peak RSS.

package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// largeDLI writes a clean .dli file of about mb megabytes (people, places,
// a fact and a relation per person, as bench/bigdli does) and returns its
// path and size.
func largeDLI(b *testing.B, mb int) (string, int64) {
	b.Helper()
	var sb strings.Builder
	sb.WriteString("scope big\n")
	const places = 1000
	for i := 0; i < places; i++ {
		fmt.Fprintf(&sb, "place place-%d \"Place %d\"   proposed  session-7c9\n", i, i)
	}
	for i := 0; sb.Len() < mb<<20; i++ {
		fmt.Fprintf(&sb, "person p-%d \"Person %d\"   proposed  session-7c9\n", i, i)
		fmt.Fprintf(&sb, "p-%d.title = \"Knight of the order %d\"   proposed  session-7c9\n", i, i%97)
		fmt.Fprintf(&sb, "serves(p-%d, place-%d)   proposed  session-7c9\n", i, i%places)
	}
	path := filepath.Join(b.TempDir(), "big.dli")
	if err := os.WriteFile(path, []byte(sb.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	return path, int64(sb.Len())
}

// BenchmarkCheckLarge checks a 5 MB file standalone.
func BenchmarkCheckLarge(b *testing.B) {
	path, size := largeDLI(b, 5)
	b.SetBytes(size)
	b.ResetTimer()
	for b.Loop() {
		if code := run([]string{"check", "--standalone", path}, io.Discard, io.Discard); code != 0 {
			b.Fatalf("check exited %d", code)
		}
	}
}

// BenchmarkCheckManyFindings checks a file where every declaration has a
// finding (a relation between undeclared entities): placing the findings
// must stay linear in the file (one id→position map per file, not one per
// finding as before).
func BenchmarkCheckManyFindings(b *testing.B) {
	var sb strings.Builder
	sb.WriteString("scope big\n")
	const n = 20000
	for i := 0; i < n; i++ {
		fmt.Fprintf(&sb, "serves(p-%d, place-%d)   proposed  session-7c9\n", i, i)
	}
	path := filepath.Join(b.TempDir(), "findings.dli")
	if err := os.WriteFile(path, []byte(sb.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(sb.Len()))
	b.ResetTimer()
	for b.Loop() {
		if code := run([]string{"check", "--standalone", path}, io.Discard, io.Discard); code != 1 {
			b.Fatalf("check exited %d, want 1 (findings)", code)
		}
	}
	b.ReportMetric(n, "decls/op")
}
