// This file holds table tests of the scalar encoders (AppendString,
// AppendKey, AppendNumber), of the byte helpers they share with the parser
// (plain8, utf8Len), of the UTF-16 key order (compareKeys), and of Digest.

package jcs

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode/utf16"
	"unicode/utf8"
)

func TestAppendString(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", `""`},
		{"abc", `"abc"`},
		{"deloreis/object/0123456789abcdef", `"deloreis/object/0123456789abcdef"`},
		{"\"\\", `"\"\\"`},
		{"\b\t\n\f\r", `"\b\t\n\f\r"`},
		{"\x00\x01\x0f\x10\x1f", `"\u0000\u0001\u000f\u0010\u001f"`},
		{"\x7f/<>&", "\"\x7f/<>&\""},
		{"é€😂\u2028\ufeff", "\"é€😂\u2028\ufeff\""},
		{"\uffff\U0010ffff", "\"\uffff\U0010ffff\""},
		{"a\"b" + strings.Repeat("x", 17) + "\n", `"a\"b` + strings.Repeat("x", 17) + `\n"`},
		{strings.Repeat("12345678", 4) + "\x1f", `"` + strings.Repeat("12345678", 4) + `\u001f"`},
	}
	for _, tt := range tests {
		got, err := AppendString([]byte("<"), tt.in)
		if err != nil || string(got) != "<"+tt.want {
			t.Errorf("AppendString(%q) = %q, %v; want %q", tt.in, got, err, "<"+tt.want)
		}
		got, err = AppendKey(nil, tt.in)
		if err != nil || string(got) != tt.want+":" {
			t.Errorf("AppendKey(%q) = %q, %v; want %q", tt.in, got, err, tt.want+":")
		}
	}
}

func TestAppendStringInvalid(t *testing.T) {
	tests := []struct {
		in  string
		off int64
	}{
		{"\xff", 0},
		{"abc\x80", 3},
		{"abcdefghijklmnop\xc0\xaf", 16},
		{"é\xed\xa0\x80", 2},      // encoded surrogate
		{"ok\xf4\x90\x80\x80", 2}, // above U+10FFFF
		{"\xe2\x82", 0},           // cut short
		{"\"\n\xf0\x9f\x98", 2},   // cut short after escapes
	}
	for _, tt := range tests {
		for _, f := range []func([]byte, string) ([]byte, error){AppendString, AppendKey} {
			got, err := f([]byte("dst"), tt.in)
			var e *InvalidUTF8Error
			if !errors.As(err, &e) || e.Offset != tt.off {
				t.Errorf("(%q): err = %v, want *InvalidUTF8Error at %d", tt.in, err, tt.off)
			}
			if string(got) != "dst" {
				t.Errorf("(%q): dst = %q, want unchanged", tt.in, got)
			}
		}
	}
}

func TestAppendNumber(t *testing.T) {
	tests := []struct {
		in   float64
		want string
	}{
		{0, "0"},
		{math.Copysign(0, -1), "0"},
		{1, "1"},
		{-1, "-1"},
		{0.1, "0.1"},
		{1e21, "1e+21"},
		{1e20, "100000000000000000000"},
		{123456789012345680000, "123456789012345680000"},
		{1e-6, "0.000001"},
		{1e-7, "1e-7"},
		{1.5e-7, "1.5e-7"},
		{-1e-7, "-1e-7"},
		{1e100, "1e+100"},
		{5e-324, "5e-324"},
		{math.MaxFloat64, "1.7976931348623157e+308"},
		{-math.MaxFloat64, "-1.7976931348623157e+308"},
		{9007199254740993, "9007199254740992"},
		{333333333.33333329, "333333333.3333333"},
		{4.5, "4.5"},
		{2e-3, "0.002"},
		{1e-27, "1e-27"},
	}
	for _, tt := range tests {
		got, err := AppendNumber([]byte("n="), tt.in)
		if err != nil || string(got) != "n="+tt.want {
			t.Errorf("AppendNumber(%v) = %q, %v; want %q", tt.in, got, err, "n="+tt.want)
		}
	}
}

// TestPlain8 checks the eight-byte test against a byte loop, for every byte
// value at every position.
func TestPlain8(t *testing.T) {
	plainByte := func(c byte) bool { return c >= 0x20 && c < 0x80 && c != '"' && c != '\\' }
	for pos := 0; pos < 8; pos++ {
		for v := 0; v < 256; v++ {
			for _, fill := range []byte{'a', ' ', '~', 0x7f} {
				w := []byte(strings.Repeat(string(fill), 8))
				w[pos] = byte(v)
				want := true
				for _, c := range w {
					want = want && plainByte(c)
				}
				if got := plain8(load64(w, 0)); got != want {
					t.Fatalf("plain8(%q) = %v, want %v", w, got, want)
				}
				if got := plain8(load64(string(w), 0)); got != want {
					t.Fatalf("plain8(string %q) = %v, want %v", w, got, want)
				}
			}
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	for n := 0; n < 100000; n++ {
		w := make([]byte, 8)
		want := true
		for i := range w {
			w[i] = byte(r.IntN(256))
			if r.IntN(2) == 0 {
				w[i] = byte(0x20 + r.IntN(0x60))
			}
			want = want && plainByte(w[i])
		}
		if got := plain8(load64(w, 0)); got != want {
			t.Fatalf("plain8(%q) = %v, want %v", w, got, want)
		}
	}
}

// TestUTF8Len checks utf8Len against unicode/utf8 for every lead byte and
// second and third byte, and sampled fourth bytes, at every cut length.
func TestUTF8Len(t *testing.T) {
	ref := func(b []byte) int {
		r, n := utf8.DecodeRune(b)
		if r == utf8.RuneError && n <= 1 {
			return 0
		}
		return n
	}
	buf := make([]byte, 4)
	for b0 := 0x80; b0 < 0x100; b0++ {
		for b1 := 0; b1 < 0x100; b1++ {
			for b2 := 0; b2 < 0x100; b2++ {
				for _, b3 := range []byte{0x41, 0x80, 0xbf, 0xc0} {
					buf[0], buf[1], buf[2], buf[3] = byte(b0), byte(b1), byte(b2), b3
					for cut := 1; cut <= 4; cut++ {
						if cut < 4 && b3 != 0x80 {
							continue
						}
						s := buf[:cut]
						if got, want := utf8Len(s, 0), ref(s); got != want {
							t.Fatalf("utf8Len(% x) = %d, want %d", s, got, want)
						}
					}
				}
			}
		}
	}
}

// utf16Compare is the reference key order: compare the UTF-16 code units.
func utf16Compare(a, b string) int {
	return slices.Compare(utf16.Encode([]rune(a)), utf16.Encode([]rune(b)))
}

func hasHigh(s string) bool {
	return strings.ContainsFunc(s, func(r rune) bool { return r >= 0xE000 })
}

func TestCompareKeys(t *testing.T) {
	// Characters near every boundary that matters, in UTF-8 and UTF-16.
	alphabet := []rune{0, 'A', 'a', 0x7f, 0x80, 0x7ff, 0x800, 0xd7ff, 0xe000, 0xfb33, 0xfffd, 0xffff,
		0x10000, 0x1f602, 0x10ffff, 0x100ff, 0xe0ff}
	r := rand.New(rand.NewPCG(3, 4))
	randKey := func() string {
		n := r.IntN(4)
		rs := make([]rune, n)
		for i := range rs {
			rs[i] = alphabet[r.IntN(len(alphabet))]
		}
		return string(rs)
	}
	sign := func(x int) int { return min(max(x, -1), 1) }
	for n := 0; n < 200000; n++ {
		a, b := randKey(), randKey()
		if r.IntN(3) == 0 {
			b = a + b // shared prefix
		}
		want := sign(utf16Compare(a, b))
		if got := sign(compareKeys([]byte(a), []byte(b), hasHigh(a), hasHigh(b))); got != want {
			t.Fatalf("compareKeys(%+q, %+q) = %d, want %d", a, b, got, want)
		}
	}
}

func TestDigest(t *testing.T) {
	// BLAKE3-256 of the empty input and of "abc", from the BLAKE3 spec.
	tests := []struct{ in, want string }{
		{"", "af1349b9f5f9a1a6a0404dea36dcc9499bcb25c9adc112b7cc9a93cae41f3262"},
		{"abc", "6437b3ac38465133ffb63b75273a8db548c558465d79db03fd359c6cd5bd9d85"},
	}
	for _, tt := range tests {
		if got := Sum([]byte(tt.in)).String(); got != tt.want {
			t.Errorf("Sum(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

// refQuote is a plain reference for AppendString: rune by rune, no fast path.
func refQuote(s string) (string, bool) {
	if !utf8.ValidString(s) {
		return "", false
	}
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\b':
			b.WriteString(`\b`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\f':
			b.WriteString(`\f`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x20:
			b.WriteString(`\u00`)
			b.WriteByte(hexDigits[r>>4])
			b.WriteByte(hexDigits[r&0xf])
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String(), true
}

// TestAppendStringPositions puts each kind of special byte at every position
// of strings around the eight-byte block boundaries of the fast path.
func TestAppendStringPositions(t *testing.T) {
	specials := []string{`"`, `\`, "\n", "\x01", "\x1f", "\x7f", "é", "😂", "\xff", "\xe2\x82", "~"}
	for n := 0; n <= 26; n++ {
		for pos := 0; pos <= n; pos++ {
			for _, sp := range specials {
				s := strings.Repeat("a", pos) + sp + strings.Repeat("b", n-pos)
				want, ok := refQuote(s)
				got, err := AppendString(nil, s)
				if ok != (err == nil) || (ok && string(got) != want) {
					t.Fatalf("AppendString(%q) = %q, %v; want %q (valid %v)", s, got, err, want, ok)
				}
				// The parser's fast path sees the same string as JSON.
				if ok {
					out, err := Transform([]byte(want))
					if err != nil || string(out) != want {
						t.Fatalf("Transform(%q) = %q, %v", want, out, err)
					}
				}
			}
		}
	}
}
