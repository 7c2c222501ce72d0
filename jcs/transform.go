// This file holds Transform and Append, which canonicalize raw JSON bytes,
// and the second of their two passes: writing the parsed tape out in
// canonical order. The first pass, the strict parser, is in parse.go.

package jcs

import (
	"bytes"
	"slices"
	"sync"
)

// MaxDepth is how deeply arrays and objects may nest in the input of
// Transform and Append. A deeper input fails with a *DepthError. It bounds
// the recursion of the parser and the writer.
const MaxDepth = 1000

// Transform returns the RFC 8785 canonical form of the JSON value in data.
//
// data must be one JSON value (RFC 8259; a scalar such as 42 or "x" is
// allowed) with optional whitespace around it, in valid UTF-8, and must meet
// I-JSON: no duplicate keys (compared after unescaping), no lone surrogate
// escapes, no number beyond the double range (1e400). A number is read as the
// nearest IEEE 754 double and written as ECMAScript writes it, so -0 becomes 0
// and 9007199254740993 becomes 9007199254740992; a nonzero literal too small
// for a double (1e-400) rounds to 0, as ECMAScript's JSON.parse rounds it.
// Object members are sorted by the UTF-16 code units of their keys; arrays
// keep their order; strings are written with the RFC 8785 escapes.
//
// On failure it returns nil and one of *SyntaxError, *DuplicateKeyError,
// *InvalidUTF8Error, *LoneSurrogateError, *NumberError or *DepthError.
func Transform(data []byte) ([]byte, error) {
	out, err := Append(make([]byte, 0, len(data)), data)
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Append is Transform writing into dst: it appends the canonical form of
// data to dst and returns the extended slice. On failure it returns dst
// unchanged and an error as Transform does. data is not retained.
func Append(dst, data []byte) ([]byte, error) {
	p := parserPool.Get().(*parser)
	defer p.release()
	p.data = data
	if err := p.parse(); err != nil {
		return dst, err
	}
	dst, _ = p.emit(dst, 0)
	return dst, nil
}

var parserPool = sync.Pool{New: func() any { return new(parser) }}

// Past these capacities a parser's buffers are dropped rather than pooled,
// so that one huge input does not pin its memory for the life of the process.
const (
	maxPooledNodes = 1 << 12
	maxPooledBytes = 1 << 16
)

// release resets p and returns it to the pool.
func (p *parser) release() {
	if cap(p.tape) > maxPooledNodes || cap(p.buf) > maxPooledBytes ||
		cap(p.stack) > maxPooledNodes || cap(p.order) > maxPooledNodes {
		return
	}
	*p = parser{tape: p.tape[:0], buf: p.buf[:0], stack: p.stack[:0], order: p.order[:0]}
	parserPool.Put(p)
}

// emit appends the canonical form of the value at p.tape[i] and returns the
// tape index just past that value's subtree. It recurses at most MaxDepth
// deep, as the parser did.
func (p *parser) emit(dst []byte, i int) ([]byte, int) {
	n := &p.tape[i]
	switch n.kind {
	case kindNull:
		return append(dst, "null"...), i + 1
	case kindTrue:
		return append(dst, "true"...), i + 1
	case kindFalse:
		return append(dst, "false"...), i + 1
	case kindNumInput:
		return append(dst, p.data[n.a:n.b]...), i + 1
	case kindNumBuf:
		return append(dst, p.buf[n.a:n.b]...), i + 1
	case kindStrInput, kindStrBuf:
		return p.emitString(dst, n), i + 1
	case kindArray:
		dst = append(dst, '[')
		count := n.a
		j := i + 1
		for k := 0; k < count; k++ {
			if k > 0 {
				dst = append(dst, ',')
			}
			dst, j = p.emit(dst, j)
		}
		return append(dst, ']'), j
	default: // kindObject
		dst = append(dst, '{')
		next := i + 1
		for k, key := range p.order[n.a:n.b] {
			if k > 0 {
				dst = append(dst, ',')
			}
			dst = append(p.emitString(dst, &p.tape[key]), ':')
			var end int
			dst, end = p.emit(dst, key+1)
			next = max(next, end)
		}
		return append(dst, '}'), next
	}
}

// emitString appends the string node n in canonical form.
func (p *parser) emitString(dst []byte, n *node) []byte {
	if n.kind == kindStrInput {
		// No escapes and no control characters: the input is canonical.
		dst = append(dst, '"')
		dst = append(dst, p.data[n.a:n.b]...)
		return append(dst, '"')
	}
	dst, _ = appendQuoted(dst, p.buf[n.a:n.b]) // validated while parsing
	return dst
}

// compareKeys orders two unescaped keys by their UTF-16 code units, as RFC
// 8785 section 3.2.3 sorts members, working on the UTF-8 bytes.
//
// UTF-8 byte order is code point order, and so is UTF-16 order except in one
// case: a character above U+FFFF is written in UTF-16 with a high surrogate
// (0xD800 to 0xDBFF), which sorts before the characters U+E000 to U+FFFF,
// although its code point sorts after them. In UTF-8 those two groups are
// the sequences led by 0xF0..0xF4 and by 0xEE..0xEF. The first byte where
// two keys differ is either a lead byte in both or a continuation byte in
// both (the keys agree up to there, so they are at the same place in the
// same character); only when it is a lead byte from each of those two groups
// does the order flip. high says whether a key has any byte of 0xEE or above,
// so keys that cannot meet that case go to bytes.Compare.
func compareKeys(a, b []byte, aHigh, bHigh bool) int {
	if len(a) > 0 && len(b) > 0 && a[0] != b[0] && (a[0] < 0xEE || b[0] < 0xEE) {
		// Most keys differ at the first byte, and there the order is
		// plain byte order unless both bytes are 0xEE or above.
		return int(a[0]) - int(b[0])
	}
	if !aHigh || !bHigh {
		return bytes.Compare(a, b)
	}
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		x, y := a[i], b[i]
		if x == y {
			continue
		}
		if x >= 0xEE && y >= 0xEE && (x >= 0xF0) != (y >= 0xF0) {
			if x >= 0xF0 {
				return -1
			}
			return 1
		}
		return int(x) - int(y)
	}
	return len(a) - len(b)
}

// compareMembers orders members by key and, for equal keys, by document
// order.
func (p *parser) compareMembers(x, y member) int {
	a, b := &p.tape[x.tape], &p.tape[y.tape]
	if c := compareKeys(p.str(a), p.str(b), a.high, b.high); c != 0 {
		return c
	}
	return x.tape - y.tape
}

// smallSort is how many members sortMembers sorts by insertion.
const smallSort = 32

// sortMembers puts the members of one object in canonical order and reports
// the first duplicate key in document order, if any.
func (p *parser) sortMembers(ms []member) error {
	sorted := true
	for j := 1; j < len(ms); j++ {
		a, b := &p.tape[ms[j-1].tape], &p.tape[ms[j].tape]
		if compareKeys(p.str(a), p.str(b), a.high, b.high) >= 0 {
			sorted = false
			break
		}
	}
	if sorted {
		return nil // keys strictly increasing, so no duplicates either
	}
	if len(ms) <= smallSort {
		for j := 1; j < len(ms); j++ {
			for k := j; k > 0 && p.compareMembers(ms[k], ms[k-1]) < 0; k-- {
				ms[k], ms[k-1] = ms[k-1], ms[k]
			}
		}
	} else {
		slices.SortFunc(ms, p.compareMembers)
	}
	dup := -1
	for j := 1; j < len(ms); j++ {
		if bytes.Equal(p.str(&p.tape[ms[j-1].tape]), p.str(&p.tape[ms[j].tape])) && (dup < 0 || ms[j].off < ms[dup].off) {
			dup = j
		}
	}
	if dup >= 0 {
		return &DuplicateKeyError{Key: string(p.str(&p.tape[ms[dup].tape])), Offset: int64(ms[dup].off)}
	}
	return nil
}
