package datalog

import "sync"

// FactPipe adds batches of facts as AddFacts does, in two stages on two
// goroutines: the caller's checks each fact and interns the batch's
// constants, and a goroutine of the pipe's own puts the facts into their
// relations, in the order they came, while the caller makes the next
// batch. A program lowered from millions of claims spends about as long
// on each stage (DL-0383).
//
// While a pipe is open, the program is the pipe's: nothing else may read
// or change it until Close returns, but for its constants' interner,
// which is safe for concurrent use. Wait returns once every batch sent is
// in the program, which Add also does before it resolves a predicate
// anew; Close waits and ends the goroutine.
type FactPipe struct {
	p    *Program
	work chan *pipedFacts
	free chan *pipedFacts
	busy sync.WaitGroup
	done chan struct{}
}

// pipedFacts is one batch in the pipe: each fact's predicate, support and
// interned constants, end to end.
type pipedFacts struct {
	preds []FactPred
	sups  []Poly
	ids   []uint32
}

// pipeDepth is how many batches may be in the pipe at once: one being
// put, one waiting, one being made.
const pipeDepth = 3

// Pipe opens a FactPipe over p.
func (p *Program) Pipe() *FactPipe {
	fp := &FactPipe{p: p, work: make(chan *pipedFacts, pipeDepth), free: make(chan *pipedFacts, pipeDepth), done: make(chan struct{})}
	for range pipeDepth {
		fp.free <- &pipedFacts{}
	}
	go fp.put()
	return fp
}

// put puts each batch sent into the program, in order.
func (fp *FactPipe) put() {
	defer close(fp.done)
	for b := range fp.work {
		fp.p.putFacts(b.preds, b.ids, b.sups)
		clear(b.sups) // the supports are not kept alive by a spare batch
		b.preds, b.sups, b.ids = b.preds[:0], b.sups[:0], b.ids[:0]
		fp.busy.Done()
		fp.free <- b
	}
}

// Add adds b's facts in order, as AddFacts does, and empties b: it stops
// at the first fact AddFacts would refuse, returning its error, the facts
// before it sent.
func (fp *FactPipe) Add(b *FactBatch) error {
	p := fp.p
	if p.shape {
		return p.AddFacts(b)
	}
	defer b.reset()
	stop, end, err := p.checkBatch(b, fp.Wait) // resolving may change the tables the puts read
	if stop == 0 {
		return err
	}
	out := <-fp.free
	out.ids = append(out.ids, make([]uint32, end)...)
	p.consts.internMany(b.args[:end], out.ids)
	out.preds = append(out.preds, b.preds[:stop]...)
	out.sups = append(out.sups, b.sups[:stop]...)
	fp.busy.Add(1)
	fp.work <- out
	return err
}

// Wait returns once every batch sent is in the program.
func (fp *FactPipe) Wait() { fp.busy.Wait() }

// Close waits for the batches sent and ends the pipe's goroutine; the
// program is the caller's again. It may be called more than once.
func (fp *FactPipe) Close() {
	select {
	case <-fp.done:
		return
	default:
	}
	fp.Wait()
	close(fp.work)
	<-fp.done
}
