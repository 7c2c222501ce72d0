// This file holds the benchmarks: a typical fact's canonical ID beside
// encoding/json marshaling an equivalent tagged struct, and decoding beside
// encoding/json unmarshaling, plus the other types.

package objects

import (
	"encoding/json"
	"fmt"
	"os"
	"testing"

	"github.com/deloreis/deloreis/jcs"
	gowebpki "github.com/gowebpki/jcs"
)

// jsonProvenance and jsonFact are the encoding/json peers of Provenance and
// Fact: the same members, by struct tags.
type jsonProvenance struct {
	Decisions []string `json:"decisions,omitempty"`
	Hyp       string   `json:"hyp,omitempty"`
	Kind      string   `json:"kind"`
	Origin    string   `json:"origin,omitempty"`
	State     string   `json:"state,omitempty"`
}

type jsonFact struct {
	Entity     string         `json:"entity"`
	Key        string         `json:"key"`
	Provenance jsonProvenance `json:"provenance"`
	Type       string         `json:"type"`
	Value      string         `json:"value"`
}

// typicalJSONFact is typicalFact as a jsonFact.
func typicalJSONFact() *jsonFact {
	f := typicalFact()
	return &jsonFact{Entity: f.Entity, Key: f.Key, Value: f.Value, Type: "fact",
		Provenance: jsonProvenance{Kind: string(f.Provenance.Kind), Origin: f.Provenance.Origin}}
}

func BenchmarkFactCanonicalID(b *testing.B) {
	f := typicalFact()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := f.ID(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkFactJSONMarshal(b *testing.B) {
	f := typicalJSONFact()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := json.Marshal(f); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFactGowebpkiID is the peer route through github.com/gowebpki/jcs:
// marshal with encoding/json, canonicalize with its Transform, hash.
func BenchmarkFactGowebpkiID(b *testing.B) {
	f := typicalJSONFact()
	b.ReportAllocs()
	for b.Loop() {
		raw, err := json.Marshal(f)
		if err != nil {
			b.Fatal(err)
		}
		c, err := gowebpki.Transform(raw)
		if err != nil {
			b.Fatal(err)
		}
		_ = jcs.Sum(c)
	}
}

// BenchmarkFactJSONTransformID is the generic way to the same ID: marshal
// with encoding/json, canonicalize with jcs.Transform, hash.
func BenchmarkFactJSONTransformID(b *testing.B) {
	f := typicalJSONFact()
	b.ReportAllocs()
	for b.Loop() {
		raw, err := json.Marshal(f)
		if err != nil {
			b.Fatal(err)
		}
		c, err := jcs.Transform(raw)
		if err != nil {
			b.Fatal(err)
		}
		_ = jcs.Sum(c)
	}
}

func BenchmarkFactAppendCanonical(b *testing.B) {
	f := typicalFact()
	buf := make([]byte, 0, 512)
	b.ReportAllocs()
	for b.Loop() {
		var err error
		if buf, err = f.AppendCanonical(buf[:0]); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkFactValidate(b *testing.B) {
	f := typicalFact()
	b.ReportAllocs()
	for b.Loop() {
		if err := f.Validate(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkFactDecode(b *testing.B) {
	data, err := Canonical(typicalFact())
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Decode(data); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkFactJSONUnmarshal(b *testing.B) {
	data, err := Canonical(typicalFact())
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		var f jsonFact
		if err := json.Unmarshal(data, &f); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkGoldenCanonicalID encodes and hashes one object of every type
// per iteration.
func BenchmarkGoldenCanonicalID(b *testing.B) {
	var objs []Object
	for _, o := range examples() {
		objs = append(objs, o)
	}
	b.ReportAllocs()
	for b.Loop() {
		for _, o := range objs {
			if _, err := o.ID(); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkGoldenDecode decodes the golden file of every type per
// iteration.
func BenchmarkGoldenDecode(b *testing.B) {
	var files [][]byte
	n := 0
	for _, typ := range Types() {
		data, err := os.ReadFile(goldenPath(typ))
		if err != nil {
			b.Fatal(err)
		}
		files = append(files, data)
		n += len(data)
	}
	b.SetBytes(int64(n))
	b.ReportAllocs()
	for b.Loop() {
		for _, data := range files {
			if _, err := Decode(data); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkDecodeFactsParallel decodes many distinct facts from every
// core at once, as a store's scope read does: seven keys, one cited
// decision, ten facts an entity (the decoder's string cache, intern.go).
func BenchmarkDecodeFactsParallel(b *testing.B) {
	const n = 4096
	data := make([][]byte, n)
	for i := range data {
		f := &Fact{Entity: fmt.Sprintf("p-%d", i/10), Key: fmt.Sprintf("k%d", i%7), Value: fmt.Sprintf("v%d", i),
			Provenance: Cited(CitedProvisional, "d-1")}
		var err error
		if data[i], err = Canonical(f); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		i := 0
		for pb.Next() {
			if _, err := Decode(data[i%n]); err != nil {
				b.Error(err)
				return
			}
			i += 7
		}
	})
}
