package datalog

import (
	"errors"
	"fmt"
	"strconv"
	"testing"
)

// TestFactPipeMatchesAddFacts: facts sent through a FactPipe, in batches
// of every size, some predicates resolved only in the pipe's Add and some
// facts given twice, make the program AddFacts makes: the same model and
// supports, the constants interned in the same order. A batch the pipe
// refuses adds the facts before the refused one and interns nothing
// after it, as AddFacts does.
func TestFactPipeMatchesAddFacts(t *testing.T) {
	batched, piped := addBatchedAndPiped(t, factPipeCorpus())
	rule := parseRule("r", "r(X, Y) :- e(X, Y), not q(Y)", VarPoly("h"))
	must(t, batched.AddRule(rule))
	must(t, piped.AddRule(rule))
	if got, want := fullDump(evalOK(t, piped)), fullDump(evalOK(t, batched)); got != want {
		t.Fatalf("the pipe's model differs from AddFacts's:\n%s\nwant\n%s", got, want)
	}
	if fmt.Sprint(piped.consts.snapshot().strings()) != fmt.Sprint(batched.consts.snapshot().strings()) {
		t.Fatal("the pipe interned the constants in another order")
	}
	checkPipeRefusal(t)
}

// factPipeCorpus is TestFactPipeMatchesAddFacts's facts: e edges, q and w
// facts among them, and a predicate first met mid-stream.
func factPipeCorpus() []batchFact {
	var facts []batchFact
	for i := range 3000 {
		x, y := "n"+strconv.Itoa(i%70), "n"+strconv.Itoa((i*7)%90)
		facts = append(facts, batchFact{"e", []string{x, y}, VarPoly("v" + strconv.Itoa(i%5))})
		if i%3 == 0 {
			facts = append(facts, batchFact{"q", []string{y}, VarPoly("q")})
		}
		if i == 1500 {
			facts = append(facts, batchFact{"late", []string{x, "a", y}, One()}) // first met mid-stream
		}
		if i%4 == 0 {
			facts = append(facts, batchFact{"w", []string{x, y, "a", "b"}, One()})
		}
	}
	return facts
}

// addBatchedAndPiped adds facts to two new programs in the same batches,
// one by AddFacts and one through a FactPipe, which it closes.
func addBatchedAndPiped(t *testing.T, facts []batchFact) (batched, piped *Program) {
	t.Helper()
	batched, piped = NewProgram(), NewProgram()
	other := NewProgram() // resolves "late" for the pipe: Add resolves it anew
	resolved, resolvedP := map[string]FactPred{}, map[string]FactPred{}
	var batch, pbatch FactBatch
	pipe := piped.Pipe()
	for i, f := range facts {
		fp, ok := resolved[f.pred]
		if !ok {
			var err error
			fp, err = batched.FactPred(f.pred, len(f.args))
			must(t, err)
			resolved[f.pred] = fp
		}
		batch.Add(fp, f.args, f.sup)
		pp, ok := resolvedP[f.pred]
		if !ok {
			var err error
			if f.pred == "late" {
				pp, err = other.FactPred(f.pred, len(f.args))
			} else {
				pipe.Wait()
				pp, err = piped.FactPred(f.pred, len(f.args))
			}
			must(t, err)
			resolvedP[f.pred] = pp
		}
		pbatch.Add(pp, f.args, f.sup)
		if i%97 == 0 || i%1024 == 0 || i == len(facts)-1 { // batches of all sizes, past internBatch
			must(t, batched.AddFacts(&batch))
			must(t, pipe.Add(&pbatch))
		}
	}
	if pbatch.Len() != 0 {
		t.Fatal("the pipe left facts in the batch")
	}
	pipe.Close()
	pipe.Close() // a second Close does nothing
	return batched, piped
}

// checkPipeRefusal sends a pipe a batch with a refused fact mid-batch, then
// one refused first: the facts before the refused one are added, nothing
// after it is interned.
func checkPipeRefusal(t *testing.T) {
	t.Helper()
	// A refused fact mid-batch.
	p := NewProgram()
	e, err := p.FactPred("e", 2)
	must(t, err)
	pipe := p.Pipe()
	var b FactBatch
	b.Add(e, []string{"before", "zero"}, One())
	b.Add(e, []string{"the", "zero"}, NewPoly())
	b.Add(e, []string{"after", "zero"}, One())
	err = pipe.Add(&b)
	var de *Error
	if !errors.As(err, &de) || de.Code != CodeZeroSupport {
		t.Fatalf("got %v, want %s", err, CodeZeroSupport)
	}
	if b.Len() != 0 {
		t.Fatal("a refused batch was left in place")
	}
	b.Add(e, []string{"c", "d"}, NewPoly()) // refused first: nothing to send
	if err := pipe.Add(&b); !errors.As(err, &de) || de.Code != CodeZeroSupport {
		t.Fatalf("got %v, want %s", err, CodeZeroSupport)
	}
	pipe.Close()
	if _, ok := p.consts.lookup("after"); ok {
		t.Fatal("a constant after the refused fact was interned")
	}
	m := evalOK(t, p)
	if m.Support("e", "before", "zero").IsZero() || !m.Support("e", "after", "zero").IsZero() {
		t.Fatal("the facts before the refused one are not all there, or one after it is")
	}
}
