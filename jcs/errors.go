// This file holds the typed errors of package jcs. Each failure class has
// its own type so that callers can tell them apart with errors.As.

package jcs

import (
	"fmt"
	"strconv"
)

// maxQuoted bounds how much of the input an error message repeats: error
// strings end up in logs, and the input may be large and hostile.
const maxQuoted = 64

// quoteBounded quotes s with strconv.Quote (so control characters cannot
// reach a log raw), cutting it to maxQuoted bytes first.
func quoteBounded(s string) string {
	if len(s) <= maxQuoted {
		return strconv.Quote(s)
	}
	return strconv.Quote(s[:maxQuoted]) + fmt.Sprintf(" (cut from %d bytes)", len(s))
}

// SyntaxError reports input that is not JSON by the RFC 8259 grammar: an
// unexpected character or end of input, a malformed number or escape, a raw
// control character in a string, or content after the value.
type SyntaxError struct {
	Offset int64  // byte offset in the input where the problem was found
	Msg    string // what was wrong, lowercase
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("jcs: syntax error at offset %d: %s", e.Offset, e.Msg)
}

// DuplicateKeyError reports an object that names the same member twice.
// Keys are compared after unescaping, so "a" and "\u0061" are the same key.
type DuplicateKeyError struct {
	Key    string // the key, unescaped
	Offset int64  // byte offset of the opening quote of the repeated key
}

func (e *DuplicateKeyError) Error() string {
	return fmt.Sprintf("jcs: duplicate key %s at offset %d", quoteBounded(e.Key), e.Offset)
}

// InvalidUTF8Error reports bytes that are not valid UTF-8, at Offset in the
// input (or in the string being encoded).
type InvalidUTF8Error struct {
	Offset int64
}

func (e *InvalidUTF8Error) Error() string {
	return fmt.Sprintf("jcs: invalid UTF-8 at offset %d", e.Offset)
}

// LoneSurrogateError reports a \u escape of a UTF-16 surrogate that is not
// half of a pair: a high surrogate (\ud800 to \udbff) not followed at once by
// a \u escape of a low surrogate, or a low surrogate (\udc00 to \udfff) with
// no high surrogate before it. Such a string has no Unicode form.
type LoneSurrogateError struct {
	Offset int64 // byte offset of the backslash of the lone escape
}

func (e *LoneSurrogateError) Error() string {
	return fmt.Sprintf("jcs: lone surrogate escape at offset %d", e.Offset)
}

// NumberError reports a number that has no canonical form: NaN, an infinity,
// or a literal outside the IEEE 754 double range. Offset is the byte offset
// of the literal in the input, or -1 when the number was not parsed from
// input (AppendNumber).
type NumberError struct {
	Offset  int64
	Literal string
	Reason  string
}

func (e *NumberError) Error() string {
	if e.Offset < 0 {
		return fmt.Sprintf("jcs: number %s: %s", quoteBounded(e.Literal), e.Reason)
	}
	return fmt.Sprintf("jcs: number %s at offset %d: %s", quoteBounded(e.Literal), e.Offset, e.Reason)
}

// DepthError reports arrays and objects nested more than Limit deep.
type DepthError struct {
	Offset int64 // byte offset of the '[' or '{' that went too deep
	Limit  int   // the nesting limit, MaxDepth
}

func (e *DepthError) Error() string {
	return fmt.Sprintf("jcs: nesting deeper than %d at offset %d", e.Limit, e.Offset)
}
