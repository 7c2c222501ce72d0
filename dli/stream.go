// Streaming a .dli text (the bulk import's): the text is cut into chunks
// at lines that start a declaration (column 1, not a comment), each chunk
// is parsed by Parse on a worker, and the declarations come out in
// file order. A declaration, its continuation lines and the comments
// inside it never straddle a cut, so every declaration parses as it would
// in the whole file; what concerns the document as a whole (the scope
// line) is checked here.

package dli

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"runtime"
	"sync"
)

// StreamChunkBytes is the size past which a chunk is cut at the next
// declaration. It is a variable so that tests (here and of the bulk
// import) can cut a small text into many chunks.
var StreamChunkBytes = 256 << 10

// dliChunk is a run of whole declarations and where it starts.
type dliChunk struct {
	seq  int
	line int // the number of its first line in the file
	text []byte
	doc  *Document
	err  error
	done chan struct{}
}

// Stream yields a .dli stream's declarations in order, parsed in
// parallel.
type Stream struct {
	name    string
	ordered chan *dliChunk
	stop    chan struct{}
	wg      sync.WaitGroup
	readErr error // the reader's error, once ordered is closed
	scope   string
	scopeAt int // the scope line's line number
	first   bool
}

// NewStream starts reading r, a .dli text named name in errors, its
// chunks parsed on GOMAXPROCS goroutines. Close must be called.
func NewStream(name string, r io.Reader) *Stream {
	n := runtime.GOMAXPROCS(0)
	ds := &Stream{name: name, ordered: make(chan *dliChunk, n), stop: make(chan struct{}), first: true}
	jobs := make(chan *dliChunk, n)
	for range n {
		ds.wg.Add(1)
		go func() {
			defer ds.wg.Done()
			for {
				select {
				case c, ok := <-jobs:
					if !ok {
						return
					}
					c.doc, c.err = Parse(name, c.text)
					close(c.done)
				case <-ds.stop:
					return
				}
			}
		}()
	}
	chunkBytes := StreamChunkBytes
	go func() {
		defer close(jobs)
		defer close(ds.ordered)
		ds.readErr = ds.cut(r, chunkBytes, func(c *dliChunk) bool {
			select {
			case ds.ordered <- c:
			case <-ds.stop:
				return false
			}
			select {
			case jobs <- c:
				return true
			case <-ds.stop:
				close(c.done)
				return false
			}
		})
	}()
	return ds
}

// cut reads r line by line and hands on chunks; emit returns false to stop.
func (ds *Stream) cut(r io.Reader, chunkBytes int, emit func(*dliChunk) bool) error {
	br := bufio.NewReaderSize(r, 1<<20)
	cur := &dliChunk{line: 1, done: make(chan struct{})}
	line := 1
	hasDecl := false // cur holds a declaration
	for {
		l, err := readLine(br)
		if len(l) > 0 {
			starts := startsDecl(l)
			scope := starts && isScopeLine(l)
			// A scope line after a declaration starts a chunk, where
			// Next can tell it from the document's own.
			if hasDecl && (scope || starts && len(cur.text) >= chunkBytes) {
				if !emit(cur) {
					return nil
				}
				cur = &dliChunk{seq: cur.seq + 1, line: line, done: make(chan struct{})}
				hasDecl = false
			}
			hasDecl = hasDecl || starts && !scope
			cur.text = append(cur.text, l...)
			line++
		}
		if err == io.EOF {
			if len(cur.text) > 0 || cur.seq == 0 {
				emit(cur)
			}
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// readLine returns the next line with its end, however long.
func readLine(br *bufio.Reader) ([]byte, error) {
	l, err := br.ReadSlice('\n')
	if !errors.Is(err, bufio.ErrBufferFull) {
		return l, err
	}
	long := append([]byte(nil), l...)
	for errors.Is(err, bufio.ErrBufferFull) {
		l, err = br.ReadSlice('\n')
		long = append(long, l...)
	}
	return long, err
}

// startsDecl reports whether a line starts at column 1 with a token: a
// declaration or the scope line, never a continuation, a comment or a
// blank line.
func startsDecl(l []byte) bool {
	switch l[0] {
	case ' ', '\t', '#', '\n', '\r':
		return false
	}
	return true
}

// isScopeLine reports whether a line that starts a declaration is a
// scope line: the word scope, then not a '.' or '(' (a fact or relation
// of an entity named scope).
func isScopeLine(l []byte) bool {
	rest, ok := bytes.CutPrefix(l, []byte("scope"))
	if !ok || len(rest) == 0 {
		return false
	}
	if rest[0] != ' ' && rest[0] != '\t' && rest[0] != '\n' && rest[0] != '\r' {
		return false // a longer word
	}
	rest = bytes.TrimLeft(rest, " \t")
	return len(rest) == 0 || rest[0] != '.' && rest[0] != '('
}

// Next returns the next chunk's declarations; more is false at the end.
// Positions are those of the whole file. A parse problem is an
// ErrorList.
func (ds *Stream) Next() (decls []Decl, more bool, err error) {
	c, ok := <-ds.ordered
	if !ok {
		if ds.readErr != nil {
			return nil, false, fmt.Errorf("%s: %w", ds.name, ds.readErr)
		}
		return nil, false, nil
	}
	<-c.done
	shift := func(p Pos) Pos {
		if p.IsValid() {
			p.Line += c.line - 1
		}
		return p
	}
	var list ErrorList
	if c.err != nil && !errors.As(c.err, &list) {
		return nil, false, c.err
	}
	for _, e := range list {
		e.Pos = shift(e.Pos)
	}
	if ds.first {
		ds.scope, ds.scopeAt, ds.first = c.doc.Scope, c.doc.ScopePos.Line, false
	} else if c.doc.Scope != "" {
		msg := "the scope line must come before the first declaration"
		if ds.scope != "" {
			msg = fmt.Sprintf("second scope line: this document's scope is `%s`, declared at line %d", ds.scope, ds.scopeAt)
		}
		list.Add(ds.name, shift(c.doc.ScopePos), msg)
		list.Sort()
	}
	if len(list) > 0 {
		return nil, false, list
	}
	decls = c.doc.Decls
	for i := range decls {
		decls[i].Pos = shift(decls[i].Pos)
	}
	return decls, true, nil
}

// Scope is the document's scope line, known once the first chunk is read.
func (ds *Stream) Scope() string { return ds.scope }

// Close stops the reader and the workers. It waits for the workers, not
// for the reader: a read from a pipe that sends nothing more would never
// return. The reader stops at its next chunk, or when the caller closes
// what it reads.
func (ds *Stream) Close() {
	select {
	case <-ds.stop:
		return
	default:
		close(ds.stop)
	}
	ds.wg.Wait()
}
