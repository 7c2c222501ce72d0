package author

import (
	"fmt"
	"testing"
	"time"

	"github.com/deloreis/deloreis/lorestore"
	"github.com/deloreis/deloreis/objects"
)

// identityComponent commits a scope "folk" of `size` persons joined into
// one identity component by a chain of same-as links: the links of each
// half cite d-kin, and the one link between the halves cites d-bridge.
// Every person has a home fact. It returns the service, its registry, an
// open workspace and the bridge link's claim id.
func identityComponent(tb testing.TB, size int) (*Service, map[string]testOp, string, objects.ID) {
	tb.Helper()
	s, err := lorestore.Init(tb.TempDir(), lorestore.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { s.Close() })
	b := s.NewBatch()
	kin, bridge := objects.Cited(objects.CitedRatified, "d-kin"), objects.Cited(objects.CitedRatified, "d-bridge")
	objs := []objects.Object{&objects.Decision{Ident: "d-kin"}, &objects.Decision{Ident: "d-bridge"},
		&objects.Entity{Kind: objects.KindPlace, Ident: "hall", Name: "Hall", Provenance: kin}}
	var bridgeID objects.ID
	for i := 0; i < size; i++ {
		p := fmt.Sprintf("p-%d", i)
		objs = append(objs, &objects.Entity{Kind: objects.KindPerson, Ident: p, Name: p, Provenance: kin},
			&objects.Fact{Entity: p, Key: "home", Value: fmt.Sprintf("room-%d", i), Provenance: kin})
		if i == 0 {
			continue
		}
		link := &objects.SameAs{Left: fmt.Sprintf("p-%d", i-1), Right: p, Provenance: kin}
		if i == size/2 {
			link.Provenance = bridge
			bridgeID, _ = link.ID()
		}
		objs = append(objs, link)
	}
	for _, o := range objs {
		if _, err := b.Put("folk", o); err != nil {
			tb.Fatal(err)
		}
	}
	if _, err := s.Commit(b, lorestore.NewMessage("materialize folk: one component", "materialize", "folk"), lorestore.CommitOptions{}); err != nil {
		tb.Fatal(err)
	}
	svc, err := New(Config{Store: s, Documents: []string{"folk"}})
	if err != nil {
		tb.Fatal(err)
	}
	reg := testOps(svc)
	ws, err := svc.Open("folk", "")
	if err != nil {
		tb.Fatal(err)
	}
	return svc, reg, ws.ID(), bridgeID
}

// answersFor queries home(p, Y) through the registry and returns the
// grade of each answer by value.
func answersFor(tb testing.TB, reg map[string]testOp, ws, person string) map[string]string {
	tb.Helper()
	q := dispatch(tb, reg, "author.query", map[string]any{"workspace": ws, "goal": map[string]any{"pred": "home",
		"args": []any{map[string]any{"const": person}, map[string]any{"var": "Y"}}}, "limit": 1000})
	out := map[string]string{}
	for _, a := range q["answers"].([]any) {
		m := a.(map[string]any)
		out[m["args"].([]any)[1].(string)] = m["grade"].(string)
	}
	return out
}

// TestDefeatUnmergesIdentityWithoutFixpoint (issue 10, acceptance 4):
// author.defeat of the decision under the bridge of a 1,000-member
// identity component un-merges it on the next read; neither the world is
// compiled again nor any stratum of its datalog model evaluated afresh.
func TestDefeatUnmergesIdentityWithoutFixpoint(t *testing.T) {
	const size = 1000
	svc, reg, ws, bridge := identityComponent(t, size)
	far := fmt.Sprintf("room-%d", size-1)
	if g := answersFor(t, reg, ws, "p-0"); len(g) != size || g[far] != "certain" {
		t.Fatalf("before the defeat p-0 has %d homes, %s %q", len(g), far, g[far])
	}
	compiles := svc.cache.compileCount()
	dispatch(t, reg, "author.defeat", map[string]any{"workspace": ws, "claim_id": bridge.String(), "decision": "d-split", "defeated_decision": "d-bridge"})
	g := answersFor(t, reg, ws, "p-0")
	certain := 0
	for _, grade := range g {
		if grade == "certain" {
			certain++
		}
	}
	if certain != size/2 || g[far] == "certain" || g["room-0"] != "certain" {
		t.Fatalf("after the defeat p-0 has %d certain homes (want %d); %s is %q", certain, size/2, far, g[far])
	}
	if n := svc.cache.compileCount() - compiles; n != 0 {
		t.Fatalf("the defeat compiled %d worlds", n)
	}
	w, _ := svc.workspace(ws)
	w.mu.Lock()
	st := w.baseWorld.EvalStats()
	w.mu.Unlock()
	if fresh := st.Strata - st.Reused - st.Maintained; fresh != 0 {
		t.Fatalf("the defeat evaluated %d of %d strata from scratch: %+v", fresh, st.Strata, st)
	}
}

// BenchmarkDefeatIdentity1000 times author.defeat of the bridge under a
// 1,000-member identity component until the next author.query reads it
// un-merged.
func BenchmarkDefeatIdentity1000(b *testing.B) {
	var total time.Duration
	for it := 0; it < b.N; it++ {
		b.StopTimer()
		_, reg, ws, bridge := identityComponent(b, 1000)
		answersFor(b, reg, ws, "p-0") // the first read builds the closure, as a live workspace has
		b.StartTimer()
		t0 := time.Now()
		dispatch(b, reg, "author.defeat", map[string]any{"workspace": ws, "claim_id": bridge.String(), "decision": "d-split", "defeated_decision": "d-bridge"})
		if g := answersFor(b, reg, ws, "p-999"); g["room-0"] == "certain" {
			b.Fatal("still merged after the defeat")
		}
		total += time.Since(t0)
	}
	b.ReportMetric(float64(total.Microseconds())/1000/float64(b.N), "ms/defeat-to-read")
}
