package datalog

import (
	"bytes"
	"fmt"
	"testing"
)

// TestPolyBaseDecodesWhatIsRead: a loaded relation's stored supports stay
// in their columns until read, and reading one support decodes its chunk
// alone; read whole, the model is the snapshotted one's; a support set
// after the load over one of the base's is stored anew and read back.
func TestPolyBaseDecodesWhatIsRead(t *testing.T) {
	for _, l := range snapLoaders {
		t.Run(l.name, func(t *testing.T) {
			p := NewProgram()
			const n = 3000
			for i := range n {
				// Two variables a fact: its support is stored, not a unit.
				sup := NewPoly([]string{fmt.Sprint("a", i%11), fmt.Sprint("b", i%13)})
				must(t, p.AddFact("edge", []string{fmt.Sprint("n", i), fmt.Sprint("n", i+1)}, sup))
			}
			must(t, p.AddRule(parseRule("hop", "hop(X, Z) :- edge(X, Y), edge(Y, Z)", One())))
			m := evalOK(t, p)
			var buf bytes.Buffer
			must(t, p.Snapshot(&buf, m))
			q, qm, err := l.load(t, buf.Bytes())
			must(t, err)
			id, ok := qm.preds.lookup("hop")
			if !ok {
				t.Fatal("no hop")
			}
			hop := qm.rel(id)
			if hop.pbase.len() < n-1 || hop.pstore.rows() != 0 {
				t.Fatalf("hop keeps %d supports in its base and %d stored, want %d and none", hop.pbase.len(), hop.pstore.rows(), n-1)
			}
			if d := decodedChunks(hop.pbase); d != 0 {
				t.Fatalf("%d chunks decoded by the load", d)
			}
			want := m.Support("hop", "n1500", "n1502")
			if got := qm.Support("hop", "n1500", "n1502"); got.String() != want.String() {
				t.Fatalf("support %v, want %v", got, want)
			}
			if d := decodedChunks(hop.pbase); d != 1 {
				t.Fatalf("%d chunks decoded by reading one support", d)
			}
			if got, want := fullDump(qm), fullDump(m); got != want {
				t.Fatal("the loaded model reads otherwise than the snapshotted one")
			}
			if d := decodedChunks(hop.pbase); d != len(hop.pbase.chunks) {
				t.Fatalf("%d of %d chunks decoded by reading all", d, len(hop.pbase.chunks))
			}
			// The same change to both: the supports of loaded rows change.
			for _, prog := range []*Program{p, q} {
				must(t, prog.AddFact("edge", []string{"n1500", "n1501"}, VarPoly("c")))
				must(t, prog.AddFact("edge", []string{"n1501", "n1502"}, VarPoly("c")))
			}
			mp, mq := evalOK(t, p), evalOK(t, q)
			if got, want := fullDump(mq), fullDump(mp); got != want {
				t.Fatal("after the same change the loaded program's model differs")
			}
			if got := mq.Support("hop", "n1500", "n1502"); got.String() == want.String() || got.String() != mp.Support("hop", "n1500", "n1502").String() {
				t.Fatalf("support after the change %v, want %v (was %v)", got, mp.Support("hop", "n1500", "n1502"), want)
			}
		})
	}
}

func decodedChunks(b *polyBase) int {
	d := 0
	for i := range b.chunks {
		if b.chunks[i].Load() != nil {
			d++
		}
	}
	return d
}
