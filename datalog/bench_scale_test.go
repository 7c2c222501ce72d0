//go:build unix

package datalog

import (
	"flag"
	"strconv"
	"syscall"
	"testing"
	"time"
)

var scaleN = flag.Int("scale.n", 100000, "objects of the scale world (BenchmarkScaleWorld)")

// scaleKeys and scaleRules are the shape of bench/scale's world: persons,
// nine facts each over ten keys, and 18 rules with a recursion and four
// negations.
var scaleKeys = [10]string{"home", "title", "liege", "sword", "steed", "oath", "kin", "rival", "mentor", "fame"}

var scaleRules = []trule{
	{"lineage-base", "lineage(X, Y) :- mentor(X, Y)", One()},
	{"lineage-step", "lineage(X, Z) :- lineage(X, Y), mentor(Y, Z)", One()},
	{"vassal", "vassal(X, Y) :- liege(X, Y)", One()},
	{"knight", "knight(X) :- title(X, v1)", One()},
	{"armed", "armed(X) :- sword(X, Y)", One()},
	{"mounted", "mounted(X) :- steed(X, Y)", One()},
	{"errant", "errant(X) :- armed(X), mounted(X), not vassal(X, p-0)", One()},
	{"sworn", "sworn(X) :- oath(X, Y)", One()},
	{"forsworn", "forsworn(X) :- person(X), not sworn(X)", One()},
	{"kin-of", "kinship(X, Y) :- kin(X, Y)", One()},
	{"kin-back", "kinship(Y, X) :- kin(X, Y)", One()},
	{"famous", "famous(X) :- fame(X, v1)", One()},
	{"housed", "housed(X) :- home(X, Y)", One()},
	{"homeless", "homeless(X) :- person(X), not housed(X)", One()},
	{"court", "court(X, Z) :- vassal(X, Y), home(Y, Z)", One()},
	{"hero", "hero(X) :- famous(X), knight(X)", One()},
	{"legend", "legend(X) :- hero(X), not forsworn(X)", One()},
	{"student", "student(Y) :- mentor(X, Y)", One()},
}

// scaleValue is person p's value for key k, as bench/scale gives it.
func scaleValue(p, np int, k string) string {
	switch k {
	case "home":
		return "place-" + strconv.Itoa(p%1000)
	case "title":
		return "v" + strconv.Itoa(p%5)
	case "fame":
		return "v" + strconv.Itoa(p%3)
	case "liege":
		return "p-" + strconv.Itoa(p-p%4)
	case "kin":
		return "p-" + strconv.Itoa(min(p^1, np-1))
	case "rival":
		return "p-" + strconv.Itoa((p+np/2)%np)
	case "mentor":
		next := p - p%4 + (p+1)%4
		if next >= np {
			next = p - p%4
		}
		return "p-" + strconv.Itoa(next)
	}
	return "s-" + strconv.Itoa(p%50)
}

// scaleFacts calls fn with every fact of the n-object scale world.
func scaleFacts(n int, fn func(pred string, args []string)) {
	np := max(1, n/10)
	for p := range np {
		id := "p-" + strconv.Itoa(p)
		fn("person", []string{id})
		for j := 1; j <= 9; j++ {
			k := scaleKeys[(p+j)%len(scaleKeys)]
			fn(k, []string{id, scaleValue(p, np, k)})
		}
	}
}

// BenchmarkScaleWorld builds bench/scale's world of -scale.n objects as a
// program, fact by fact with AddFact (every fact under one variable, as a
// world gives proposed claims), and evaluates it: the two halves of a
// world compile that the datalog package owns.
func BenchmarkScaleWorld(b *testing.B) { benchScaleWorld(b, nil) }

// BenchmarkScaleWorldBatched is BenchmarkScaleWorld adding the facts as
// world.lower does: resolved predicates, in batches (AddFacts).
func BenchmarkScaleWorldBatched(b *testing.B) { benchScaleWorld(b, addBatched) }

// BenchmarkScaleWorldPiped is BenchmarkScaleWorldBatched with the
// batches sent through a FactPipe, as world.lower sends them: the puts on
// a goroutine of their own (DL-0383).
func BenchmarkScaleWorldPiped(b *testing.B) { benchScaleWorld(b, addPiped) }

func benchScaleWorld(b *testing.B, batched func(testing.TB, *Program, Poly)) {
	sup := VarPoly("proposed")
	var add, eval, addCPU, evalCPU time.Duration
	var atoms int
	for b.Loop() {
		t0, c0 := time.Now(), cpuTime()
		p := NewProgram()
		if batched != nil {
			batched(b, p, sup)
		} else {
			scaleFacts(*scaleN, func(pred string, args []string) {
				if err := p.AddFact(pred, args, sup); err != nil {
					b.Fatal(err)
				}
			})
		}
		for _, r := range scaleRules {
			must(b, p.AddRule(parseRule(r.name, r.text, r.sup)))
		}
		t1, c1 := time.Now(), cpuTime()
		m, err := p.Eval()
		if err != nil {
			b.Fatal(err)
		}
		add, addCPU = add+t1.Sub(t0), addCPU+c1-c0
		eval, evalCPU = eval+time.Since(t1), evalCPU+cpuTime()-c1
		atoms = m.Stats().Atoms
	}
	b.ReportMetric(float64(add.Milliseconds())/float64(b.N), "add-ms")
	b.ReportMetric(float64(eval.Milliseconds())/float64(b.N), "eval-ms")
	b.ReportMetric(float64(addCPU.Milliseconds())/float64(b.N), "add-cpu-ms")
	b.ReportMetric(float64(evalCPU.Milliseconds())/float64(b.N), "eval-cpu-ms")
	b.ReportMetric(float64(atoms), "atoms")
}

// addBatched adds the scale world's facts through FactPred and AddFacts.
func addBatched(b testing.TB, p *Program, sup Poly) {
	addIn(b, p, sup, p.AddFacts, func() {})
}

// addPiped adds them through FactPred and a FactPipe.
func addPiped(b testing.TB, p *Program, sup Poly) {
	pipe := p.Pipe()
	defer pipe.Close()
	addIn(b, p, sup, pipe.Add, pipe.Wait)
}

// addIn adds the scale world's facts in batches of 1,024 through add,
// each predicate resolved once, after wait.
func addIn(b testing.TB, p *Program, sup Poly, add func(*FactBatch) error, wait func()) {
	preds := map[string]FactPred{}
	var batch FactBatch
	scaleFacts(*scaleN, func(pred string, args []string) {
		fp, ok := preds[pred]
		if !ok {
			var err error
			wait()
			if fp, err = p.FactPred(pred, len(args)); err != nil {
				b.Fatal(err)
			}
			preds[pred] = fp
		}
		batch.Add(fp, args, sup)
		if batch.Len() == 1024 {
			must(b, add(&batch))
		}
	})
	must(b, add(&batch))
}

// cpuTime is the CPU the process used so far, the collector's included: on
// a loaded machine a fairer measure than the wall clock.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
