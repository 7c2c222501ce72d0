package datalog

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// snapRoundTrip snapshots p with m, loads it back and checks the loaded
// model against m and the loaded program's own snapshot against the
// bytes; ok is false when p's state is one snapshots refuse.
func snapRoundTrip(t *testing.T, p *Program, m *Model) (*Program, *Model, bool) {
	t.Helper()
	return snapRoundTripBy(t, p, m, loadCopied)
}

// snapRoundTripBy is snapRoundTrip loading with load (snapLoaders).
func snapRoundTripBy(t *testing.T, p *Program, m *Model, load snapLoader) (*Program, *Model, bool) {
	t.Helper()
	var buf bytes.Buffer
	if err := p.Snapshot(&buf, m); err != nil {
		if !errors.Is(err, ErrNoSnapshot) {
			t.Fatalf("snapshot: %v", err)
		}
		if buf.Len() != 0 {
			t.Fatalf("a refused snapshot wrote %d bytes", buf.Len())
		}
		return nil, nil, false
	}
	q, qm, err := load(t, buf.Bytes())
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	if got, want := fullDump(qm), fullDump(m); got != want {
		t.Fatalf("loaded model\n%s\nsnapshotted\n%s", got, want)
	}
	var again bytes.Buffer
	if err := q.Snapshot(&again, qm); err != nil {
		t.Fatalf("snapshot of the loaded program: %v", err)
	}
	if !bytes.Equal(again.Bytes(), buf.Bytes()) {
		t.Fatalf("the loaded program's snapshot differs (%d bytes against %d)", again.Len(), buf.Len())
	}
	return q, qm, true
}

// TestSnapshotRoundTrip: for random and shaped programs under tight and
// loose bounds, a loaded snapshot holds the same model, and the same
// changes made to the original and to the loaded program evaluate
// (incrementally, from the snapshotted model) to the same models, which
// are those of a fresh evaluation.
func TestSnapshotRoundTrip(t *testing.T) {
	for _, l := range snapLoaders {
		t.Run(l.name, func(t *testing.T) { snapshotRoundTrips(t, l.load) })
	}
}

func snapshotRoundTrips(t *testing.T, load snapLoader) {
	saved, refused := 0, 0
	for seed := range uint64(propertyCases) {
		r := rand.New(rand.NewPCG(seed, 11))
		data := make([]byte, 24+r.IntN(200))
		for i := range data {
			data[i] = byte(r.IntN(256))
		}
		np, b := decodeProgram(data)
		if seed%2 == 0 {
			np = genProgram(r, genDefault)
			b = []Bounds{{}, {MaxMonomials: 2, MaxMonomialSize: 3}, {MaxStratumMonomials: 3}}[seed%3]
		}
		p, err := np.load(identity(len(np.facts)), identity(len(np.rules)), b)
		if err != nil {
			continue
		}
		m, err := p.Eval()
		if err != nil {
			continue
		}
		q, _, ok := snapRoundTripBy(t, p, m, load)
		if !ok {
			refused++
			continue
		}
		saved++
		curP := nProgram{facts: slices.Clone(np.facts), rules: slices.Clone(np.rules)}
		curQ := nProgram{facts: slices.Clone(np.facts), rules: slices.Clone(np.rules)}
		var remP, remQ []Rule
		steps := slices.Clone(data)
		slices.Reverse(steps)
		sp, sq := &byteSource{b: steps}, &byteSource{b: slices.Clone(steps)}
		for step := range 6 {
			what := incrStep(sp, p, &curP, &remP)
			if w := incrStep(sq, q, &curQ, &remQ); w != what {
				t.Fatalf("seed %d step %d: %q on the original, %q on the loaded program", seed, step, what, w)
			}
			mp, errP := p.Eval()
			mq, errQ := q.Eval()
			if (errP == nil) != (errQ == nil) {
				t.Fatalf("seed %d step %d (%s): original error %v, loaded %v", seed, step, what, errP, errQ)
			}
			if errP != nil {
				continue
			}
			fp, err := curQ.load(identity(len(curQ.facts)), identity(len(curQ.rules)), b)
			if err != nil {
				t.Fatalf("seed %d step %d: fresh load: %v", seed, step, err)
			}
			fm, err := fp.Eval()
			if err != nil {
				t.Fatalf("seed %d step %d: fresh eval: %v", seed, step, err)
			}
			want := fullDump(fm)
			if got := fullDump(mq); got != want {
				t.Fatalf("seed %d step %d (%s): loaded program\n%s\nfresh\n%s", seed, step, what, got, want)
			}
			if got := fullDump(mp); got != want {
				t.Fatalf("seed %d step %d (%s): original\n%s\nfresh\n%s", seed, step, what, got, want)
			}
		}
	}
	t.Logf("%d snapshots loaded, %d refused", saved, refused)
	if saved < propertyCases/4 || saved < 4*refused {
		t.Fatalf("only %d of %d programs snapshotted (%d refused)", saved, propertyCases, refused)
	}
}

// TestSnapshotLarge covers relations past one segment (rows and hash),
// supports stored per row, a negation's literals and indexes built by
// evaluation, then a staged change on the loaded program.
func TestSnapshotLarge(t *testing.T) {
	for _, l := range snapLoaders {
		t.Run(l.name, func(t *testing.T) { snapshotLarge(t, l.load) })
	}
}

// snapshotLargeEdges is the chain TestSnapshotLarge snapshots (shorter under
// the race detector: see race_test.go).
var snapshotLargeEdges = 150_000

func snapshotLarge(t *testing.T, load snapLoader) {
	p := NewProgram()
	n := snapshotLargeEdges
	var batch FactBatch
	edge, err := p.FactPred("edge", 2)
	must(t, err)
	for i := range n {
		sup := VarPoly(fmt.Sprintf("d%d", i%7))
		if i%5 == 0 {
			sup = NewPoly([]string{"d1", "d2"})
		}
		batch.Add(edge, []string{fmt.Sprintf("n%d", i), fmt.Sprintf("n%d", i+1)}, sup)
	}
	must(t, p.AddFacts(&batch))
	must(t, p.AddFact("mark", []string{"n7"}, One()))
	for _, r := range []Rule{
		parseRule("step", "hop(X, Z) :- edge(X, Y), edge(Y, Z)", One()),
		parseRule("free", "free(X) :- edge(X, Y), not mark(X)", One()),
		parseRule("flag", "edge(n0, X) :- mark(X)", VarPoly("d3")),
	} {
		must(t, p.AddRule(r))
	}
	m := evalOK(t, p)
	q, qm, ok := snapRoundTripBy(t, p, m, load)
	if !ok {
		t.Fatal("snapshot refused")
	}
	if qm.Len("hop") < n-1 || qm.Len("free") != n-1 {
		t.Fatalf("loaded hop %d, free %d; want at least %d and %d", qm.Len("hop"), qm.Len("free"), n-1, n-1)
	}
	for _, prog := range []*Program{p, q} {
		must(t, prog.AddFact("mark", []string{"n9"}, VarPoly("d4")))
		prog.RemoveFact("edge", []string{"n3", "n4"})
	}
	mp, mq := evalOK(t, p), evalOK(t, q)
	if got, want := fullDump(mq), fullDump(mp); got != want {
		t.Fatal("after the same change the loaded program's model differs from the original's")
	}
	if s := mq.Stats(); s.Reused+s.Maintained == 0 {
		t.Fatalf("the loaded program evaluated every stratum afresh: %+v", s)
	}
	// Once more from the loaded model itself, past the model in between.
	for _, prog := range []*Program{p, q} {
		prog.RemoveFact("edge", []string{"n100", "n101"})
		must(t, prog.AddFact("edge", []string{"n5", "n200"}, VarPoly("d9")))
	}
	mp, err = p.EvalFrom(m)
	must(t, err)
	mq, err = q.EvalFrom(qm)
	must(t, err)
	if got, want := fullDump(mq), fullDump(mp); got != want {
		t.Fatal("evaluated from the loaded model, the loaded program's model differs from the original's")
	}
}

// TestSnapshotTallies: counters larger than the bytes that follow them
// (a fact set's tally of supports that are not One, a relation's live
// rows) load: they count nothing in the bytes.
func TestSnapshotTallies(t *testing.T) {
	p := NewProgram()
	for i := range 300 {
		must(t, p.AddFact("seen", []string{"galahad", fmt.Sprint("place-", i)}, VarPoly("s-0")))
	}
	m := evalOK(t, p)
	if _, _, ok := snapRoundTrip(t, p, m); !ok {
		t.Fatal("snapshot refused")
	}
}

// TestSnapshotAfterClones: a clone of a program shares its interners and
// literals and adds to them (new predicates, constants, negated atoms);
// the program's snapshot, written after, holds what its model knew and
// loads.
func TestSnapshotAfterClones(t *testing.T) {
	p := NewProgram()
	must(t, p.AddFact("e", []string{"a", "b"}, VarPoly("x")))
	must(t, p.AddRule(parseRule("r", "f(X) :- e(X, Y), not g(Y)", One())))
	m := evalOK(t, p)
	want := fullDump(m)
	c := p.Clone()
	must(t, c.AddFact("seat", []string{"galahad", "perilous"}, VarPoly("y")))
	must(t, c.AddRule(parseRule("s", "h(X) :- seat(X, Y), not e(Y, X)", One())))
	must(t, c.AddFact("g", []string{"zz"}, VarPoly("z")))
	evalOK(t, c)
	q, qm, ok := snapRoundTrip(t, p, m)
	if !ok {
		t.Fatal("snapshot refused")
	}
	if fullDump(qm) != want {
		t.Fatal("the loaded model is not the program's")
	}
	must(t, q.AddFact("seat", []string{"x", "y"}, One()))
	if _, err := q.Eval(); err != nil {
		t.Fatal(err)
	}
}

// TestSnapshotRefusals: states a snapshot does not hold are refused with
// nothing written, and bytes a snapshot did not write are refused with
// an error, never loaded.
func TestSnapshotRefusals(t *testing.T) {
	p := NewProgram()
	must(t, p.AddFact("e", []string{"a", "b"}, VarPoly("x")))
	must(t, p.AddRule(parseRule("r", "f(X) :- e(X, Y)", One())))
	m := evalOK(t, p)
	var buf bytes.Buffer
	must(t, p.Snapshot(&buf, m))
	good := slices.Clone(buf.Bytes())

	must(t, p.AddFact("e", []string{"b", "c"}, One()))
	buf.Reset()
	if err := p.Snapshot(&buf, m); !errors.Is(err, ErrNoSnapshot) || buf.Len() != 0 {
		t.Fatalf("a program changed since its model: %v, %d bytes", err, buf.Len())
	}
	if err := p.Snapshot(&buf, nil); !errors.Is(err, ErrNoSnapshot) {
		t.Fatalf("no model: %v", err)
	}
	for i := 0; i < len(good); i += max(1, len(good)/97) {
		for _, mut := range []func([]byte) []byte{
			func(b []byte) []byte { return b[:i] },
			func(b []byte) []byte { b[i] ^= 0x41; return b },
			func(b []byte) []byte { b[i] = 0xff; return b },
		} {
			bad := mut(slices.Clone(good))
			func() {
				defer func() {
					if r := recover(); r != nil {
						t.Fatalf("byte %d: load panicked: %v", i, r)
					}
				}()
				for _, load := range []func([]byte) (*Program, *Model, error){LoadSnapshot, aliasedNoRelease} {
					q, qm, err := load(bad)
					if err == nil {
						// A change the checks cannot see must still be a working program.
						q.Eval()
						_ = fullDump(qm)
					}
				}
			}()
		}
	}
}

// TestShapeProgram: a shape program checks and notes facts as AddFact
// does, keeps none, and has the shape of the program that keeps them;
// another rule, support, arity or bound is another shape.
func TestShapeProgram(t *testing.T) {
	load := func(p *Program, rule Rule) error {
		p.SetBounds(Bounds{MaxStratumMonomials: 1 << 21})
		if err := p.AddFact("e", []string{"a", "b"}, VarPoly("x")); err != nil {
			return err
		}
		var b FactBatch
		fp, err := p.FactPred("e", 2)
		if err != nil {
			return err
		}
		b.Add(fp, []string{"b", "c"}, One())
		if err := p.AddFacts(&b); err != nil {
			return err
		}
		if err := p.AddFact("e", []string{"a"}, One()); err == nil {
			return errors.New("a fact of another arity passed")
		}
		return p.AddRule(rule)
	}
	rule := parseRule("r", "f(X) :- e(X, Y), not g(Y)", VarPoly("d"))
	full, shape := NewProgram(), NewShapeProgram()
	must(t, load(full, rule))
	must(t, load(shape, rule))
	if m := evalOK(t, shape); m.Len("e") != 0 || m.Len("f") != 0 {
		t.Fatalf("a shape program kept facts: e %d, f %d", m.Len("e"), m.Len("f"))
	}
	if !shape.SameShape(full) || !full.SameShape(shape) {
		t.Fatal("the shape of a program differs from it")
	}
	for name, other := range map[string]Rule{
		"support": parseRule("r", "f(X) :- e(X, Y), not g(Y)", VarPoly("d2")),
		"body":    parseRule("r", "f(X) :- e(X, Y), g(Y)", VarPoly("d")),
		"name":    parseRule("r2", "f(X) :- e(X, Y), not g(Y)", VarPoly("d")),
	} {
		p := NewShapeProgram()
		must(t, load(p, other))
		if p.SameShape(full) {
			t.Errorf("another rule's %s: same shape", name)
		}
	}
	p := NewShapeProgram()
	must(t, load(p, rule))
	must(t, p.AddFact("h", []string{"a"}, One()))
	if p.SameShape(full) {
		t.Error("another predicate: same shape")
	}
	// The same rules added in another order: the same shape.
	two := parseRule("r0", "g(X) :- e(X, X)", One())
	a, b := NewShapeProgram(), NewProgram()
	must(t, load(a, rule))
	must(t, a.AddRule(two))
	must(t, b.AddRule(two))
	must(t, load(b, rule))
	if !a.SameShape(b) {
		t.Error("the same rules in another order: another shape")
	}
	p = NewShapeProgram()
	must(t, load(p, rule))
	p.SetBounds(Bounds{})
	if p.SameShape(full) {
		t.Error("other bounds: same shape")
	}
}
