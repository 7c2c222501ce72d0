// Streaming a commit's changes for show: the diff walks in one goroutine,
// a few more read and prepare the changed objects (inflate, verify,
// decode, and whatever the caller renders), and the caller's goroutine
// receives them in the diff's order. Nothing holds the list of changes:
// a commit of millions of objects is shown with a few chunks in flight.

package lorestore

import (
	"errors"
	"runtime"
	"sync"

	"github.com/deloreis/deloreis/objects"
)

// showChunk is how many changes travel together between the goroutines
// of ShowChanges: enough to make the hand-over cheap against the work on
// each, few enough to keep memory small.
const showChunk = 256

// errShowStopped tells the diff's walk that the receiver has stopped.
var errShowStopped = errors.New("lorestore: show stopped")

// showBatch is a run of consecutive changes with what prep made of them.
type showBatch[T any] struct {
	changes []Change
	out     []T
	err     error
	done    chan struct{}
}

// ShowChanges hands each scope change of commit (those ChangesFunc finds,
// in the same order) to emit, with what prep made of it. With load set,
// prep is given the change's object (read by ChangeObject), else nil.
// prep runs on several goroutines at once, emit on the caller's alone,
// one change at a time. The first error (from the walk, a read, prep or
// emit) stops everything and is returned, after every goroutine has
// finished.
func ShowChanges[T any](s *Store, commit Hash, load bool, prep func(Change, objects.Object) (T, error), emit func(Change, T) error) error {
	workers := runtime.GOMAXPROCS(0)
	order := make(chan *showBatch[T], 2*workers) // batches in the diff's order
	work := make(chan *showBatch[T], 2*workers)  // the same, for the workers
	quit := make(chan struct{})
	var wg sync.WaitGroup
	var walkErr error
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(work)
		defer close(order)
		walkErr = showWalk(s, commit, order, work, quit)
	}()
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for b := range work {
				b.prepare(s, load, prep, quit)
			}
		}()
	}
	emitted := 0
	err := showEmit(order, func(c Change, t T) error {
		// A big commit's show reads most of the store: give the packs'
		// pages back as it goes (DL-0362).
		if emitted++; emitted%releaseEvery == 0 {
			s.db.ReleasePackPages()
		}
		return emit(c, t)
	})
	close(quit)
	wg.Wait()
	if emitted >= releaseEvery {
		s.db.ReleasePages() // the indexes' pages too, now that the show is done
	}
	if err == nil && !errors.Is(walkErr, errShowStopped) {
		err = walkErr
	}
	return err
}

// showWalk runs the diff and sends its changes on in batches.
func showWalk[T any](s *Store, commit Hash, order, work chan<- *showBatch[T], quit <-chan struct{}) error {
	b := &showBatch[T]{}
	send := func() error {
		b.done = make(chan struct{})
		for _, ch := range []chan<- *showBatch[T]{order, work} {
			select {
			case ch <- b:
			case <-quit:
				return errShowStopped
			}
		}
		b = &showBatch[T]{}
		return nil
	}
	err := s.ChangesFunc(commit, func(c Change) error {
		if b.changes == nil {
			b.changes = make([]Change, 0, showChunk)
		}
		b.changes = append(b.changes, c)
		if len(b.changes) < showChunk {
			return nil
		}
		return send()
	})
	if err == nil && len(b.changes) > 0 {
		err = send()
	}
	return err
}

// prepare reads the batch's objects (with load) and runs prep on each,
// unless the receiver has stopped.
func (b *showBatch[T]) prepare(s *Store, load bool, prep func(Change, objects.Object) (T, error), quit <-chan struct{}) {
	defer close(b.done)
	select {
	case <-quit:
		b.err = errShowStopped
		return
	default:
	}
	b.out = make([]T, len(b.changes))
	for i, c := range b.changes {
		var o objects.Object
		if load {
			if o, b.err = s.ChangeObject(c); b.err != nil {
				return
			}
		}
		if b.out[i], b.err = prep(c, o); b.err != nil {
			return
		}
	}
}

// showEmit hands the prepared batches to emit in order.
func showEmit[T any](order <-chan *showBatch[T], emit func(Change, T) error) error {
	for b := range order {
		<-b.done
		if b.err != nil {
			return b.err
		}
		for i, c := range b.changes {
			if err := emit(c, b.out[i]); err != nil {
				return err
			}
		}
	}
	return nil
}
