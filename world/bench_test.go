// Benchmarks of the world: compiling a 100,000-fact world with 20 rules
// (recursion and negation among them), and staging one more fact over it —
// the from-scratch compile beside the staged recompile, with median and
// p95 latency and peak memory.

package world

import (
	"fmt"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/deloreis/deloreis/objects"
)

// bigWorld is a lore-shaped world: 2,000 people, 100,000 facts over ten
// keys (one of them a recursive "mentor" chain source), a few decisions,
// and 20 rules including a transitive closure and a negation.
func bigWorld(tb testing.TB) []objects.Object {
	tb.Helper()
	var objs []objects.Object
	for d := 0; d < 5; d++ {
		objs = append(objs, &objects.Decision{Ident: fmt.Sprintf("canon-%d", d)})
	}
	const people = 2000
	for i := 0; i < people; i++ {
		objs = append(objs, &objects.Entity{Kind: objects.KindPerson, Ident: fmt.Sprintf("p%d", i), Name: fmt.Sprintf("Person %d", i), Provenance: objects.Proposed("s")})
	}
	keys := []string{"home", "title", "liege", "sword", "steed", "oath", "kin", "rival", "mentor", "fame"}
	for n := len(objs); len(objs) < n+100_000-people; {
		i := len(objs)
		key := keys[i%len(keys)]
		value := fmt.Sprintf("v%d", i%97)
		if key == "mentor" || key == "liege" || key == "kin" {
			value = fmt.Sprintf("p%d", (i*7)%people)
		}
		prov := objects.Proposed("s")
		if i%3 == 0 {
			prov = objects.Cited(objects.CitedRatified, fmt.Sprintf("canon-%d", i%5))
		}
		objs = append(objs, &objects.Fact{Entity: fmt.Sprintf("p%d", i%people), Key: key, Value: value, Provenance: prov})
	}
	X, Y, Z := objects.Var("X"), objects.Var("Y"), objects.Var("Z")
	atom := func(p string, ts ...objects.Term) objects.Atom { return objects.Atom{Pred: p, Args: ts} }
	pos := func(a objects.Atom) objects.Literal { return objects.Literal{Atom: a} }
	neg := func(a objects.Atom) objects.Literal { return objects.Literal{Atom: a, Negated: true} }
	rules := []*objects.Rule{
		{Name: "lineage-base", Head: atom("lineage", X, Y), Body: []objects.Literal{pos(atom("mentor", X, Y))}},
		{Name: "lineage-step", Head: atom("lineage", X, Z), Body: []objects.Literal{pos(atom("lineage", X, Y)), pos(atom("mentor", Y, Z))}},
		{Name: "vassal", Head: atom("vassal", X, Y), Body: []objects.Literal{pos(atom("liege", X, Y))}},
		{Name: "knight", Head: atom("knight", X), Body: []objects.Literal{pos(atom("title", X, objects.Const("v1")))}},
		{Name: "armed", Head: atom("armed", X), Body: []objects.Literal{pos(atom("sword", X, Y))}},
		{Name: "mounted", Head: atom("mounted", X), Body: []objects.Literal{pos(atom("steed", X, Y))}},
		{Name: "errant", Head: atom("errant", X), Body: []objects.Literal{pos(atom("armed", X)), pos(atom("mounted", X)), neg(atom("vassal", X, objects.Const("p0")))}},
		{Name: "sworn", Head: atom("sworn", X), Body: []objects.Literal{pos(atom("oath", X, Y))}},
		{Name: "forsworn", Head: atom("forsworn", X), Body: []objects.Literal{pos(atom("person", X)), neg(atom("sworn", X))}},
		{Name: "kin-sym", Head: atom("kinship", X, Y), Body: []objects.Literal{pos(atom("kin", X, Y))}},
		{Name: "kin-back", Head: atom("kinship", Y, X), Body: []objects.Literal{pos(atom("kin", X, Y))}},
		{Name: "feud", Head: atom("feud", X, Y), Body: []objects.Literal{pos(atom("rival", X, Y))}},
		{Name: "famous", Head: atom("famous", X), Body: []objects.Literal{pos(atom("fame", X, objects.Const("v3")))}},
		{Name: "housed", Head: atom("housed", X), Body: []objects.Literal{pos(atom("home", X, Y))}},
		{Name: "homeless", Head: atom("homeless", X), Body: []objects.Literal{pos(atom("person", X)), neg(atom("housed", X))}},
		{Name: "court", Head: atom("court", X, Z), Body: []objects.Literal{pos(atom("vassal", X, Y)), pos(atom("home", Y, Z))}},
		{Name: "peer", Head: atom("peer", X, Y), Body: []objects.Literal{pos(atom("liege", X, Z)), pos(atom("liege", Y, Z))}},
		{Name: "hero", Head: atom("hero", X), Body: []objects.Literal{pos(atom("famous", X)), pos(atom("knight", X))}},
		{Name: "legend", Head: atom("legend", X), Body: []objects.Literal{pos(atom("hero", X)), neg(atom("forsworn", X))}},
		{Name: "student", Head: atom("student", Y), Body: []objects.Literal{pos(atom("mentor", X, Y))}},
	}
	for _, r := range rules {
		r.Provenance = objects.Cited(objects.CitedRatified, "canon-0")
		objs = append(objs, r)
	}
	return objs
}

func entriesOf(tb testing.TB, objs []objects.Object) []Entry {
	out := make([]Entry, len(objs))
	for i, o := range objs {
		id, err := o.ID()
		if err != nil {
			tb.Fatal(err)
		}
		out[i] = Entry{ID: id, Object: o}
	}
	return out
}

func reportLatency(b *testing.B, ds []time.Duration, peak uint64) {
	slices.Sort(ds)
	b.ReportMetric(float64(ds[len(ds)/2].Microseconds())/1000, "median-ms")
	b.ReportMetric(float64(ds[len(ds)*95/100].Microseconds())/1000, "p95-ms")
	b.ReportMetric(float64(peak)/(1<<20), "peak-MB")
}

func heapNow() uint64 {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// timeEach runs step once per benchmark iteration, timing only what step
// times itself through the returned func, and reports the median, the p95
// and the peak heap.
func timeEach(b *testing.B, step func(i int, timed func(func() error))) {
	var ds []time.Duration
	var peak uint64
	i := 0
	for b.Loop() {
		step(i, func(f func() error) {
			t0 := time.Now()
			if err := f(); err != nil {
				b.Fatal(err)
			}
			ds = append(ds, time.Since(t0))
			peak = max(peak, heapNow())
		})
		i++
	}
	reportLatency(b, ds, peak)
}

// compiled is the compiled 100,000-fact world (with extra objects).
func compiled(b *testing.B, extra ...objects.Object) *World {
	w, err := Compile(Input{Scope: "camelot", Base: entriesOf(b, append(bigWorld(b), extra...))})
	if err != nil {
		b.Fatal(err)
	}
	return w
}

// benchStage times staging one object (from next) over w.
func benchStage(b *testing.B, w *World, next func(i int) objects.Object) {
	timeEach(b, func(i int, timed func(func() error)) {
		o := next(i)
		timed(func() error { _, err := w.Stage([]objects.Object{o}, nil); return err })
	})
}

func BenchmarkCompile100k(b *testing.B) {
	base := entriesOf(b, bigWorld(b))
	timeEach(b, func(i int, timed func(func() error)) {
		f := &objects.Fact{Entity: "p1", Key: "title", Value: fmt.Sprintf("new-%d", i), Provenance: objects.Proposed("s")}
		timed(func() error {
			_, err := Compile(Input{Scope: "camelot", Base: base, Staged: []objects.Object{f}})
			return err
		})
	})
}

// stagedFacts are the facts the staging benchmarks add: one read by plain
// rules, one feeding the recursive lineage, one under a negation.
var stagedFacts = []struct {
	name string
	fact func(i int) *objects.Fact
}{
	{"plain", func(i int) *objects.Fact {
		return &objects.Fact{Entity: "p1", Key: "title", Value: fmt.Sprintf("new-%d", i), Provenance: objects.Proposed("s")}
	}},
	{"recursive", func(i int) *objects.Fact {
		return &objects.Fact{Entity: fmt.Sprintf("p%d", i%2000), Key: "mentor", Value: fmt.Sprintf("p%d", (i*13+5)%2000), Provenance: objects.Proposed("s")}
	}},
	{"negated", func(i int) *objects.Fact {
		return &objects.Fact{Entity: fmt.Sprintf("p%d", i%2000), Key: "oath", Value: fmt.Sprintf("new-%d", i), Provenance: objects.Proposed("s")}
	}},
}

// BenchmarkStageOneFact100k stages one fact over the compiled 100,000-fact
// world; BenchmarkDiscardOneFact100k takes one staged fact back.
func BenchmarkStageOneFact100k(b *testing.B) {
	w := compiled(b)
	for _, sf := range stagedFacts {
		b.Run(sf.name, func(b *testing.B) {
			benchStage(b, w, func(i int) objects.Object { return sf.fact(i) })
		})
	}
}

func BenchmarkDiscardOneFact100k(b *testing.B) {
	w := compiled(b)
	for _, sf := range stagedFacts {
		b.Run(sf.name, func(b *testing.B) {
			timeEach(b, func(i int, timed func(func() error)) {
				f := sf.fact(i)
				b.StopTimer()
				w1, err := w.Stage([]objects.Object{f}, nil)
				if err != nil {
					b.Fatal(err)
				}
				id, _ := f.ID()
				b.StartTimer()
				timed(func() error { _, err := w1.Stage(nil, []objects.ID{id}); return err })
			})
		})
	}
}

// BenchmarkStageSameAs100k stages one more same-as claim over the
// 100,000-fact world with 50 identities already in it: the facts of both
// people cross to each other, through the identity rules.
func BenchmarkStageSameAs100k(b *testing.B) {
	benchStage(b, compiled(b, identities()...), func(i int) objects.Object {
		return &objects.SameAs{Left: fmt.Sprintf("p%d", 100+i%1900), Right: fmt.Sprintf("p%d", 100+(i*7+3)%1900), Provenance: objects.Proposed("s")}
	})
}

// identities are 50 same-as claims between the people of bigWorld.
func identities() []objects.Object {
	var ids []objects.Object
	for i := 0; i < 50; i++ {
		ids = append(ids, &objects.SameAs{Left: fmt.Sprintf("p%d", 2*i), Right: fmt.Sprintf("p%d", 2*i+1), Provenance: objects.Cited(objects.CitedRatified, "canon-1")})
	}
	return ids
}

// BenchmarkStageEntityUnderIdentity100k stages a new person in the
// 100,000-fact world with 50 identities in it.
func BenchmarkStageEntityUnderIdentity100k(b *testing.B) {
	benchStage(b, compiled(b, identities()...), func(i int) objects.Object {
		return &objects.Entity{Kind: objects.KindPerson, Ident: fmt.Sprintf("newcomer-%d", i), Name: "Newcomer", Provenance: objects.Proposed("s")}
	})
}

// BenchmarkStageRule100k stages one new rule (a join under a negation
// over derived predicates) over the 100,000-fact world: only the strata
// it adds are evaluated.
func BenchmarkStageRule100k(b *testing.B) {
	X := objects.Var("X")
	benchStage(b, compiled(b), func(i int) objects.Object {
		return &objects.Rule{Name: fmt.Sprintf("squire-%d", i),
			Head: objects.Atom{Pred: fmt.Sprintf("squire-%d", i), Args: []objects.Term{X}},
			Body: []objects.Literal{
				{Atom: objects.Atom{Pred: "armed", Args: []objects.Term{X}}},
				{Atom: objects.Atom{Pred: "mounted", Args: []objects.Term{X}}, Negated: true},
			},
			Provenance: objects.Proposed("s")}
	})
}

// BenchmarkStageDecision100k records one more decision over the
// 100,000-fact world: the valuation moves, the program does not.
func BenchmarkStageDecision100k(b *testing.B) {
	benchStage(b, compiled(b), func(i int) objects.Object {
		return &objects.Decision{Ident: fmt.Sprintf("ruling-%d", i)}
	})
}

// BenchmarkStageAttack100k defeats, on one claim, the decision it cites
// over the 100,000-fact world: the claim's atoms change support and the
// valuation moves.
func BenchmarkStageAttack100k(b *testing.B) {
	var cited []objects.ID
	for _, o := range bigWorld(b) {
		if f, ok := o.(*objects.Fact); ok && f.Provenance.Kind == objects.ProvenanceCited && f.Provenance.Decisions[0] == "canon-0" {
			id, _ := f.ID()
			cited = append(cited, id)
		}
	}
	benchStage(b, compiled(b), func(i int) objects.Object {
		return &objects.Attack{Attacker: "canon-1", Target: "canon-0", Claim: cited[i%len(cited)]}
	})
}
