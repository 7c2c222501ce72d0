// This file holds the tests against the shared RFC 8785 vectors: the six
// canonicalization pairs and the 10,000 ES6 number-serialization lines.

package jcs

import (
	"bufio"
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// vectorDir is the shared test data, relative to this package's directory.
const vectorDir = "../../shared/testdata/jcs"

// vectorNames are the six canonicalization pairs; see vectorDir/README.md.
var vectorNames = []string{"arrays", "french", "structures", "unicode", "values", "weird"}

func readVector(t testing.TB, dir, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(vectorDir, dir, name))
	if err != nil {
		t.Fatalf("read vector: %v", err)
	}
	return b
}

func TestVectors(t *testing.T) {
	for _, name := range vectorNames {
		t.Run(name, func(t *testing.T) {
			in := readVector(t, "input", name+".json")
			want := readVector(t, "output", name+".json")
			got, err := Transform(in)
			if err != nil {
				t.Fatalf("Transform: %v", err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("Transform mismatch\n got: %q\nwant: %q", got, want)
			}
			// The canonical form is a fixed point.
			again, err := Transform(want)
			if err != nil || !bytes.Equal(again, want) {
				t.Fatalf("Transform(output) = %q, %v; want the output unchanged", again, err)
			}
			// Append keeps what dst held.
			prefix := []byte("prefix:")
			got, err = Append(prefix, in)
			if err != nil || !bytes.Equal(got, append([]byte("prefix:"), want...)) {
				t.Fatalf("Append = %q, %v", got, err)
			}
		})
	}
}

// numberLine is one line of es6testfile10k.txt.
type numberLine struct {
	line int
	bits uint64
	want string
}

func readNumberLines(t testing.TB) []numberLine {
	t.Helper()
	f, err := os.Open(filepath.Join(vectorDir, "numbers", "es6testfile10k.txt"))
	if err != nil {
		t.Fatalf("open number vectors: %v", err)
	}
	defer f.Close()
	var lines []numberLine
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		hexBits, want, ok := strings.Cut(sc.Text(), ",")
		if !ok {
			t.Fatalf("line %d: no comma in %q", n, sc.Text())
		}
		bits, err := strconv.ParseUint(hexBits, 16, 64)
		if err != nil {
			t.Fatalf("line %d: %v", n, err)
		}
		lines = append(lines, numberLine{line: n, bits: bits, want: want})
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("read number vectors: %v", err)
	}
	return lines
}

func TestNumberVectors(t *testing.T) {
	lines := readNumberLines(t)
	if len(lines) != 10000 {
		t.Fatalf("got %d number lines, want 10000", len(lines))
	}
	failures := 0
	fail := func(format string, args ...any) {
		t.Helper()
		t.Errorf(format, args...)
		if failures++; failures >= 20 {
			t.Fatal("too many failures")
		}
	}
	for _, l := range lines {
		f := math.Float64frombits(l.bits)
		got, err := AppendNumber(nil, f)
		if err != nil || string(got) != l.want {
			fail("line %d (%016x): AppendNumber = %q, %v; want %q", l.line, l.bits, got, err, l.want)
			continue
		}
		// Through Transform: the expected form is a fixed point, and
		// the 17-digit exponent form of the same double (which reads back
		// exactly) canonicalizes to it, alone and inside an array.
		literals := []string{
			l.want,
			strconv.FormatFloat(f, 'e', 16, 64),
			strconv.FormatFloat(f, 'E', 20, 64),
		}
		for _, lit := range literals {
			out, err := Transform([]byte(lit))
			if err != nil || string(out) != l.want {
				fail("line %d: Transform(%s) = %q, %v; want %q", l.line, lit, out, err, l.want)
			}
		}
		out, err := Transform([]byte("[ " + literals[1] + " ]"))
		if err != nil || string(out) != "["+l.want+"]" {
			fail("line %d: Transform([%s]) = %q, %v", l.line, literals[1], out, err)
		}
	}
}
