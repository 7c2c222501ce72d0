// FuzzFrames: the stdio line protocol's framing. Any byte stream given
// to ServeStdio ends in nil at its end, with one response line for every
// input line that is not blank (a line ends at \n, \r\n too; surrounding
// blanks are trimmed), in order, each the JSON object Dispatch answers for
// that line. Its seeds, which plain go test runs, are the request lines of
// the contract fixtures, as one stream and alone, and malformed framings.

package worker

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fixtureLines are the request lines of the DLI contract fixtures.
func fixtureLines(tb testing.TB) [][]byte {
	tb.Helper()
	files, _ := filepath.Glob(filepath.Join("..", "contracts", "dli-worker", "fixtures", "*", "*.json"))
	more, _ := filepath.Glob(filepath.Join("..", "contracts", "dli-worker", "fixtures", "*", "*", "*.json"))
	files = append(files, more...)
	if len(files) == 0 {
		tb.Fatal("no DLI contract fixtures")
	}
	var lines [][]byte
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			tb.Fatal(err)
		}
		var fx struct {
			Setup   []json.RawMessage
			Request json.RawMessage
		}
		if err := json.Unmarshal(data, &fx); err != nil {
			tb.Fatalf("%s: %v", file, err)
		}
		for _, raw := range append(fx.Setup, fx.Request) {
			var b bytes.Buffer
			if json.Compact(&b, raw) == nil {
				lines = append(lines, b.Bytes())
			}
		}
	}
	return lines
}

func FuzzFrames(f *testing.F) {
	lines := fixtureLines(f)
	f.Add(bytes.Join(lines, []byte("\n")))
	for _, l := range lines {
		f.Add(append(l, '\n'))
	}
	echo := `{"dli":"2.0.0","id":"rq-1","op":"test.echo","params":{"text":"hi"}}`
	for _, s := range []string{
		"", "\n", "\r\n\r\n", " \t\r\n", echo, echo + "\r\n" + echo, "\n\n" + echo + "\n\n",
		"  " + echo + " \t\r", echo + "\r\r\n", echo + "\x00\n" + echo, "garbage\n" + echo,
		`{"dli":"2.0.0","id":"rq-1"` + "\n" + echo, "[" + echo + "," + echo + "]\n", "null\n", `{"dli":"2.0.0","id":{},"op":"test.echo"}`,
		`{"id":"x","op":"test.echo","params":{"text":"t"}}`, strings.Repeat("[", 10000) + strings.Repeat("]", 10000),
		"\xef\xbb\xbf" + echo, "\xff\xfe\n", echo + "\n\x1a",
	} {
		f.Add([]byte(s))
	}
	r := testRegistry()
	f.Fuzz(func(t *testing.T, in []byte) {
		var out bytes.Buffer
		if err := r.ServeStdio(context.Background(), bytes.NewReader(in), &out); err != nil {
			t.Fatalf("ServeStdio: %v", err)
		}
		var want [][]byte
		pieces := bytes.Split(in, []byte("\n"))
		if len(in) > 0 && in[len(in)-1] == '\n' {
			pieces = pieces[:len(pieces)-1]
		}
		for _, p := range pieces {
			if l := trim(p); len(l) > 0 {
				data, err := json.Marshal(r.Dispatch(context.Background(), l))
				if err != nil {
					t.Fatal(err)
				}
				want = append(want, data)
			}
		}
		got := bytes.Split(out.Bytes(), []byte("\n"))
		if len(got) == 0 || len(got[len(got)-1]) != 0 {
			t.Fatalf("%q: the output does not end in a newline: %q", in, out.Bytes())
		}
		got = got[:len(got)-1]
		if len(got) != len(want) {
			t.Fatalf("%q: %d response lines for %d request lines:\n%s", in, len(got), len(want), out.Bytes())
		}
		for i := range got {
			if !bytes.Equal(got[i], want[i]) {
				t.Fatalf("%q: response %d is\n%s\nnot what Dispatch answers for its line:\n%s", in, i, got[i], want[i])
			}
			var m map[string]json.RawMessage
			if json.Unmarshal(got[i], &m) != nil || m["ok"] == nil {
				t.Fatalf("%q: response %d is not one JSON object with ok: %s", in, i, got[i])
			}
		}
	})
}
