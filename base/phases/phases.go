// Package phases records how long the named phases of a long operation
// took, when a process asks for it: the first compile of a world (reading
// the store's objects, indexing, lowering, evaluation, the checks, the
// world file) is made of phases that overlap on several cores, and a
// benchmark that sees only the process's wall time cannot tell which one
// to work on (issue 34, DL-0503).
//
// Recording is off unless Enable was called (the command line does, when
// DELOREIS_PHASES names a file): Start then costs one atomic load and
// allocates nothing. The recorder is the process's, not a context's, so
// that the phases of the very path a user runs are seen wherever they
// happen, a background writer's included.
package phases

import (
	"encoding/json"
	"io"
	"sync"
	"sync/atomic"
	"time"
)

// Span is one phase: its name and when it began and ended, as offsets
// from the moment recording was enabled.
type Span struct {
	Name  string        `json:"name"`
	Start time.Duration `json:"start_ns"`
	End   time.Duration `json:"end_ns"`
}

// Took is how long the phase ran.
func (s Span) Took() time.Duration { return s.End - s.Start }

// recorder holds the spans of a process that enabled recording.
type recorder struct {
	t0    time.Time
	mu    sync.Mutex
	spans []Span
}

var current atomic.Pointer[recorder]

// Enable starts recording; spans recorded before are dropped.
func Enable() { current.Store(&recorder{t0: time.Now()}) }

// Disable stops recording and drops what was recorded.
func Disable() { current.Store(nil) }

// Enabled reports whether spans are being recorded.
func Enabled() bool { return current.Load() != nil }

func nothing() {}

// Start begins the phase name and returns the function that ends it.
// With recording off both are free.
func Start(name string) (end func()) {
	r := current.Load()
	if r == nil {
		return nothing
	}
	start := time.Since(r.t0)
	return func() {
		s := Span{Name: name, Start: start, End: time.Since(r.t0)}
		r.mu.Lock()
		r.spans = append(r.spans, s)
		r.mu.Unlock()
	}
}

// Spans returns the spans recorded so far, in the order they ended.
func Spans() []Span {
	r := current.Load()
	if r == nil {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Span(nil), r.spans...)
}

// WriteJSON writes the spans recorded so far as JSON lines, one span a
// line.
func WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	for _, s := range Spans() {
		if err := enc.Encode(s); err != nil {
			return err
		}
	}
	return nil
}

// ReadJSON reads what WriteJSON wrote.
func ReadJSON(r io.Reader) ([]Span, error) {
	dec := json.NewDecoder(r)
	var out []Span
	for dec.More() {
		var s Span
		if err := dec.Decode(&s); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}
