// This file holds the parser's memory bound: what a parse allocates stays
// a small multiple of the source, spans included, so a 50 MB file parses
// in a few hundred MB (issue 8, item 7; BenchmarkParse50MB and cmd
// parsemem give the figures).

package dli

import (
	"runtime"
	"testing"
)

// maxAllocRatio bounds the bytes a parse allocates per source byte: the
// copy of the source, the declaration list, the objects and the position
// table. Measured at about 5.0 on the benchmark mix; spans kept as int32
// pairs took 7.4.
const maxAllocRatio = 6.0

func TestParseAllocationBound(t *testing.T) {
	src, n := bigSource(4 << 20)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	doc, err := Parse("big.dli", src)
	runtime.ReadMemStats(&after)
	if err != nil || len(doc.Decls) != n {
		t.Fatalf("parse: %d decls of %d: %v", len(doc.Decls), n, err)
	}
	ratio := float64(after.TotalAlloc-before.TotalAlloc) / float64(len(src))
	t.Logf("%d bytes, %d declarations: %.2f bytes allocated per source byte", len(src), n, ratio)
	if ratio > maxAllocRatio {
		t.Errorf("parse allocated %.2f bytes per source byte, over the bound %.1f", ratio, maxAllocRatio)
	}
}
