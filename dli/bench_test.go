// This file holds the benchmarks: parsing and formatting a 100,000
// declaration document of mixed types, reporting declarations per second,
// and parsing a 50 MB document, reporting MB/s and bytes allocated.

package dli

import (
	"testing"

	"github.com/deloreis/deloreis/dli/internal/bigdoc"
	"github.com/deloreis/deloreis/objects"
)

// benchDecls is the size of the benchmark document.
const benchDecls = 100_000

// benchDocument returns a Document of n declarations of mixed types (see
// package bigdoc).
func benchDocument(n int) *Document {
	doc := &Document{Grammar: Grammar, Scope: "camelot", Decls: make([]Decl, 0, n)}
	for _, o := range bigdoc.Objects(n) {
		doc.Decls = append(doc.Decls, Decl{Object: o})
	}
	return doc
}

// bigSize is the size of the large document the issue measured `check` on.
const bigSize = 50 << 20

// bigSource returns the source of a document of at least size bytes, and
// how many declarations it holds.
func bigSource(size int) ([]byte, int) {
	sample := len(Format(benchDocument(1000)))
	n := size/sample*1000 + 1000
	return Format(benchDocument(n)), n
}

func BenchmarkParse(b *testing.B) {
	src := Format(benchDocument(benchDecls))
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		doc, err := Parse("bench.dli", src)
		if err != nil || len(doc.Decls) != benchDecls {
			b.Fatalf("parse: %v", err)
		}
	}
	b.ReportMetric(float64(benchDecls)*float64(b.N)/b.Elapsed().Seconds(), "decls/s")
}

// BenchmarkParse50MB parses a 50 MB document, reporting MB/s and the bytes
// allocated per parse; cmd parsemem measures its peak RSS.
func BenchmarkParse50MB(b *testing.B) {
	src, n := bigSource(bigSize)
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		doc, err := Parse("big.dli", src)
		if err != nil || len(doc.Decls) != n {
			b.Fatalf("parse: %v", err)
		}
	}
}

func BenchmarkFormat(b *testing.B) {
	doc := benchDocument(benchDecls)
	b.SetBytes(int64(len(Format(doc))))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		Format(doc)
	}
	b.ReportMetric(float64(benchDecls)*float64(b.N)/b.Elapsed().Seconds(), "decls/s")
}

func BenchmarkRenderDecl(b *testing.B) {
	o := &objects.Entity{Kind: objects.KindPerson, Ident: "galahad", Name: "Galahad", Provenance: objects.Proposed("session-7c9")}
	b.ReportAllocs()
	for b.Loop() {
		RenderDecl(o)
	}
}

// BenchmarkLocate50MB indexes a parsed 50 MB document by object id and
// places one finding citing each declaration: what `check` does with
// the findings of a large file.
func BenchmarkLocate50MB(b *testing.B) {
	src, _ := bigSource(bigSize)
	doc, err := Parse("big.dli", src)
	if err != nil {
		b.Fatal(err)
	}
	ids := make([]string, len(doc.Decls))
	for i := range doc.Decls {
		id, err := doc.Decls[i].Object.ID()
		if err != nil {
			b.Fatal(err)
		}
		ids[i] = id.String()
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		l := NewLocator(doc)
		for _, id := range ids {
			if _, ok := l.Place([]string{id}, "from"); !ok {
				b.Fatalf("%s not placed", id)
			}
		}
	}
	b.ReportMetric(float64(len(ids))*float64(b.N)/b.Elapsed().Seconds(), "findings/s")
}
