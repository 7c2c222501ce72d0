// Package extsort sorts more records than memory should hold: records are
// gathered into runs of a bounded size, each run is sorted and appended to
// one temporary file, and the runs are merged on the way out. The bulk
// writer of the lorestore uses it for the names of a pack's objects and
// for the paths of a commit's files, so that a commit of ten million
// objects keeps a few tens of megabytes of them in memory, not gigabytes.
//
// A full run is sorted and written on a goroutine of its own while the
// next one gathers, so that the caller (an import putting object after
// object on one goroutine) does not wait for the sort: two runs' records
// are in memory at most.
package extsort

import (
	"bufio"
	"container/heap"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
)

// Codec writes and reads one record. Records may have any length, as long
// as Decode reads back exactly what Encode wrote.
type Codec[T any] struct {
	Encode func(dst []byte, r *T) []byte
	Decode func(r *bufio.Reader, out *T) error // io.EOF only at a record boundary
}

// Sorter gathers records of type T and yields them in the order of cmp
// (which takes records by value: a pointer would move them to the heap).
// Records that compare equal come out in no particular order. A Sorter is
// not safe for concurrent use.
type Sorter[T any] struct {
	cmp     func(a, b T) int
	codec   Codec[T]
	newFile func() (*os.File, error)
	limit   int // records in a run
	buf     []T // the run being gathered
	spare   []T // a written run's records, for the next run to gather into
	n       int
	err     error
	// The run being written (spilling), and what only its goroutine
	// touches until wait has taken its outcome from done.
	spilling []T
	done     chan error
	f        *os.File
	bw       *bufio.Writer
	runs     []int64 // end offset of each run in f
	off      int64
	scratch  []byte
}

// New returns a sorter whose runs hold at most runLen records. newFile
// creates the temporary file the runs go to (on first need); Close removes
// it.
func New[T any](runLen int, cmp func(a, b T) int, codec Codec[T], newFile func() (*os.File, error)) *Sorter[T] {
	return &Sorter[T]{cmp: cmp, codec: codec, newFile: newFile, limit: max(runLen, 1)}
}

// Add adds a record (copied). A write failure is returned here or by
// Each.
func (s *Sorter[T]) Add(r T) error {
	if s.err != nil {
		return s.err
	}
	if s.buf == nil {
		// The whole run at once: memory is then flat from the first record
		// on, where growing by doubling would overshoot the run's size.
		s.buf = make([]T, 0, s.limit)
	}
	s.buf = append(s.buf, r)
	s.n++
	if len(s.buf) >= s.limit {
		s.err = s.spillBehind()
	}
	return s.err
}

// Len is the number of records added.
func (s *Sorter[T]) Len() int { return s.n }

// spillBehind hands the full run to a goroutine that sorts it and appends
// it to the file, once the run before it is written, and gathers the next
// run in the records that one held.
func (s *Sorter[T]) spillBehind() error {
	if err := s.wait(); err != nil {
		return err
	}
	if err := s.open(); err != nil {
		return err
	}
	s.spilling, s.buf, s.spare = s.buf, s.spare, nil
	s.done = make(chan error, 1)
	go func() { s.done <- s.spill(s.spilling) }()
	return nil
}

// wait waits for the run being written, if any, and returns its error.
func (s *Sorter[T]) wait() error {
	if s.done == nil {
		return nil
	}
	err := <-s.done
	s.done, s.spare, s.spilling = nil, s.spilling[:0], nil
	return err
}

// open creates the runs' file on first need.
func (s *Sorter[T]) open() error {
	if s.f == nil {
		f, err := s.newFile()
		if err != nil {
			return err
		}
		s.f, s.bw = f, bufio.NewWriterSize(f, 256<<10)
	}
	return nil
}

// spill sorts run and appends it to the file.
func (s *Sorter[T]) spill(run []T) error {
	slices.SortFunc(run, s.cmp)
	for i := range run {
		s.scratch = s.codec.Encode(s.scratch[:0], &run[i])
		if _, err := s.bw.Write(s.scratch); err != nil {
			return fmt.Errorf("extsort: write run: %w", err)
		}
		s.off += int64(len(s.scratch))
	}
	if err := s.bw.Flush(); err != nil {
		return fmt.Errorf("extsort: write run: %w", err)
	}
	s.runs = append(s.runs, s.off)
	return nil
}

// Each calls fn with every record in order; fn must not keep the pointer.
// An error of fn stops the walk and is returned. Each may be called more
// than once; no Add may follow the first call.
func (s *Sorter[T]) Each(fn func(r *T) error) error {
	if s.err == nil {
		s.err = s.wait()
	}
	if s.err != nil {
		return s.err
	}
	if len(s.runs) == 0 {
		// Everything fits in one run: no file at all.
		slices.SortFunc(s.buf, s.cmp)
		for i := range s.buf {
			if err := fn(&s.buf[i]); err != nil {
				return err
			}
		}
		return nil
	}
	if len(s.buf) > 0 {
		if s.err = s.spill(s.buf); s.err != nil {
			return s.err
		}
	}
	s.buf, s.spare = nil, nil // the memory goes to the merge's readers
	return s.merge(fn)
}

// merge walks the runs together, smallest record first.
func (s *Sorter[T]) merge(fn func(r *T) error) error {
	h := &runHeap[T]{cmp: s.cmp}
	start := int64(0)
	bufSize := 64 << 10
	for _, end := range s.runs {
		r := &runReader[T]{br: bufio.NewReaderSize(io.NewSectionReader(s.f, start, end-start), bufSize)}
		start = end
		ok, err := r.next(s.codec)
		if err != nil {
			return err
		}
		if ok {
			h.rs = append(h.rs, r)
		}
	}
	heap.Init(h)
	for len(h.rs) > 0 {
		top := h.rs[0]
		if err := fn(&top.cur); err != nil {
			return err
		}
		ok, err := top.next(s.codec)
		if err != nil {
			return err
		}
		if ok {
			heap.Fix(h, 0)
		} else {
			heap.Pop(h)
		}
	}
	return nil
}

// Close removes the temporary file, once a run being written is. The
// sorter is empty afterwards.
func (s *Sorter[T]) Close() {
	s.wait()
	if s.f != nil {
		s.f.Close()
		os.Remove(s.f.Name())
	}
	s.f, s.bw, s.buf, s.spare, s.runs, s.off, s.n, s.err = nil, nil, nil, nil, nil, 0, 0, nil
}

type runReader[T any] struct {
	br  *bufio.Reader
	cur T
}

// next reads the run's next record into cur; false at the run's end.
func (r *runReader[T]) next(c Codec[T]) (bool, error) {
	err := c.Decode(r.br, &r.cur)
	if errors.Is(err, io.EOF) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("extsort: read run: %w", err)
	}
	return true, nil
}

type runHeap[T any] struct {
	rs  []*runReader[T]
	cmp func(a, b T) int
}

func (h *runHeap[T]) Len() int           { return len(h.rs) }
func (h *runHeap[T]) Less(i, j int) bool { return h.cmp(h.rs[i].cur, h.rs[j].cur) < 0 }
func (h *runHeap[T]) Swap(i, j int)      { h.rs[i], h.rs[j] = h.rs[j], h.rs[i] }
func (h *runHeap[T]) Push(x any)         { h.rs = append(h.rs, x.(*runReader[T])) }
func (h *runHeap[T]) Pop() any {
	r := h.rs[len(h.rs)-1]
	h.rs = h.rs[:len(h.rs)-1]
	return r
}
