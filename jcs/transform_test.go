// This file holds table tests of Transform and Append: canonical outputs for
// the cases the shared vectors do not cover, and every class of bad input
// with the error type and offset it must produce.

package jcs

import (
	"bytes"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// transformCases are good inputs with their canonical forms, beyond what the
// shared vectors cover. The fuzz targets use them as seeds too.
var transformCases = []struct{ name, in, want string }{
	{"top-level number", `42`, `42`},
	{"top-level string", `"x"`, `"x"`},
	{"top-level literal", " \t\r\ntrue\n", `true`},
	{"top-level null", `null`, `null`},
	{"top-level false", `false`, `false`},
	{"negative zero", `-0`, `0`},
	{"negative zero with fraction", `-0.0e5`, `0`},
	{"negative zero in array", `[-0, 0, -0.0]`, `[0,0,0]`},
	{"above 2^53 rounds", `9007199254740993`, `9007199254740992`},
	{"2^53 plus two stays", `9007199254740994`, `9007199254740994`},
	{"fifteen digits kept", `-123456789012345`, `-123456789012345`},
	{"sixteen digits", `1234567890123456`, `1234567890123456`},
	{"1e21", `1000000000000000000000`, `1e+21`},
	{"below 1e21", `100000000000000000000`, `100000000000000000000`},
	{"exponent form", `1E30`, `1e+30`},
	{"small", `0.000001`, `0.000001`},
	{"smaller", `0.0000001`, `1e-7`},
	{"trailing zeros", `4.50`, `4.5`},
	{"integral fraction", `56.0`, `56`},
	{"exponent plus", `1e+2`, `100`},
	{"exponent leading zeros", `1e007`, `10000000`},
	{"underflow rounds to zero", `1e-400`, `0`},
	{"negative underflow", `-1e-400`, `0`},
	{"smallest subnormal", `5e-324`, `5e-324`},
	{"largest double", `1.7976931348623157e308`, `1.7976931348623157e+308`},
	{"long mantissa", `0.` + strings.Repeat("3", 400), `0.3333333333333333`},
	{"zero with huge exponent", `0e99999999999`, `0`},
	{"empty array", `[ ]`, `[]`},
	{"empty object", "{ \n }", `{}`},
	{"nested empties", `[{},[],{"a":[]}]`, `[{},[],{"a":[]}]`},
	{"sorted members", `{"b":1,"a":2,"c":{"z":0,"y":1}}`, `{"a":2,"b":1,"c":{"y":1,"z":0}}`},
	{"key prefix sorts first", `{"ab":1,"a":2}`, `{"a":2,"ab":1}`},
	{"empty key", `{"a":1,"":2}`, `{"":2,"a":1}`},
	{"escaped keys sort unescaped", `{"\u0062":1,"a":2}`, `{"a":2,"b":1}`},
	{"newline key sorts before A", `{"A":1,"\n":2}`, `{"\n":2,"A":1}`},
	// U+1F602 is D83D DE02 in UTF-16, before U+FB33 and U+E000, though
	// after them in UTF-8 and in code points.
	{"utf16 order astral first", `{"\uE000":1,"😂":2}`, "{\"😂\":2,\"\ue000\":1}"},
	{"utf16 order astral vs ffff", `{"\uffff":1,"\ud800\udc00":2}`, "{\"\U00010000\":2,\"\uffff\":1}"},
	{"utf16 order below d800", `{"😂":1,"\ud7ff":2}`, "{\"\ud7ff\":2,\"😂\":1}"},
	{"utf16 order same lead", `{"\ufb33":1,"\ue000":2}`, "{\"\ue000\":2,\"\ufb33\":1}"},
	{"escapes rewritten", `"\/\b\f\n\r\t\"\\\u0041\u00e9\u20ac\u001f\u007f"`, "\"/\\b\\f\\n\\r\\t\\\"\\\\Aé€\\u001f\x7f\""},
	{"nul escape", `"\u0000"`, `"\u0000"`},
	{"uppercase hex", `"\u00E9\uD83D\uDE02"`, `"é😂"`},
	{"surrogate pair", `"\ud83d\ude02"`, `"😂"`},
	{"raw non-ASCII kept", `"Å\u030a €"`, "\"Å\u030a €\""},
	{"no normalization", "\"A\u030a\"", "\"A\u030a\""},
	{"script not escaped", `"</script>"`, `"</script>"`},
	{"line separator raw", `"\u2028"`, "\"\u2028\""},
	{"long plain string", `"` + strings.Repeat("abcdefgh", 20) + `"`, `"` + strings.Repeat("abcdefgh", 20) + `"`},
	{"long escaped string", `"` + strings.Repeat("a\\n", 20) + `"`, `"` + strings.Repeat("a\\n", 20) + `"`},
	{"whitespace everywhere", " { \"a\" : [ 1 , 2 ] , \"b\" : { } } ", `{"a":[1,2],"b":{}}`},
	{"deep but allowed", strings.Repeat("[", MaxDepth) + strings.Repeat("]", MaxDepth), strings.Repeat("[", MaxDepth) + strings.Repeat("]", MaxDepth)},
	{"array of objects reordered", `[{"b":{"d":1,"c":2},"a":[3]},{"y":1,"x":2}]`, `[{"a":[3],"b":{"c":2,"d":1}},{"x":2,"y":1}]`},
}

func TestTransformCases(t *testing.T) {
	for _, tt := range transformCases {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Transform([]byte(tt.in))
			if err != nil {
				t.Fatalf("Transform(%q): %v", tt.in, err)
			}
			if string(got) != tt.want {
				t.Fatalf("Transform(%q)\n got: %q\nwant: %q", tt.in, got, tt.want)
			}
		})
	}
}

// errorCase is one bad input and the error it must produce.
type errorCase struct {
	name   string
	in     string
	check  func(error) bool // the error has the right type and fields
	offset int64            // expected Offset field
}

func syntaxAt(off int64) (func(error) bool, int64) {
	return func(err error) bool { var e *SyntaxError; return errors.As(err, &e) && e.Offset == off }, off
}

// checkAt makes an error check for an expected offset, and returns it
// with that offset.
type checkAt = func(int64) (func(error) bool, int64)

// dupAt checks for a *DuplicateKeyError naming key.
func dupAt(key string) checkAt {
	return func(off int64) (func(error) bool, int64) {
		return func(err error) bool {
			var e *DuplicateKeyError
			return errors.As(err, &e) && e.Key == key && e.Offset == off
		}, off
	}
}

// loneAt checks for a *LoneSurrogateError.
func loneAt(off int64) (func(error) bool, int64) {
	return func(err error) bool { var e *LoneSurrogateError; return errors.As(err, &e) && e.Offset == off }, off
}

// utf8At checks for an *InvalidUTF8Error.
func utf8At(off int64) (func(error) bool, int64) {
	return func(err error) bool { var e *InvalidUTF8Error; return errors.As(err, &e) && e.Offset == off }, off
}

// numberAt checks for a *NumberError.
func numberAt(off int64) (func(error) bool, int64) {
	return func(err error) bool { var e *NumberError; return errors.As(err, &e) && e.Offset == off }, off
}

// depthAt checks for a *DepthError at MaxDepth.
func depthAt(off int64) (func(error) bool, int64) {
	return func(err error) bool {
		var e *DepthError
		return errors.As(err, &e) && e.Offset == off && e.Limit == MaxDepth
	}, off
}

// badCase makes the errorCase for input in, checked by f at offset off.
func badCase(name, in string, f checkAt, off int64) errorCase {
	check, o := f(off)
	return errorCase{name: name, in: in, check: check, offset: o}
}

// badCases returns every bad input and its error, class by class.
func badCases() []errorCase {
	var cases []errorCase
	for _, class := range [][]errorCase{duplicateCases(), surrogateCases(), utf8Cases(), numberCases(), syntaxCases(), depthCases()} {
		cases = append(cases, class...)
	}
	return cases
}

// duplicateCases returns the bad inputs of the duplicate keys.
func duplicateCases() []errorCase {
	return []errorCase{
		// Duplicate keys.
		badCase("duplicate key", `{"a":1,"a":2}`, dupAt("a"), 7),
		badCase("escaped duplicate key", `{"a":1,"\u0061":2}`, dupAt("a"), 7),
		badCase("duplicate key both escaped", `{"\n":1,"\u000a":2}`, dupAt("\n"), 8),
		badCase("duplicate key not adjacent", `{"b":1,"a":2,"c":3,"b":4}`, dupAt("b"), 19),
		badCase("first duplicate reported", `{"b":1,"a":2,"b":3,"a":4}`, dupAt("b"), 13),
		badCase("duplicate empty key", `{"":1,"":2}`, dupAt(""), 6),
		badCase("duplicate astral key", `{"😂":1,"\ud83d\ude02":2}`, dupAt("😂"), 10),
		badCase("duplicate in nested object", `[{"x":{"k":1,"k":1}}]`, dupAt("k"), 13),
	}
}

// surrogateCases returns the bad inputs of the lone surrogates.
func surrogateCases() []errorCase {
	return []errorCase{
		// Surrogates.
		badCase("lone high surrogate", `"\ud800"`, loneAt, 1),
		badCase("lone high surrogate then text", `"\ud800abc"`, loneAt, 1),
		badCase("high surrogate then high", `"\ud800\ud800"`, loneAt, 1),
		badCase("high surrogate then BMP escape", `"x\udbff\u0041"`, loneAt, 2),
		badCase("high surrogate then newline escape", `"\ud800\n"`, loneAt, 1),
		badCase("lone low surrogate", `"\udc00"`, loneAt, 1),
		badCase("lone low surrogate uppercase", `"ab\uDFFF"`, loneAt, 3),
		badCase("reversed pair", `"\ude02\ud83d"`, loneAt, 1),
		badCase("lone surrogate in key", `{"\ud800":1}`, loneAt, 2),
	}
}

// utf8Cases returns the bad inputs of the invalid UTF-8.
func utf8Cases() []errorCase {
	return []errorCase{
		// Invalid UTF-8.
		badCase("invalid byte in string", "\"a\xffb\"", utf8At, 2),
		badCase("invalid byte in escaped string", "\"\\n\xff\"", utf8At, 3),
		badCase("stray continuation in string", "\"\x80\"", utf8At, 1),
		badCase("overlong in string", "\"\xc0\xaf\"", utf8At, 1),
		badCase("encoded surrogate in string", "\"\xed\xa0\x80\"", utf8At, 1),
		badCase("above U+10FFFF in string", "\"\xf4\x90\x80\x80\"", utf8At, 1),
		badCase("truncated sequence in string", "\"\xe2\x82\"", utf8At, 1),
		badCase("truncated at end of input", "\"\xe2\x82", utf8At, 1),
		badCase("invalid byte in key", "{\"\xfe\":1}", utf8At, 2),
		badCase("invalid byte as value", "\xff", utf8At, 0),
		badCase("invalid byte after value", "[1]\xc3", utf8At, 3),
		badCase("invalid byte between tokens", "[1,\xc3\x28]", utf8At, 3),
	}
}

// numberCases returns the bad inputs of the numbers out of range.
func numberCases() []errorCase {
	return []errorCase{
		// Numbers.
		badCase("overflow", `1e400`, numberAt, 0),
		badCase("negative overflow", `-1e400`, numberAt, 0),
		badCase("overflow in array", `[0, 1.8e308]`, numberAt, 4),
		badCase("overflow huge exponent", `1e99999999999999999999`, numberAt, 0),
	}
}

// syntaxCases returns the bad inputs of the syntax errors.
func syntaxCases() []errorCase {
	return []errorCase{
		// Syntax.
		badCase("empty input", ``, syntaxAt, 0),
		badCase("only whitespace", " \n", syntaxAt, 2),
		badCase("trailing comma array", `[1,]`, syntaxAt, 3),
		badCase("trailing comma object", `{"a":1,}`, syntaxAt, 7),
		badCase("leading comma", `[,1]`, syntaxAt, 1),
		badCase("double comma", `[1,,2]`, syntaxAt, 3),
		badCase("missing comma", `[1 2]`, syntaxAt, 3),
		badCase("leading zero", `01`, syntaxAt, 0),
		badCase("leading zero negative", `-01`, syntaxAt, 0),
		badCase("leading zeros", `[00]`, syntaxAt, 1),
		badCase("plus sign", `+1`, syntaxAt, 0),
		badCase("leading dot", `.5`, syntaxAt, 0),
		badCase("trailing dot", `1.`, syntaxAt, 0),
		badCase("dot exponent", `1.e5`, syntaxAt, 0),
		badCase("bare minus", `-`, syntaxAt, 0),
		badCase("minus letter", `-a`, syntaxAt, 0),
		badCase("empty exponent", `1e`, syntaxAt, 0),
		badCase("signed empty exponent", `1e+`, syntaxAt, 0),
		badCase("hex number", `0x10`, syntaxAt, 1),
		badCase("infinity literal", `Infinity`, syntaxAt, 0),
		badCase("nan literal", `NaN`, syntaxAt, 0),
		badCase("unterminated string", `"abc`, syntaxAt, 0),
		badCase("unterminated escaped string", `"a\nb`, syntaxAt, 0),
		badCase("unterminated after backslash", `"a\`, syntaxAt, 0),
		badCase("unterminated key", `{"a`, syntaxAt, 1),
		badCase("raw control character", "\"a\x01b\"", syntaxAt, 2),
		badCase("raw newline in string", "\"a\nb\"", syntaxAt, 2),
		badCase("raw tab after escape", "\"\\n\t\"", syntaxAt, 3),
		badCase("invalid escape", `"\x41"`, syntaxAt, 1),
		badCase("short unicode escape", `"\u12"`, syntaxAt, 1),
		badCase("bad hex in unicode escape", `"\u12g4"`, syntaxAt, 1),
		badCase("bad hex in low surrogate", `"\ud800\udcxz"`, syntaxAt, 7),
		badCase("trailing garbage", `{} x`, syntaxAt, 3),
		badCase("two values", `1 2`, syntaxAt, 2),
		badCase("trailing garbage after literal", `truex`, syntaxAt, 4),
		badCase("bad literal", `nul`, syntaxAt, 0),
		badCase("capital literal", `True`, syntaxAt, 0),
		badCase("single quotes", `'a'`, syntaxAt, 0),
		badCase("unquoted key", `{a:1}`, syntaxAt, 1),
		badCase("number key", `{1:1}`, syntaxAt, 1),
		badCase("missing colon", `{"a" 1}`, syntaxAt, 5),
		badCase("missing value", `{"a":}`, syntaxAt, 5),
		badCase("unclosed array", `[1`, syntaxAt, 2),
		badCase("unclosed object", `{"a":1`, syntaxAt, 6),
		badCase("mismatched close", `[1}`, syntaxAt, 2),
		badCase("close without open", `]`, syntaxAt, 0),
		badCase("comment", `[1 /* x */]`, syntaxAt, 3),
		badCase("non-ASCII outside string", `[1,é]`, syntaxAt, 3),
		badCase("BOM", "\ufeff1", syntaxAt, 0),
		badCase("vertical tab whitespace", "\v1", syntaxAt, 0),
		badCase("nbsp whitespace", "\u00a01", syntaxAt, 0),
	}
}

// depthCases returns the bad inputs of the nesting past MaxDepth.
func depthCases() []errorCase {
	return []errorCase{
		// Depth.
		badCase("too deep arrays", strings.Repeat("[", MaxDepth+1)+strings.Repeat("]", MaxDepth+1), depthAt, MaxDepth),
		badCase("too deep objects", strings.Repeat(`{"a":`, MaxDepth+1)+"1"+strings.Repeat("}", MaxDepth+1), depthAt, 5*MaxDepth),
		badCase("too deep unclosed", strings.Repeat("[", 100000), depthAt, MaxDepth),
	}
}

func TestTransformErrors(t *testing.T) {
	for _, tt := range badCases() {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Transform([]byte(tt.in))
			if err == nil {
				t.Fatalf("Transform(%q) = %q, want an error", tt.in, got)
			}
			if got != nil {
				t.Errorf("Transform returned %q with the error, want nil", got)
			}
			if !tt.check(err) {
				t.Fatalf("Transform(%q) error = %#v (%v), want type and offset %d", tt.in, err, err, tt.offset)
			}
			if !strings.HasPrefix(err.Error(), "jcs: ") {
				t.Errorf("error %q lacks the jcs: prefix", err)
			}
			dst := []byte("keep")
			out, err2 := Append(dst, []byte(tt.in))
			if err2 == nil || string(out) != "keep" {
				t.Errorf("Append on error = %q, %v; want dst unchanged and an error", out, err2)
			}
		})
	}
}

// TestErrorTypesDistinct checks that each error class matches only its own
// type under errors.As.
func TestErrorTypesDistinct(t *testing.T) {
	inputs := map[string]string{
		"syntax":    `[1,]`,
		"duplicate": `{"a":1,"a":2}`,
		"utf8":      "\"\xff\"",
		"surrogate": `"\ud800"`,
		"number":    `1e400`,
		"depth":     strings.Repeat("[", MaxDepth+1),
	}
	for name, in := range inputs {
		_, err := Transform([]byte(in))
		var (
			se *SyntaxError
			de *DuplicateKeyError
			ue *InvalidUTF8Error
			le *LoneSurrogateError
			ne *NumberError
			xe *DepthError
		)
		got := map[string]bool{
			"syntax":    errors.As(err, &se),
			"duplicate": errors.As(err, &de),
			"utf8":      errors.As(err, &ue),
			"surrogate": errors.As(err, &le),
			"number":    errors.As(err, &ne),
			"depth":     errors.As(err, &xe),
		}
		for kind, ok := range got {
			if ok != (kind == name) {
				t.Errorf("%s input %q: errors.As(%s) = %v (err %v)", name, in, kind, ok, err)
			}
		}
	}
}

func TestErrorMessages(t *testing.T) {
	long := strings.Repeat("k", 1000)
	tests := []struct {
		err  error
		want string
	}{
		{&SyntaxError{Offset: 3, Msg: "trailing comma in an array"}, "jcs: syntax error at offset 3: trailing comma in an array"},
		{&DuplicateKeyError{Key: "a\n", Offset: 7}, `jcs: duplicate key "a\n" at offset 7`},
		{&DuplicateKeyError{Key: long, Offset: 1}, `jcs: duplicate key "` + long[:64] + `" (cut from 1000 bytes) at offset 1`},
		{&InvalidUTF8Error{Offset: 2}, "jcs: invalid UTF-8 at offset 2"},
		{&LoneSurrogateError{Offset: 1}, "jcs: lone surrogate escape at offset 1"},
		{&NumberError{Offset: 0, Literal: "1e400", Reason: "out of the IEEE 754 double range"}, `jcs: number "1e400" at offset 0: out of the IEEE 754 double range`},
		{&NumberError{Offset: -1, Literal: "NaN", Reason: "not a finite number"}, `jcs: number "NaN": not a finite number`},
		{&DepthError{Offset: 1000, Limit: 1000}, "jcs: nesting deeper than 1000 at offset 1000"},
	}
	for _, tt := range tests {
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("Error() = %q, want %q", got, tt.want)
		}
	}
}

func TestNumberErrorFields(t *testing.T) {
	_, err := Transform([]byte(`[ -1e400]`))
	var ne *NumberError
	if !errors.As(err, &ne) || ne.Literal != "-1e400" || ne.Offset != 2 {
		t.Fatalf("got %#v, want NumberError for -1e400 at 2", err)
	}
	for _, f := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		out, err := AppendNumber([]byte("x"), f)
		if !errors.As(err, &ne) || ne.Offset != -1 || string(out) != "x" {
			t.Errorf("AppendNumber(%v) = %q, %v; want dst unchanged and a *NumberError", f, out, err)
		}
	}
}

// TestTransformReuse runs inputs of different shapes back to back, so that a
// pooled parser that kept state from the previous call would show.
func TestTransformReuse(t *testing.T) {
	ins := []string{`{"b":"\n","a":1}`, `[1,2]`, `{"a":1,"a":1}`, `"x"`, `{"z":{"y":"\u0041"},"x":[{"b":1,"a":0}]}`}
	want := make([][]byte, len(ins))
	for i, in := range ins {
		want[i], _ = Transform([]byte(in))
	}
	for round := 0; round < 3; round++ {
		for i, in := range ins {
			got, _ := Transform([]byte(in))
			if !bytes.Equal(got, want[i]) {
				t.Fatalf("round %d input %q: %q, first time %q", round, in, got, want[i])
			}
		}
	}
}

// TestTransformDoesNotModifyInput checks that the input bytes are left alone.
func TestTransformDoesNotModifyInput(t *testing.T) {
	in := []byte(`{"b":[1.50,"\u0041"],"a":-0}`)
	orig := bytes.Clone(in)
	if _, err := Transform(in); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(in, orig) {
		t.Fatalf("input changed to %q", in)
	}
}

// TestTransformConcurrent runs Transform from several goroutines at once, so
// that the race detector sees the shared parser pool in use.
func TestTransformConcurrent(t *testing.T) {
	in := []byte(`{"b":[1,2,{"d":"\u00e9","c":-0}],"a":"x\ny"}`)
	want, err := Transform(in)
	if err != nil {
		t.Fatal(err)
	}
	errs := make(chan error, 8)
	for g := 0; g < 8; g++ {
		go func() {
			for n := 0; n < 200; n++ {
				got, err := Transform(in)
				if err != nil || !bytes.Equal(got, want) {
					errs <- errors.New("mismatch: " + string(got))
					return
				}
			}
			errs <- nil
		}()
	}
	for g := 0; g < 8; g++ {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
}

// TestTransformWide checks objects too wide for the insertion sort, with keys
// that exercise the UTF-16 order, against a reference built by sorting the
// keys with utf16Compare; then the same objects with one key repeated.
func TestTransformWide(t *testing.T) {
	alphabet := []rune{'a', 'b', 'é', 0xd7ff, 0xe000, 0xffff, 0x10000, 0x1f602, '\n', '"'}
	r := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{smallSort + 1, 100, 1000} {
		seen := map[string]bool{}
		var keys []string
		for len(keys) < n {
			rs := make([]rune, 1+r.IntN(5))
			for i := range rs {
				rs[i] = alphabet[r.IntN(len(alphabet))]
			}
			if k := string(rs); !seen[k] {
				seen[k] = true
				keys = append(keys, k)
			}
		}
		var in []byte
		in = append(in, '{')
		for i, k := range keys {
			if i > 0 {
				in = append(in, ", "...)
			}
			in, _ = AppendKey(in, k)
			in = strconv.AppendInt(in, int64(i), 10)
		}
		in = append(in, '}')

		index := map[string]int{}
		for i, k := range keys {
			index[k] = i
		}
		sorted := slices.Clone(keys)
		slices.SortFunc(sorted, utf16Compare)
		want := []byte{'{'}
		for i, k := range sorted {
			if i > 0 {
				want = append(want, ',')
			}
			want, _ = AppendKey(want, k)
			want = strconv.AppendInt(want, int64(index[k]), 10)
		}
		want = append(want, '}')

		got, err := Transform(in)
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("n=%d: Transform = %q, %v\nwant %q", n, got, err, want)
		}

		// Repeat a key near the middle as the last member.
		dupKey := keys[n/2]
		withDup := append(bytes.Clone(in[:len(in)-1]), ", "...)
		off := len(withDup)
		withDup, _ = AppendKey(withDup, dupKey)
		withDup = append(withDup, "0}"...)
		_, err = Transform(withDup)
		var de *DuplicateKeyError
		if !errors.As(err, &de) || de.Key != dupKey || de.Offset != int64(off) {
			t.Fatalf("n=%d: duplicate %q at %d: got %v", n, dupKey, off, err)
		}
	}
}
