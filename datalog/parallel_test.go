// This file holds the property test of parallel evaluation (parallel.go):
// over the random and shaped program generators, with provenance and
// bounds that cut and spill, a model evaluated in parallel at GOMAXPROCS
// 1, 2 and 8 (the test hook splitting even tiny rounds into tasks) is the
// sequential one: the same atoms and supports, the same grades, the same
// snapshot bytes.

package datalog

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"
)

// merged returns the batches merged so far, without and with provenance,
// the parallel hash placements, those stopped for the table to grow, the
// growths of tables of many segments, and the placements made as the new
// tuples are found and those of them stopped for the table to grow.
func merged() [7]int64 {
	return [7]int64{parMerged.sets.Load(), parMerged.poly.Load(), parMerged.placed.Load(), parMerged.grown.Load(), parMerged.regrown.Load(),
		parMerged.flat.Load(), parMerged.flatGrown.Load()}
}

// withParallel runs f at GOMAXPROCS procs with rounds split into tasks of
// chunk rows (0: as the engine chooses; -1: the sequential evaluation),
// restoring both after.
func withParallel(procs, chunk int, f func()) {
	old := runtime.GOMAXPROCS(procs)
	parForceChunk.Store(int32(chunk))
	defer func() {
		runtime.GOMAXPROCS(old)
		parForceChunk.Store(0)
	}()
	f()
}

// fingerprint evaluates np under b and renders everything a model shows:
// atoms with supports, the grades of every atom under v, and a hash of the
// snapshot's bytes (rows, row numbers, hashes, interned literals).
func fingerprint(t *testing.T, np nProgram, b Bounds, v MapValuation) string {
	t.Helper()
	p, err := np.load(identity(len(np.facts)), identity(len(np.rules)), b)
	if err != nil {
		t.Fatal(err)
	}
	m, err := p.Eval()
	if err != nil {
		return fmt.Sprint(err)
	}
	var out bytes.Buffer
	out.WriteString(dump(m))
	for _, pred := range m.Preds() {
		for _, f := range m.Facts(pred) {
			fmt.Fprintf(&out, "%s: %v\n", renderAtom(pred, f.Args), m.Grade(pred, f.Args, v))
		}
	}
	rawDump(&out, p, m)
	return out.String()
}

// modelDigest evaluates p and returns the sizes of preds in its model and
// a hash of what the snapshot holds (rawDump): two evaluations that agree
// byte for byte have the same digest.
func modelDigest(t *testing.T, p *Program, preds ...string) string {
	t.Helper()
	m := evalOK(t, p)
	var out bytes.Buffer
	rawDump(&out, p, m)
	var sizes []string
	for _, pred := range preds {
		sizes = append(sizes, fmt.Sprintf("%d %s", m.Len(pred), pred))
	}
	return fmt.Sprintf("%s, %x", strings.Join(sizes, ", "), sha256.Sum256(out.Bytes()))
}

// rawDump renders what the snapshot holds (rows by number, supports by
// literal id, taint, interned literals), or hashes the snapshot itself
// when the model has one.
func rawDump(out *bytes.Buffer, p *Program, m *Model) {
	var snap bytes.Buffer
	if err := p.Snapshot(&snap, m); err == nil {
		fmt.Fprintf(out, "snapshot %x\n", sha256.Sum256(snap.Bytes()))
		return
	}
	for _, rel := range m.rels.all() {
		if rel == nil {
			continue
		}
		for row := range uint32(rel.n) {
			fmt.Fprintf(out, "%d/%d %v alive %v taint %v:", rel.pred, row, rel.row(row), rel.alive(row), rel.tainted(row))
			for _, u := range rel.poly(row) {
				fmt.Fprintf(out, " %v", u.lits)
			}
			out.WriteByte('\n')
		}
	}
	lits := p.lits.snapshot()
	for id := range uint32(m.info.len()) {
		fmt.Fprintf(out, "lit %d %+v\n", id, lits.at(id))
	}
}

// parPrograms returns the programs the property test compares: random
// ones and shaped ones, with provenance (their facts and rules carry
// support variables).
func parPrograms() []nProgram {
	var nps []nProgram
	for seed := range uint64(60) {
		nps = append(nps, genProgram(rand.New(rand.NewPCG(seed, 31)), genDefault))
		nps = append(nps, genShaped(rand.New(rand.NewPCG(seed, 32)), shapeSmall))
	}
	for seed := range uint64(2) {
		nps = append(nps, genShaped(rand.New(rand.NewPCG(seed, 8)), shapeLarge))
	}
	return nps
}

func TestParallelMatchesSequential(t *testing.T) {
	// Exact supports; cut to small bounds; past the stratum budget (spill,
	// then relational rounds).
	bounds := []Bounds{
		{MaxMonomials: 1 << 20, MaxMonomialSize: 1 << 20, MaxStratumMonomials: 1 << 30},
		{MaxMonomials: 2, MaxMonomialSize: 3},
		{MaxStratumMonomials: 4},
	}
	runs := []struct{ procs, chunk int }{{1, 1}, {2, 1}, {2, 3}, {8, 1}, {8, 2}}
	before := merged()
	for i, np := range parPrograms() {
		v := randomValuation(rand.New(rand.NewPCG(uint64(i), 33)), 5)
		for _, b := range bounds {
			var want string
			withParallel(1, -1, func() { want = fingerprint(t, np, b, v) })
			for _, run := range runs {
				var got string
				withParallel(run.procs, run.chunk, func() { got = fingerprint(t, np, b, v) })
				if got != want {
					t.Fatalf("program %d, bounds %+v, GOMAXPROCS %d, tasks of %d rows: parallel differs from sequential\nparallel:\n%s\nsequential:\n%s\nrules %v",
						i, b, run.procs, run.chunk, got, want, np.rules)
				}
			}
		}
	}
	// The parallel path ran, with and without provenance.
	if n := merged(); n[0]-before[0] < 100 || n[1]-before[1] < 100 || n[2]-before[2] < 100 || n[3]-before[3] < 10 || n[5]-before[5] < 30 || n[6]-before[6] < 5 {
		t.Fatalf("parallel batches merged: %d without provenance, %d with; hash placements %d, %d stopped to grow, %d as found, %d of those stopped: the test did not exercise them",
			n[0]-before[0], n[1]-before[1], n[2]-before[2], n[3]-before[3], n[5]-before[5], n[6]-before[6])
	}
	t.Logf("batches %v", merged())
}

// layeredEdges joins each of three layers of w nodes to every node of the
// next: a transitive closure of two wide rounds.
func layeredEdges(w int) edgeList {
	var es edgeList
	for l := range 2 {
		for i := range w {
			for j := range w {
				es = append(es, [2]int{l*w + i, (l+1)*w + j})
			}
		}
	}
	return es
}

// TestParallelLargeRound takes the parallel path without the test hook:
// rounds over more rows than parMinRows, at GOMAXPROCS 2, and without
// provenance at 1 (one worker, DL-0492), give the sequential model byte
// for byte.
func TestParallelLargeRound(t *testing.T) {
	for _, prov := range []bool{false, true} {
		fp := func() string {
			es := gridEdges(30) // 215,325 atoms: a hash of many segments
			if prov {
				es = layeredEdges(60)
			}
			return modelDigest(t, tcProgram(t, es, prov), "path")
		}
		var want string
		withParallel(1, -1, func() { want = fp() })
		for _, procs := range []int{1, 2} {
			var got string
			before := merged()
			withParallel(procs, 0, func() { got = fp() })
			if got != want {
				t.Fatalf("provenance %v, GOMAXPROCS %d: parallel %s, sequential %s", prov, procs, got, want)
			}
			n := merged()
			if ran := n[btoi(prov)] > before[btoi(prov)]; ran != (procs > 1 || !prov) {
				t.Fatalf("provenance %v, GOMAXPROCS %d: batches ran: %v", prov, procs, ran)
			}
			if !prov && (n[2] == before[2] || n[3] == before[3] || n[4] == before[4] || n[5] == before[5] || n[6] == before[6]) {
				t.Fatalf("GOMAXPROCS %d: hash placements %d, stopped to grow %d, grown on every worker %d, placed as found %d, of those stopped %d: the parallel insert did not run",
					procs, n[2]-before[2], n[3]-before[3], n[4]-before[4], n[5]-before[5], n[6]-before[6])
			}
		}
	}
}

// TestParallelBudget stops a parallel evaluation on its budget: the
// worker's stop reaches the caller as the budget error.
func TestParallelBudget(t *testing.T) {
	withParallel(2, 2, func() {
		p := tcProgram(t, chainEdges(200), false)
		_, err := p.EvalContext(context.Background(), Limits{MaxDerivations: 5000})
		if code, ok := IsBudget(err); !ok || code != CodeBudgetDerivations {
			t.Fatalf("got %v, want the derivations budget error", err)
		}
	})
}
