// This file holds the benchmarks: Transform beside github.com/gowebpki/jcs
// on the same ~1 KB object, and AppendString and AppendNumber on typical
// values.

package jcs

import (
	"bytes"
	"testing"

	gowebpki "github.com/gowebpki/jcs"
)

// benchObject is a ~1 KB lore object as a client might send it: members out
// of order, whitespace, escapes, non-ASCII text, ids, numbers and nesting.
var benchObject = []byte(`{
  "type": "lore/entry",
  "version": 3,
  "id": "deloreis/object/7f3a9c0e5b2d4a18",
  "title": "The Founding of K\u00e9rvalis \u2014 first chronicle",
  "body": "In the year 412 of the Second Reckoning, the river-folk of K\u00e9rvalis raised the first\nwatch-tower on the eastern bank.\tIt stood \"forty spans\" high.",
  "tags": ["history", "kervalis", "towers", "second-reckoning", "river-folk"],
  "created": 1717171717123,
  "weight": 0.75,
  "score": -12.5e2,
  "authors": [
    {"name": "Ilse Varga", "id": "deloreis/author/00000000000000a1", "role": "scribe"},
    {"role": "editor", "name": "Tom\u00e1s Ferreira", "id": "deloreis/author/00000000000000b2"}
  ],
  "links": {
    "parent": "deloreis/object/1111111111111111",
    "next": "deloreis/object/2222222222222222",
    "previous": null,
    "see-also": ["deloreis/object/3333333333333333", "deloreis/object/4444444444444444"]
  },
  "geo": {"lon": 18.0686, "lat": 59.3293, "alt": 12},
  "flags": {"published": true, "draft": false, "archived": false},
  "notes": "Symbols: \u00a7 \u00b6 \u2020 \u2021 \ud83d\udcdc",
  "checksum": "af1349b9f5f9a1a6a0404dea36dcc9499bcb25c9adc112b7cc9a93cae41f3262"
}`)

func checkBenchObject(b *testing.B) {
	b.Helper()
	ours, err := Transform(benchObject)
	if err != nil {
		b.Fatal(err)
	}
	theirs, err := gowebpki.Transform(benchObject)
	if err != nil || !bytes.Equal(ours, theirs) {
		b.Fatalf("outputs differ: %q vs %q (%v)", ours, theirs, err)
	}
}

func BenchmarkTransform(b *testing.B) {
	checkBenchObject(b)
	b.SetBytes(int64(len(benchObject)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Transform(benchObject); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkAppend(b *testing.B) {
	b.SetBytes(int64(len(benchObject)))
	b.ReportAllocs()
	buf := make([]byte, 0, 2*len(benchObject))
	for b.Loop() {
		var err error
		if buf, err = Append(buf[:0], benchObject); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkGowebpkiTransform(b *testing.B) {
	checkBenchObject(b)
	b.SetBytes(int64(len(benchObject)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := gowebpki.Transform(benchObject); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkAppendString(b *testing.B) {
	const s = "deloreis/object/7f3a9c0e5b2d4a" // 30 bytes of ASCII
	b.SetBytes(int64(len(s)))
	b.ReportAllocs()
	buf := make([]byte, 0, 64)
	for b.Loop() {
		var err error
		if buf, err = AppendString(buf[:0], s); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkAppendNumber(b *testing.B) {
	b.ReportAllocs()
	buf := make([]byte, 0, 32)
	for b.Loop() {
		buf, _ = AppendNumber(buf[:0], 59.3293)
	}
}
