//go:build unix

package datalog

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

var litHeapN = flag.Int("litheap.n", 1_000_000, "negated literals of BenchmarkLitHeap's program")

// litHeapProgram is a program whose model interns n negated literals:
// every gone fact holds under a variable, so "not gone(X, Y)" is carried
// by the kept row of each item rather than failing it.
func litHeapProgram(tb testing.TB, n int) (*Program, *Model) {
	p := NewProgram()
	item, err := p.FactPred("item", 2)
	must(tb, err)
	gone, err := p.FactPred("gone", 2)
	must(tb, err)
	var batch FactBatch
	for i := range n {
		args := []string{"i" + strconv.Itoa(i), "c" + strconv.Itoa(i%97)}
		batch.Add(item, args, One())
		batch.Add(gone, args, VarPoly("d"+strconv.Itoa(i%5)))
	}
	must(tb, p.AddFacts(&batch))
	must(tb, p.AddRule(parseRule("kept", "kept(X) :- item(X, Y), not gone(X, Y)", One())))
	return p, evalOK(tb, p)
}

// mapFile writes data to a file in dir and maps it read-only, as a world
// file is mapped; unmap undoes the mapping.
func mapFile(tb testing.TB, dir string, data []byte) (m []byte, unmap func()) {
	path := filepath.Join(dir, "snap")
	must(tb, os.WriteFile(path, data, 0o600))
	f, err := os.Open(path)
	must(tb, err)
	defer f.Close()
	m, err = unix.Mmap(int(f.Fd()), 0, len(data), unix.PROT_READ, unix.MAP_SHARED)
	must(tb, err)
	return m, func() { unix.Munmap(m) }
}

// BenchmarkLitHeap reports the live heap, per negated literal, of a
// program and model loaded aliased from a read-only mapping of their
// snapshot, and the time of the load.
// go test ./datalog -run '^$' -bench LitHeap -benchtime 3x [-args -litheap.n=1000000]
func BenchmarkLitHeap(b *testing.B) {
	n := *litHeapN
	p, m := litHeapProgram(b, n)
	if got := m.info.len(); got < n {
		b.Fatalf("%d literals, want at least %d", got, n)
	}
	var buf bytes.Buffer
	must(b, p.Snapshot(&buf, m))
	p, m = nil, nil
	data, unmap := mapFile(b, b.TempDir(), buf.Bytes())
	defer unmap()
	buf = bytes.Buffer{}
	var perLit, loadMs float64
	for b.Loop() {
		runtime.GC()
		h0 := heapInUse()
		start := time.Now()
		q, qm, err := LoadSnapshotAliased(data, nil)
		must(b, err)
		loadMs = float64(time.Since(start).Microseconds()) / 1000
		runtime.GC()
		perLit = (float64(heapInUse()) - float64(h0)) / float64(n)
		runtime.KeepAlive(q)
		runtime.KeepAlive(qm)
	}
	b.ReportMetric(perLit, "heap-B/lit")
	b.ReportMetric(loadMs, "load-ms")
}
