// This file holds the fuzz targets: FuzzTransform, a differential test
// against github.com/gowebpki/jcs (used only here, as an oracle), and
// FuzzAppendString and FuzzAppendNumber, which check the scalar encoders
// against encoding/json, strconv and the oracle. Their seed corpora (the
// vectors, sampled number lines, every table case, and the hand-made inputs
// in testdata/fuzz/FuzzTransform: wide objects past the insertion sort, and
// nesting at and past MaxDepth) run in plain go test.

package jcs

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"strconv"
	"testing"
	"unicode/utf8"

	gowebpki "github.com/gowebpki/jcs"
)

// gowebpkiMaxDepth is the nesting limit of github.com/gowebpki/jcs v1.0.2
// (its maxNestingDepth).
const gowebpkiMaxDepth = 10000

// isJCSError reports whether err is one of this package's typed errors.
func isJCSError(err error) bool {
	var (
		se *SyntaxError
		de *DuplicateKeyError
		ue *InvalidUTF8Error
		le *LoneSurrogateError
		ne *NumberError
		xe *DepthError
	)
	return errors.As(err, &se) || errors.As(err, &de) || errors.As(err, &ue) ||
		errors.As(err, &le) || errors.As(err, &ne) || errors.As(err, &xe)
}

// nestingDepth returns how deeply arrays and objects nest in data, which
// must be valid JSON. It knows nothing of the parser under test beyond
// skipping strings.
func nestingDepth(data []byte) int {
	depth, deepest := 0, 0
	inString := false
	for i := 0; i < len(data); i++ {
		c := data[i]
		switch {
		case inString && c == '\\':
			i++
		case c == '"':
			inString = !inString
		case inString:
		case c == '[' || c == '{':
			depth++
			deepest = max(deepest, depth)
		case c == ']' || c == '}':
			depth--
		}
	}
	return deepest
}

// allowedDivergence reports whether a disagreement between Transform (err)
// and gowebpki (gerr) on data is one of the documented ones, and why. Each
// rule is narrow: it names the error we give and the exact condition.
//
// The only known divergence:
//
//   - Depth: we reject nesting deeper than MaxDepth (1000) with *DepthError,
//     gowebpki allows up to 10000. Our limit bounds recursion and memory for
//     hostile input; no deloreis object nests anywhere near 1000.
//
// Checked and not divergent (both reject): duplicate keys, escaped
// duplicates, lone high and low surrogates, invalid UTF-8 inside and outside
// strings, 1e400, every syntax case in badCases; both accept 1e-400 as 0.
func allowedDivergence(data []byte, err, gerr error) (string, bool) {
	var de *DepthError
	if err != nil && gerr == nil && errors.As(err, &de) {
		if d := nestingDepth(data); d > MaxDepth && d <= gowebpkiMaxDepth {
			return "nesting deeper than MaxDepth", true
		}
	}
	return "", false
}

// fuzzSeeds adds the seed corpus shared by FuzzTransform: the vectors, a
// sample of the number lines in three spellings, and every table case.
func fuzzSeeds(f *testing.F) {
	for _, name := range vectorNames {
		f.Add(readVector(f, "input", name+".json"))
		f.Add(readVector(f, "output", name+".json"))
	}
	for i, l := range readNumberLines(f) {
		if i%250 != 0 && l.line > 30 { // the first lines are the edge cases
			continue
		}
		x := math.Float64frombits(l.bits)
		f.Add([]byte(l.want))
		f.Add([]byte(strconv.FormatFloat(x, 'e', 16, 64)))
		f.Add([]byte(`{"n":[` + strconv.FormatFloat(x, 'g', -1, 64) + `]}`))
	}
	for _, c := range transformCases {
		f.Add([]byte(c.in))
	}
	for _, c := range badCases() {
		f.Add([]byte(c.in))
	}
	f.Add(bytes.Repeat([]byte("["), MaxDepth+1)) // open, so both reject
	f.Add([]byte(`{"a":{"b":[1,{"d":"\u00e9","c":null}]},"\u20ac":true,"\ud83d\ude02":false}`))
}

func FuzzTransform(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		orig := bytes.Clone(data)
		out, err := Transform(data)
		if !bytes.Equal(data, orig) {
			t.Fatalf("Transform modified its input")
		}
		gout, gerr := gowebpki.Transform(data)

		if err != nil {
			if !isJCSError(err) {
				t.Fatalf("error %T %v is not one of the typed errors", err, err)
			}
			if out != nil {
				t.Fatalf("output %q returned with error %v", out, err)
			}
		}
		switch {
		case err == nil && gerr == nil:
			if !bytes.Equal(out, gout) {
				t.Fatalf("outputs differ on %q\n ours: %q\noracle: %q", data, out, gout)
			}
		case (err == nil) != (gerr == nil):
			if why, ok := allowedDivergence(data, err, gerr); ok {
				t.Logf("allowed divergence (%s)", why)
			} else {
				t.Fatalf("disagreement on %q\n ours: %q, %v\noracle: %q, %v", data, out, err, gout, gerr)
			}
		}
		if err != nil {
			return
		}
		// Properties of any output.
		if !utf8.Valid(out) || !json.Valid(out) {
			t.Fatalf("output %q is not valid UTF-8 JSON", out)
		}
		again, err := Transform(out)
		if err != nil || !bytes.Equal(again, out) {
			t.Fatalf("not a fixed point: Transform(%q) = %q, %v", out, again, err)
		}
		app, err := Append([]byte("<>"), data)
		if err != nil || !bytes.Equal(app, append([]byte("<>"), out...)) {
			t.Fatalf("Append = %q, %v; want <> then %q", app, err, out)
		}
	})
}

func FuzzAppendString(f *testing.F) {
	for _, s := range []string{"", "abc", "a\"b\\c", "\x00\x1f\x7f", "é€😂", "\u2028<>&", "\xff", "ab\xed\xa0\x80",
		"deloreis/object/0123456789ab", "\ufffd", "\xf4\x90\x80\x80", "0123456789abcdef\n0123456789abcdef"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out, err := AppendString([]byte("x"), s)
		if !utf8.ValidString(s) {
			var e *InvalidUTF8Error
			if !errors.As(err, &e) || string(out) != "x" {
				t.Fatalf("AppendString(%q) = %q, %v; want dst unchanged and *InvalidUTF8Error", s, out, err)
			}
			// The offset is the first byte that starts no valid sequence.
			off := int(e.Offset)
			if off > len(s) || !utf8.ValidString(s[:off]) {
				t.Fatalf("offset %d: the prefix is not valid", off)
			}
			if r, n := utf8.DecodeRuneInString(s[off:]); r != utf8.RuneError || n != 1 {
				t.Fatalf("offset %d: %q starts a valid sequence", off, s[off:])
			}
			return
		}
		if err != nil || out[0] != 'x' {
			t.Fatalf("AppendString(%q) = %q, %v", s, out, err)
		}
		out = out[1:]
		var back string
		if err := json.Unmarshal(out, &back); err != nil || back != s {
			t.Fatalf("json.Unmarshal(%q) = %q, %v; want %q", out, back, err, s)
		}
		m, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		canon, err := Transform(m)
		if err != nil || !bytes.Equal(canon, out) {
			t.Fatalf("Transform(json.Marshal(%q)) = %q, %v; AppendString gave %q", s, canon, err, out)
		}
		key, err := AppendKey(nil, s)
		if err != nil || !bytes.Equal(key, append(bytes.Clone(out), ':')) {
			t.Fatalf("AppendKey(%q) = %q, %v", s, key, err)
		}
	})
}

func FuzzAppendNumber(f *testing.F) {
	for _, l := range readNumberLines(f)[:100] {
		f.Add(l.bits)
	}
	for _, x := range []float64{math.NaN(), math.Inf(1), math.Inf(-1), math.Copysign(0, -1), 1e21, 1e-7} {
		f.Add(math.Float64bits(x))
	}
	f.Fuzz(func(t *testing.T, bits uint64) {
		x := math.Float64frombits(bits)
		out, err := AppendNumber(nil, x)
		want, gerr := gowebpki.NumberToJSON(x)
		if math.IsNaN(x) || math.IsInf(x, 0) {
			var ne *NumberError
			if !errors.As(err, &ne) || gerr == nil {
				t.Fatalf("AppendNumber(%v) = %q, %v; want *NumberError", x, out, err)
			}
			return
		}
		if err != nil || gerr != nil || string(out) != want {
			t.Fatalf("AppendNumber(%v) = %q, %v; oracle %q, %v", x, out, err, want, gerr)
		}
		back, err := strconv.ParseFloat(string(out), 64)
		if err != nil || back != x {
			t.Fatalf("%q reads back as %v, %v; want %v", out, back, err, x)
		}
		again, err := Transform(out)
		if err != nil || !bytes.Equal(again, out) {
			t.Fatalf("Transform(%q) = %q, %v", out, again, err)
		}
	})
}

// TestAllowedDivergenceNarrow checks that the divergence rule excuses only
// what it documents.
func TestAllowedDivergenceNarrow(t *testing.T) {
	deep := func(n int) []byte {
		return append(bytes.Repeat([]byte("["), n), bytes.Repeat([]byte("]"), n)...)
	}
	depthErr := &DepthError{Offset: 0, Limit: MaxDepth}
	tests := []struct {
		name      string
		data      []byte
		err, gerr error
		want      bool
	}{
		{"depth over our limit", deep(MaxDepth + 1), depthErr, nil, true},
		{"depth over both limits", deep(gowebpkiMaxDepth + 1), depthErr, nil, false},
		{"depth error on shallow input", deep(3), depthErr, nil, false},
		{"depth in strings does not count", []byte(`["` + string(deep(MaxDepth+1)) + `"]`), depthErr, nil, false},
		{"other error type", deep(MaxDepth + 1), &SyntaxError{}, nil, false},
		{"duplicate key", []byte(`{"a":1,"a":2}`), &DuplicateKeyError{Key: "a"}, nil, false},
		{"oracle rejects, we accept", []byte(`1`), nil, errors.New("x"), false},
	}
	for _, tt := range tests {
		if _, got := allowedDivergence(tt.data, tt.err, tt.gerr); got != tt.want {
			t.Errorf("%s: allowed = %v, want %v", tt.name, got, tt.want)
		}
	}
}
