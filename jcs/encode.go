// This file holds the package documentation and the scalar encoders:
// AppendString, AppendKey and AppendNumber, with the byte-level helpers
// (eight-byte plain-ASCII test, UTF-8 sequence length) that the parser shares.

// Package jcs implements RFC 8785, the JSON Canonicalization Scheme: the one
// byte form of a JSON value that deloreis hashes to name its objects.
//
// It has two ways in. Typed objects, whose keys are fixed, append their
// members directly with AppendString, AppendKey and AppendNumber, in the key
// order the caller has already sorted (by UTF-16 code units, which is plain
// byte order unless the keys mix characters from U+E000 to U+FFFF with ones
// above U+FFFF). Raw JSON bytes go through Transform or
// Append, which parse them strictly (RFC 8259 grammar plus I-JSON: no
// duplicate keys, no lone surrogates, no invalid UTF-8, no number outside the
// IEEE 754 double range, nesting at most MaxDepth deep) and write the
// canonical form. Every error is one of the typed errors of this package
// (*SyntaxError, *DuplicateKeyError, *InvalidUTF8Error, *LoneSurrogateError,
// *NumberError, *DepthError). It is not a general JSON library: it does not
// decode into Go values.
package jcs

import (
	"math"
	"strconv"
	"unicode/utf8"
)

const hexDigits = "0123456789abcdef"

// AppendString appends s as a canonical JSON string (RFC 8785 section
// 3.2.2.2): the two-character escapes for \b \t \n \f \r " and \\, \u00xx with
// lowercase hex for the other control characters below U+0020, and every other
// code point written raw in UTF-8. It refuses invalid UTF-8, including the
// encoded surrogate halves U+D800 to U+DFFF, with an *InvalidUTF8Error whose
// Offset is the byte index in s; dst is then returned as it was passed.
func AppendString(dst []byte, s string) ([]byte, error) {
	out, bad := appendQuoted(dst, s)
	if bad >= 0 {
		return dst, &InvalidUTF8Error{Offset: int64(bad)}
	}
	return out, nil
}

// AppendKey appends key as a canonical JSON string followed by ':', ready for
// the member's value. It fails as AppendString does.
func AppendKey(dst []byte, key string) ([]byte, error) {
	out, bad := appendQuoted(dst, key)
	if bad >= 0 {
		return dst, &InvalidUTF8Error{Offset: int64(bad)}
	}
	return append(out, ':'), nil
}

// appendQuoted appends s quoted and escaped by RFC 8785 rules. It returns the
// index of the first byte of s that does not start a valid UTF-8 sequence, or
// -1 when s is valid (in which case the whole string has been appended).
func appendQuoted[T ~string | ~[]byte](dst []byte, s T) ([]byte, int) {
	dst = append(dst, '"')
	start := 0 // s[start:i] is plain and not yet appended
	i := 0
	for i < len(s) {
		// Fast path: eight plain ASCII bytes at a time.
		for i+8 <= len(s) && plain8(load64(s, i)) {
			i += 8
		}
		if i+8 > len(s) && len(s) >= 8 && plain8(load64(s, len(s)-8)) {
			break // the last eight bytes, overlapping those checked, are plain
		}
		if i >= len(s) {
			break
		}
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\t':
				dst = append(dst, '\\', 't')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\r':
				dst = append(dst, '\\', 'r')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		n := utf8Len(s, i)
		if n == 0 {
			return dst, i
		}
		i += n
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"'), -1
}

// AppendNumber appends f as a canonical JSON number: the shortest
// round-tripping decimal, laid out as ECMAScript's Number.prototype.toString
// lays it out (RFC 8785 section 3.2.2.3). Negative zero is written 0. NaN and
// the infinities have no JSON form and return a *NumberError with Offset -1;
// dst is then returned as it was passed.
func AppendNumber(dst []byte, f float64) ([]byte, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return dst, &NumberError{Offset: -1, Literal: strconv.FormatFloat(f, 'g', -1, 64), Reason: "not a finite number"}
	}
	return appendFinite(dst, f), nil
}

// appendFinite is AppendNumber for a number already known to be finite.
func appendFinite(dst []byte, f float64) []byte {
	if f == 0 {
		return append(dst, '0') // both zeros
	}
	abs := math.Abs(f)
	if abs >= 1e21 || abs < 1e-6 {
		// ECMAScript switches to exponent form when the decimal exponent
		// of the shortest digits is above 21 or below -6; for doubles that
		// is exactly these two comparisons (1e21 is exact, and the double
		// nearest 1e-6 has the shortest digits "1e-6"). ECMAScript writes
		// "1e+21", "1.5e-7"; Go writes "1e+21", "1.5e-07": drop the zero
		// padding of a one-digit exponent.
		dst = strconv.AppendFloat(dst, f, 'e', -1, 64)
		n := len(dst)
		if dst[n-4] == 'e' && dst[n-2] == '0' {
			dst[n-2] = dst[n-1]
			dst = dst[:n-1]
		}
		return dst
	}
	return strconv.AppendFloat(dst, f, 'f', -1, 64)
}

// Byte-parallel tests on eight bytes packed little-endian in a uint64.
const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// plain8 reports whether all eight bytes in x are ASCII that a JSON string
// carries unescaped: none below 0x20, none '"' or '\\', none 0x80 or above.
// Each term is the classic "has a byte less than n / has a zero byte" test;
// they are exact for whether any byte matches as long as no byte has its
// high bit set, and x itself is OR-ed in to catch those.
func plain8(x uint64) bool {
	q := x ^ (ones * '"')
	b := x ^ (ones * '\\')
	m := (x - ones*0x20) &^ x
	m |= (q - ones) &^ q
	m |= (b - ones) &^ b
	return (m|x)&highs == 0
}

// load64 returns s[i:i+8] as a little-endian uint64. The caller ensures
// i+8 <= len(s). The compiler merges the byte loads into one load.
func load64[T ~string | ~[]byte](s T, i int) uint64 {
	s = s[i : i+8]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// utf8Len returns the length of the valid UTF-8 sequence of two to four bytes
// that starts at s[i], or 0 when there is none there (a stray continuation
// byte, an overlong form, an encoded surrogate, a value above U+10FFFF, or a
// sequence cut short). s[i] must be 0x80 or above. It accepts exactly what
// unicode/utf8 accepts.
func utf8Len[T ~string | ~[]byte](s T, i int) int {
	c := s[i]
	n := len(s) - i
	switch {
	case c < 0xC2:
		return 0
	case c < 0xE0:
		if n < 2 || s[i+1]&0xC0 != 0x80 {
			return 0
		}
		return 2
	case c < 0xF0:
		if n < 3 {
			return 0
		}
		lo, hi := byte(0x80), byte(0xBF)
		if c == 0xE0 {
			lo = 0xA0 // overlong below U+0800
		} else if c == 0xED {
			hi = 0x9F // surrogates U+D800..U+DFFF
		}
		if b := s[i+1]; b < lo || b > hi || s[i+2]&0xC0 != 0x80 {
			return 0
		}
		return 3
	case c < 0xF5:
		if n < 4 {
			return 0
		}
		lo, hi := byte(0x80), byte(0xBF)
		if c == 0xF0 {
			lo = 0x90 // overlong below U+10000
		} else if c == 0xF4 {
			hi = 0x8F // above U+10FFFF
		}
		if b := s[i+1]; b < lo || b > hi || s[i+2]&0xC0 != 0x80 || s[i+3]&0xC0 != 0x80 {
			return 0
		}
		return 4
	}
	return 0
}
