// This file holds the strict JSON parser behind Transform: the first of its
// two passes. It checks the input against RFC 8259 and I-JSON and records it
// on a flat tape of nodes, with each object's members already sorted, so
// that the second pass (emit, in transform.go) writes every output byte once.

package jcs

import (
	"fmt"
	"strconv"
	"unicode/utf8"
)

// Node kinds on the tape.
const (
	kindNull uint8 = iota
	kindTrue
	kindFalse
	kindNumInput // canonical number text is data[a:b], the literal itself
	kindNumBuf   // canonical number text is buf[a:b]
	kindStrInput // string without escapes: its content is data[a:b]
	kindStrBuf   // string with escapes: its unescaped content is buf[a:b]
	kindArray    // a is the number of elements, which follow in order
	kindObject   // order[a:b] are the tape indices of the keys, sorted
)

// node is one value on the tape. An array's elements follow it on the tape
// in document order, each with its whole subtree; an object's members follow
// it likewise, each as a key node with its value right after it.
type node struct {
	kind uint8
	high bool // a string with a byte of 0xEE or above (see compareKeys)
	a, b int
}

// member is one object member while its object is being parsed. It holds no
// pointers, so that the stack of a wide object costs the collector nothing.
type member struct {
	tape int // tape index of the key node; the value is at tape+1
	off  int // offset of the key's opening quote in the input
}

// parser holds the state of one Transform. Its slices are reused through
// parserPool.
type parser struct {
	data  []byte   // the input
	i     int      // read position in data
	depth int      // arrays and objects open at i
	tape  []node   // parsed values in document order
	buf   []byte   // unescaped strings and rewritten numbers
	stack []member // members of the objects open at i
	order []int    // sorted key indices of finished objects
}

// parse reads the single value in p.data onto the tape.
func (p *parser) parse() error {
	p.skipSpace()
	if err := p.value(); err != nil {
		return err
	}
	p.skipSpace()
	if p.i < len(p.data) {
		return p.unexpected(p.i, "after the value")
	}
	return nil
}

// skipSpace moves past the four whitespace characters of RFC 8259.
func (p *parser) skipSpace() {
	for p.i < len(p.data) {
		switch p.data[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

// unexpected returns the error for the byte at i, which the grammar does not
// allow there. context says where the parser was, for the message.
func (p *parser) unexpected(i int, context string) error {
	if i >= len(p.data) {
		return &SyntaxError{Offset: int64(i), Msg: "unexpected end of input " + context}
	}
	c := p.data[i]
	if c >= utf8.RuneSelf {
		if utf8Len(p.data, i) == 0 {
			return &InvalidUTF8Error{Offset: int64(i)}
		}
		r, _ := utf8.DecodeRune(p.data[i:])
		return &SyntaxError{Offset: int64(i), Msg: fmt.Sprintf("unexpected character %U %s", r, context)}
	}
	return &SyntaxError{Offset: int64(i), Msg: fmt.Sprintf("unexpected character %q %s", rune(c), context)}
}

// value parses the value starting at p.i, which is not whitespace.
func (p *parser) value() error {
	if p.i >= len(p.data) {
		return p.unexpected(p.i, "where a value should start")
	}
	switch c := p.data[p.i]; c {
	case '{':
		return p.object()
	case '[':
		return p.array()
	case '"':
		return p.string()
	case 't':
		return p.literal("true", kindTrue)
	case 'f':
		return p.literal("false", kindFalse)
	case 'n':
		return p.literal("null", kindNull)
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return p.number()
	default:
		return p.unexpected(p.i, "where a value should start")
	}
}

// literal parses one of true, false and null.
func (p *parser) literal(word string, kind uint8) error {
	end := p.i + len(word)
	if end > len(p.data) || string(p.data[p.i:end]) != word {
		return &SyntaxError{Offset: int64(p.i), Msg: "invalid literal (want " + word + ")"}
	}
	p.tape = append(p.tape, node{kind: kind})
	p.i = end
	return nil
}

// open enters an array or object at p.i.
func (p *parser) open() error {
	p.depth++
	if p.depth > MaxDepth {
		return &DepthError{Offset: int64(p.i), Limit: MaxDepth}
	}
	p.i++
	p.skipSpace()
	return nil
}

// array parses an array starting at its '['.
func (p *parser) array() error {
	if err := p.open(); err != nil {
		return err
	}
	at := len(p.tape)
	p.tape = append(p.tape, node{kind: kindArray})
	count := 0
	if p.i < len(p.data) && p.data[p.i] == ']' {
		p.i++
		p.depth--
		return nil
	}
	for {
		if err := p.value(); err != nil {
			return err
		}
		count++
		p.skipSpace()
		if p.i >= len(p.data) {
			return p.unexpected(p.i, "in an array")
		}
		switch p.data[p.i] {
		case ',':
			p.i++
			p.skipSpace()
			if p.i < len(p.data) && p.data[p.i] == ']' {
				return &SyntaxError{Offset: int64(p.i), Msg: "trailing comma in an array"}
			}
		case ']':
			p.i++
			p.depth--
			p.tape[at].a = count
			return nil
		default:
			return p.unexpected(p.i, "after an array element (want ',' or ']')")
		}
	}
}

// object parses an object starting at its '{', sorts its members and checks
// them for duplicates.
func (p *parser) object() error {
	if err := p.open(); err != nil {
		return err
	}
	at := len(p.tape)
	p.tape = append(p.tape, node{kind: kindObject})
	base := len(p.stack)
	if p.i < len(p.data) && p.data[p.i] == '}' {
		p.i++
		p.depth--
		p.tape[at].a, p.tape[at].b = len(p.order), len(p.order)
		return nil
	}
	for {
		if p.i >= len(p.data) || p.data[p.i] != '"' {
			return p.unexpected(p.i, "where an object key should start")
		}
		off, k := p.i, len(p.tape)
		if err := p.string(); err != nil {
			return err
		}
		p.stack = append(p.stack, member{tape: k, off: off})
		p.skipSpace()
		if p.i >= len(p.data) || p.data[p.i] != ':' {
			return p.unexpected(p.i, "after an object key (want ':')")
		}
		p.i++
		p.skipSpace()
		if err := p.value(); err != nil {
			return err
		}
		p.skipSpace()
		if p.i >= len(p.data) {
			return p.unexpected(p.i, "in an object")
		}
		c := p.data[p.i]
		if c == '}' {
			p.i++
			break
		}
		if c != ',' {
			return p.unexpected(p.i, "after an object member (want ',' or '}')")
		}
		p.i++
		p.skipSpace()
		if p.i < len(p.data) && p.data[p.i] == '}' {
			return &SyntaxError{Offset: int64(p.i), Msg: "trailing comma in an object"}
		}
	}
	ms := p.stack[base:]
	if err := p.sortMembers(ms); err != nil {
		return err
	}
	start := len(p.order)
	for _, m := range ms {
		p.order = append(p.order, m.tape)
	}
	p.stack = p.stack[:base]
	p.tape[at].a, p.tape[at].b = start, len(p.order)
	p.depth--
	return nil
}

// str returns the unescaped content of the string node n.
func (p *parser) str(n *node) []byte {
	if n.kind == kindStrInput {
		return p.data[n.a:n.b]
	}
	return p.buf[n.a:n.b]
}

// string parses a string starting at its opening quote. A string without
// escapes is recorded as a span of the input; one with escapes is unescaped
// into p.buf by stringEscaped.
func (p *parser) string() error {
	high := false
	data := p.data
	start := p.i + 1
	i := start
	for {
		for i+8 <= len(data) && plain8(load64(data, i)) {
			i += 8
		}
		if i >= len(data) {
			return &SyntaxError{Offset: int64(p.i), Msg: "unterminated string"}
		}
		c := data[i]
		switch {
		case c == '"':
			p.tape = append(p.tape, node{kind: kindStrInput, high: high, a: start, b: i})
			p.i = i + 1
			return nil
		case c == '\\':
			return p.stringEscaped(start, i, high)
		case c < 0x20:
			return &SyntaxError{Offset: int64(i), Msg: "control character in string (must be escaped)"}
		case c < utf8.RuneSelf:
			i++
		default:
			n := utf8Len(data, i)
			if n == 0 {
				return &InvalidUTF8Error{Offset: int64(i)}
			}
			high = high || c >= 0xEE
			i += n
		}
	}
}

// stringEscaped finishes a string whose content data[start:i] was plain and
// at data[i] has its first backslash. It writes the unescaped content to
// p.buf.
func (p *parser) stringEscaped(start, i int, high bool) error {
	data := p.data
	b0 := len(p.buf)
	p.buf = append(p.buf, data[start:i]...)
	for {
		if i >= len(data) {
			return &SyntaxError{Offset: int64(start - 1), Msg: "unterminated string"}
		}
		c := data[i]
		switch {
		case c == '"':
			p.tape = append(p.tape, node{kind: kindStrBuf, high: high, a: b0, b: len(p.buf)})
			p.i = i + 1
			return nil
		case c == '\\':
			if i+1 >= len(data) {
				return &SyntaxError{Offset: int64(start - 1), Msg: "unterminated string"}
			}
			var r rune
			switch e := data[i+1]; e {
			case '"', '\\', '/':
				r = rune(e)
			case 'b':
				r = '\b'
			case 'f':
				r = '\f'
			case 'n':
				r = '\n'
			case 'r':
				r = '\r'
			case 't':
				r = '\t'
			case 'u':
				r, n, err := p.unicodeEscape(i)
				if err != nil {
					return err
				}
				high = high || r >= 0xE000
				p.buf = utf8.AppendRune(p.buf, r)
				i += n
				continue
			default:
				return &SyntaxError{Offset: int64(i), Msg: fmt.Sprintf("invalid escape %q in string", "\\"+string(rune(e)))}
			}
			p.buf = append(p.buf, byte(r))
			i += 2
		case c < 0x20:
			return &SyntaxError{Offset: int64(i), Msg: "control character in string (must be escaped)"}
		case c < utf8.RuneSelf:
			j := i + 1
			for j < len(data) && data[j] >= 0x20 && data[j] < utf8.RuneSelf && data[j] != '"' && data[j] != '\\' {
				j++
			}
			p.buf = append(p.buf, data[i:j]...)
			i = j
		default:
			n := utf8Len(data, i)
			if n == 0 {
				return &InvalidUTF8Error{Offset: int64(i)}
			}
			high = high || c >= 0xEE
			p.buf = append(p.buf, data[i:i+n]...)
			i += n
		}
	}
}

// unicodeEscape decodes the \u escape whose backslash is at i, joining a
// surrogate pair; it returns the rune and the bytes the escape (or pair)
// takes. A surrogate without its partner is a LoneSurrogateError.
func (p *parser) unicodeEscape(i int) (rune, int, error) {
	data := p.data
	u, err := p.hex4(i)
	if err != nil {
		return 0, 0, err
	}
	switch {
	case u >= 0xDC00 && u <= 0xDFFF:
		return 0, 0, &LoneSurrogateError{Offset: int64(i)}
	case u >= 0xD800 && u <= 0xDBFF:
		if i+7 >= len(data) || data[i+6] != '\\' || data[i+7] != 'u' {
			return 0, 0, &LoneSurrogateError{Offset: int64(i)}
		}
		lo, err := p.hex4(i + 6)
		if err != nil {
			return 0, 0, err
		}
		if lo < 0xDC00 || lo > 0xDFFF {
			return 0, 0, &LoneSurrogateError{Offset: int64(i)}
		}
		return 0x10000 + (u-0xD800)<<10 + (lo - 0xDC00), 12, nil
	}
	return u, 6, nil
}

// hex4 reads the four hex digits of the \u escape whose backslash is at
// data[i].
func (p *parser) hex4(i int) (rune, error) {
	if i+6 > len(p.data) {
		return 0, &SyntaxError{Offset: int64(i), Msg: "invalid \\u escape (want four hex digits)"}
	}
	var r rune
	for _, c := range p.data[i+2 : i+6] {
		var d byte
		switch {
		case c >= '0' && c <= '9':
			d = c - '0'
		case c >= 'a' && c <= 'f':
			d = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			d = c - 'A' + 10
		default:
			return 0, &SyntaxError{Offset: int64(i), Msg: "invalid \\u escape (want four hex digits)"}
		}
		r = r<<4 | rune(d)
	}
	return r, nil
}

// Numbers.
//
// A literal is checked against the RFC 8259 grammar here, then read with
// strconv.ParseFloat, which rounds it to the nearest double, and written with
// appendFinite. An integer literal of at most 15 digits (other than -0) is
// exact as a double and already in canonical form, so it is kept as it is.
//
// Range ruling. A literal beyond the largest double (1e400, -1e400) makes
// ParseFloat return ±Inf with ErrRange; it has no canonical form, and I-JSON
// (RFC 7493 section 2.2) and RFC 8785 section 3.2.2.3 exclude it, so it is a
// *NumberError. A nonzero literal below the smallest subnormal (1e-400) is not
// an error: ParseFloat rounds it to ±0 and reports no error, ECMAScript's
// JSON.parse (whose number reading RFC 8785 section 3.2.2.3 builds on) does
// the same, and so does github.com/gowebpki/jcs. This is ordinary rounding to
// the nearest double, as for 1.00000000000000001 → 1, so 1e-400 → 0.

// number parses a number literal starting at p.i.
func (p *parser) number() error {
	data := p.data
	start := p.i
	i := start
	if data[i] == '-' {
		i++
	}
	digits := i
	switch {
	case i >= len(data):
		return &SyntaxError{Offset: int64(start), Msg: "invalid number (no digits)"}
	case data[i] == '0':
		i++
		if i < len(data) && isDigit(data[i]) {
			return &SyntaxError{Offset: int64(start), Msg: "invalid number (leading zero)"}
		}
	case isDigit(data[i]):
		for i < len(data) && isDigit(data[i]) {
			i++
		}
	default:
		return &SyntaxError{Offset: int64(start), Msg: "invalid number (no digits)"}
	}
	plain := i-digits <= 15 && !(data[start] == '-' && data[digits] == '0')
	if i < len(data) && data[i] == '.' {
		i++
		if i >= len(data) || !isDigit(data[i]) {
			return &SyntaxError{Offset: int64(start), Msg: "invalid number (no digits after '.')"}
		}
		for i < len(data) && isDigit(data[i]) {
			i++
		}
		plain = false
	}
	if i < len(data) && (data[i] == 'e' || data[i] == 'E') {
		i++
		if i < len(data) && (data[i] == '+' || data[i] == '-') {
			i++
		}
		if i >= len(data) || !isDigit(data[i]) {
			return &SyntaxError{Offset: int64(start), Msg: "invalid number (no digits in exponent)"}
		}
		for i < len(data) && isDigit(data[i]) {
			i++
		}
		plain = false
	}
	p.i = i
	if plain {
		p.tape = append(p.tape, node{kind: kindNumInput, a: start, b: i})
		return nil
	}
	lit := data[start:i]
	f, err := strconv.ParseFloat(string(lit), 64)
	if err != nil {
		// The grammar is checked above, so only ErrRange can come here,
		// and with the ruling above only for overflow.
		return &NumberError{Offset: int64(start), Literal: string(lit), Reason: "out of the IEEE 754 double range"}
	}
	b0 := len(p.buf)
	p.buf = appendFinite(p.buf, f)
	p.tape = append(p.tape, node{kind: kindNumBuf, a: b0, b: len(p.buf)})
	return nil
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }
