// This file holds the lexical layer of the decoder: whitespace, strings,
// numbers, literals and a validating skip over any JSON value, plus the
// decoder's path stack and error helpers.
//
// The decoder is hand-written rather than built on encoding/json: the
// schema is small and fixed, encoding/json silently keeps the last of two
// duplicate keys and reports errors without a JSON path, and a direct
// decoder both refuses duplicates as it goes and allocates only the strings
// it keeps (keys and enum values are matched in place). Decode first scans
// the whole input once to check its syntax and find "type", then decodes
// with the field table of that type.

package objects

import (
	"fmt"
	"strconv"
	"sync"
	"unicode/utf8"
)

// maxDepth bounds nesting. The deepest lore object (a rule term) nests six
// levels; anything deeper is refused rather than recursed into.
const maxDepth = 64

// pathElem is one step of a JSON path: a member name, or an array index
// when name is "".
type pathElem struct {
	name  string
	index int
}

// decoder reads one object from data.
type decoder struct {
	data    []byte
	pos     int
	depth   int
	typ     Type
	syntax  *FieldError // the first syntax error, which ends decoding
	errs    ErrorList   // structural errors: unknown, duplicate, type, missing
	path    []pathElem
	scratch []byte       // unescaped string content; valid until the next str
	strs    []string     // a decision set being read (decisionSet)
	cache   *internCache // kept with the pooled decoder (intern.go)
	stack   [8]pathElem
	shadow  shadow // the top-level members decoded so far
}

// decoderPool recycles decoders, with their shadow and scratch buffer,
// across calls to Decode.
var decoderPool = sync.Pool{New: func() any { return new(decoder) }}

// maxPooledScratch is the largest scratch buffer kept with a pooled decoder.
const maxPooledScratch = 64 << 10

// maxPooledStrs is the largest decision set buffer kept with a pooled decoder.
const maxPooledStrs = 64

// getDecoder returns a reset decoder over data.
func getDecoder(data []byte) *decoder {
	d := decoderPool.Get().(*decoder)
	d.data = data
	if d.path == nil {
		d.path = d.stack[:0]
	}
	if d.cache == nil {
		d.cache = new(internCache)
	}
	return d
}

// putDecoder resets d and pools it.
func putDecoder(d *decoder) {
	d.reset()
	decoderPool.Put(d)
}

// reset drops everything d refers to but its buffers and cache. The errors
// and the decoded values have been handed to the caller, so they are not
// reused. Fields are written only when set: while the collector runs,
// every write of a pointer costs a barrier, and most decodes set few.
func (d *decoder) reset() {
	if cap(d.scratch) > maxPooledScratch {
		d.scratch = nil
	}
	// d.strs keeps the length of the last set read, so that only that is
	// cleared.
	if cap(d.strs) > maxPooledStrs {
		d.strs = nil
	} else if len(d.strs) > 0 {
		clear(d.strs)
		d.strs = d.strs[:0]
	}
	d.shadow.reset()
	d.data, d.pos, d.depth = nil, 0, 0
	if d.typ != "" || d.syntax != nil || d.errs != nil {
		d.typ, d.syntax, d.errs = "", nil, nil
	}
	// d.path is left on d.stack, or on a longer array it grew into;
	// either holds only member names, which are constants, and indices.
	d.path = d.path[:0]
}

// syntaxErr records a syntax error at byte at and returns false.
func (d *decoder) syntaxErr(at int, what string) bool {
	if d.syntax == nil {
		d.syntax = &FieldError{Type: d.typ, Code: CodeInvalidJSON,
			Message: fmt.Sprintf("invalid json at byte %d: %s", at, what)}
	}
	return false
}

// ws skips insignificant whitespace.
func (d *decoder) ws() {
	for d.pos < len(d.data) {
		switch d.data[d.pos] {
		case ' ', '\t', '\n', '\r':
			d.pos++
		default:
			return
		}
	}
}

// peek returns the next byte, or 0 at the end of input.
func (d *decoder) peek() byte {
	if d.pos < len(d.data) {
		return d.data[d.pos]
	}
	return 0
}

// describe names the JSON type of the value starting with c.
func describe(c byte) string {
	switch c {
	case '"':
		return "a string"
	case '{':
		return "an object"
	case '[':
		return "an array"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

// unexpected describes byte c for a syntax error.
func unexpected(c byte) string {
	if c >= 0x20 && c < 0x7f {
		return fmt.Sprintf("unexpected %q", c)
	}
	return fmt.Sprintf("unexpected byte 0x%02x", c)
}

// str reads the string at d.pos (which must start with '"') and returns its
// content: a slice of the input when it has no escapes, else the scratch
// buffer. Raw control characters and bad escapes are syntax errors; invalid
// UTF-8 is kept for validation to report with its field. A \u escape of a
// lone surrogate is written as its three-byte encoding, which is invalid
// UTF-8, so validation refuses it too.
func (d *decoder) str() ([]byte, bool) {
	start := d.pos + 1
	for i := start; i < len(d.data); i++ {
		switch c := d.data[i]; {
		case c == '"':
			d.pos = i + 1
			return d.data[start:i], true
		case c == '\\':
			d.scratch = append(d.scratch[:0], d.data[start:i]...)
			return d.escaped(i)
		case c < 0x20:
			return nil, d.syntaxErr(i, "control character in string")
		}
	}
	return nil, d.syntaxErr(len(d.data), "unterminated string")
}

// escaped continues str from the first backslash at i, unescaping into
// d.scratch.
func (d *decoder) escaped(i int) ([]byte, bool) {
	for i < len(d.data) {
		c := d.data[i]
		switch {
		case c == '"':
			d.pos = i + 1
			return d.scratch, true
		case c < 0x20:
			return nil, d.syntaxErr(i, "control character in string")
		case c != '\\':
			d.scratch = append(d.scratch, c)
			i++
			continue
		}
		if i+1 >= len(d.data) {
			break
		}
		switch e := d.data[i+1]; e {
		case '"', '\\', '/':
			d.scratch = append(d.scratch, e)
		case 'b':
			d.scratch = append(d.scratch, '\b')
		case 'f':
			d.scratch = append(d.scratch, '\f')
		case 'n':
			d.scratch = append(d.scratch, '\n')
		case 'r':
			d.scratch = append(d.scratch, '\r')
		case 't':
			d.scratch = append(d.scratch, '\t')
		case 'u':
			n, ok := d.unicodeEscape(i)
			if !ok {
				return nil, false
			}
			i += n
			continue
		default:
			return nil, d.syntaxErr(i, "invalid escape in string")
		}
		i += 2
	}
	return nil, d.syntaxErr(len(d.data), "unterminated string")
}

// hex4 decodes the four hex digits (either case) at i, or returns -1.
func (d *decoder) hex4(i int) rune {
	if i+4 > len(d.data) {
		return -1
	}
	var r rune
	for _, c := range d.data[i : i+4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		case 'A' <= c && c <= 'F':
			c -= 'A' - 10
		default:
			return -1
		}
		r = r<<4 | rune(c)
	}
	return r
}

// unicodeEscape decodes the \uXXXX escape at i (and its low surrogate, if
// it is a high one), appends it to d.scratch and returns the bytes read.
func (d *decoder) unicodeEscape(i int) (int, bool) {
	r := d.hex4(i + 2)
	if r < 0 {
		return 0, d.syntaxErr(i, "invalid \\u escape in string")
	}
	if r >= 0xd800 && r < 0xdc00 && i+8 <= len(d.data) && d.data[i+6] == '\\' && d.data[i+7] == 'u' {
		if lo := d.hex4(i + 8); lo >= 0xdc00 && lo < 0xe000 {
			d.scratch = utf8.AppendRune(d.scratch, 0x10000+(r-0xd800)<<10+(lo-0xdc00))
			return 12, true
		}
	}
	if r >= 0xd800 && r < 0xe000 {
		// A lone surrogate: keep it as (invalid) generalized UTF-8.
		d.scratch = append(d.scratch, 0xe0|byte(r>>12), 0x80|byte(r>>6)&0x3f, 0x80|byte(r)&0x3f)
		return 6, true
	}
	d.scratch = utf8.AppendRune(d.scratch, r)
	return 6, true
}

// value checks and skips one JSON value of any type.
func (d *decoder) value() bool {
	d.ws()
	switch c := d.peek(); {
	case c == '"':
		_, ok := d.str()
		return ok
	case c == '{' || c == '[':
		return d.container(c)
	case c == 't':
		return d.literal("true")
	case c == 'f':
		return d.literal("false")
	case c == 'n':
		return d.literal("null")
	case c == '-' || ('0' <= c && c <= '9'):
		return d.number()
	case d.pos >= len(d.data):
		return d.syntaxErr(d.pos, "unexpected end of input")
	default:
		return d.syntaxErr(d.pos, unexpected(c))
	}
}

// container checks and skips an object (c == '{') or array (c == '[').
func (d *decoder) container(c byte) bool {
	if d.depth++; d.depth > maxDepth {
		return d.syntaxErr(d.pos, "nesting too deep")
	}
	defer func() { d.depth-- }()
	end := byte(']')
	if c == '{' {
		end = '}'
	}
	d.pos++
	d.ws()
	if d.peek() == end {
		d.pos++
		return true
	}
	for {
		if c == '{' && !d.key() {
			return false
		}
		if !d.value() {
			return false
		}
		d.ws()
		switch d.peek() {
		case ',':
			d.pos++
		case end:
			d.pos++
			return true
		default:
			return d.endOfMember()
		}
	}
}

// endOfMember reports the syntax error of a member not followed by ',' or
// the closing bracket.
func (d *decoder) endOfMember() bool {
	if d.pos >= len(d.data) {
		return d.syntaxErr(d.pos, "unexpected end of input")
	}
	return d.syntaxErr(d.pos, unexpected(d.data[d.pos])+" after a value")
}

// keyBytes reads an object key and its colon and returns the key, which is
// valid until the next str.
func (d *decoder) keyBytes() ([]byte, bool) {
	d.ws()
	if d.peek() != '"' {
		if d.pos >= len(d.data) {
			return nil, d.syntaxErr(d.pos, "unexpected end of input")
		}
		return nil, d.syntaxErr(d.pos, unexpected(d.data[d.pos])+", want a key")
	}
	k, ok := d.str()
	if !ok {
		return nil, false
	}
	d.ws()
	if d.peek() != ':' {
		return nil, d.syntaxErr(d.pos, "want ':' after a key")
	}
	d.pos++
	return k, true
}

// key checks and skips an object key and its colon.
func (d *decoder) key() bool {
	_, ok := d.keyBytes()
	return ok
}

// literal checks and skips true, false or null.
func (d *decoder) literal(word string) bool {
	if len(d.data)-d.pos < len(word) || string(d.data[d.pos:d.pos+len(word)]) != word {
		return d.syntaxErr(d.pos, unexpected(d.data[d.pos]))
	}
	d.pos += len(word)
	return true
}

// number checks and skips a number in RFC 8259 grammar.
func (d *decoder) number() bool {
	start := d.pos
	if d.peek() == '-' {
		d.pos++
	}
	switch c := d.peek(); {
	case c == '0':
		d.pos++
	case '1' <= c && c <= '9':
		d.digits()
	default:
		return d.syntaxErr(start, "invalid number")
	}
	if d.peek() == '.' {
		d.pos++
		if !d.digits() {
			return d.syntaxErr(start, "invalid number")
		}
	}
	if c := d.peek(); c == 'e' || c == 'E' {
		d.pos++
		if c := d.peek(); c == '+' || c == '-' {
			d.pos++
		}
		if !d.digits() {
			return d.syntaxErr(start, "invalid number")
		}
	}
	return true
}

// digits skips one or more decimal digits and reports whether there was one.
func (d *decoder) digits() bool {
	start := d.pos
	for c := d.peek(); '0' <= c && c <= '9'; c = d.peek() {
		d.pos++
	}
	return d.pos > start
}

// push enters member name of the current value.
func (d *decoder) push(name string) { d.path = append(d.path, pathElem{name: name}) }

// pushIndex enters element i of the current array.
func (d *decoder) pushIndex(i int) { d.path = append(d.path, pathElem{index: i}) }

// pop leaves the innermost path step.
func (d *decoder) pop() { d.path = d.path[:len(d.path)-1] }

// pathTo returns the current path, extended by member name when non-empty.
func (d *decoder) pathTo(name string) string {
	var b []byte
	for _, p := range d.path {
		if p.name == "" {
			b = append(b, '[')
			b = strconv.AppendInt(b, int64(p.index), 10)
			b = append(b, ']')
			continue
		}
		if len(b) > 0 {
			b = append(b, '.')
		}
		b = append(b, p.name...)
	}
	if name != "" {
		if len(b) > 0 {
			b = append(b, '.')
		}
		b = append(b, name...)
	}
	return string(b)
}

// fail records a structural error at the current path extended by name.
func (d *decoder) fail(name, code, msg string) {
	path := d.pathTo(name)
	where := path
	if where == "" {
		where = "the object"
	}
	d.errs = append(d.errs, &FieldError{Type: d.typ, Field: path, Code: code, Message: where + " " + msg})
}
