// This file holds FuzzDecode. Its seed corpus — the golden file of every
// type, a few awkward inputs and the fast path's table — runs with every
// plain go test.

package objects

import (
	"bytes"
	"os"
	"reflect"
	"testing"

	"github.com/deloreis/deloreis/jcs"
)

func FuzzDecode(f *testing.F) {
	for _, typ := range Types() {
		data, err := os.ReadFile(goldenPath(typ))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	for _, s := range []string{
		fact,
		`{"type":"fact"}`,
		`{"type":"state","entity":"e","key":"k","value":"v","until":"","provenance":{"kind":"proposed","origin":"s"}}`,
		`{"type":"hypothesis","id":"h","statement":"\ud800"}`,
		`{"type":"rule","name":"r","head":{"pred":"p","args":[{"var":"X","const":"c"}]},"body":[],"provenance":{}}`,
		`{"type":"question","id":"q","prompt":"P","options":[{"id":"a","label":"A"},{"id":"a","label":"B"}]}`,
		`[[[[{"type":1}]]]]`,
	} {
		f.Add([]byte(s))
	}
	for _, tc := range fastPathCases {
		f.Add([]byte(tc.in))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		// The fast path accepts only what the general decoder accepts, and
		// Decode's answer is the general decoder's (decode_fast.go).
		agree(t, data)
		o, err := Decode(data)
		if err != nil {
			if o != nil {
				t.Fatalf("Decode returned %#v with error %v", o, err)
			}
			problems(t, err)
			return
		}
		b, err := Canonical(o)
		if err != nil {
			t.Fatalf("Canonical of an accepted object: %v", err)
		}
		o2, err := Decode(b)
		if err != nil {
			t.Fatalf("Decode(Canonical(o)) = %v for %s", err, b)
		}
		if !reflect.DeepEqual(o, o2) {
			t.Fatalf("Decode(Canonical(o)) = %#v, want %#v", o2, o)
		}
		if tr, err := jcs.Transform(b); err != nil || !bytes.Equal(tr, b) {
			t.Fatalf("canonical bytes %s are not RFC 8785: %s, %v", b, tr, err)
		}
	})
}
