package dli

import (
	"testing"
	"unsafe"

	"github.com/deloreis/deloreis/objects"
)

// TestKeysAndRelationNamesShareBytes: the facts of one key, and the
// relations of one name, share the bytes of their key or name (parser.shared).
func TestKeysAndRelationNamesShareBytes(t *testing.T) {
	for _, tc := range []struct {
		name string
		src  string
		word func(objects.Object) string
	}{
		{"keys", "scope s\na.title = x  proposed p\nb.title = y  proposed p\n", func(o objects.Object) string { return o.(*objects.Fact).Key }},
		{"relation names", "scope s\nserves(a, b)  proposed p\nserves(c, d)  proposed p\n", func(o objects.Object) string { return o.(*objects.Relation).Relation }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc, err := ParseString("t.dli", tc.src)
			if err != nil {
				t.Fatal(err)
			}
			if len(doc.Decls) != 2 {
				t.Fatalf("%d declarations", len(doc.Decls))
			}
			a, b := tc.word(doc.Decls[0].Object), tc.word(doc.Decls[1].Object)
			if a != b || unsafe.StringData(a) != unsafe.StringData(b) {
				t.Fatalf("%q at %p and %q at %p: not one string", a, unsafe.StringData(a), b, unsafe.StringData(b))
			}
		})
	}
}
