// The test harness: chunked testdata files in the starlark style, the
// stored modules they check against, and the expectations beside lines.

package check_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/deloreis/deloreis/dke/check"
	"github.com/deloreis/deloreis/dke/diag"
	"github.com/deloreis/deloreis/dke/keywords"
)

// storeOrder is the order the stored modules of testdata/store are
// compiled in: each may import only those before it.
var storeOrder = []string{"inventory", "sensors", "pong", "ping", "flags", "writer"}

// testEnv compiles testdata/store into an Env; every module must be clean.
func testEnv(t testing.TB) *check.MapEnv {
	t.Helper()
	env := check.NewMapEnv()
	for _, name := range storeOrder {
		src, err := os.ReadFile(filepath.Join("testdata", "store", name+".dpy"))
		if err != nil {
			t.Fatal(err)
		}
		_, info, errs := check.Source(name+".dpy", string(src), keywords.Eng, check.Options{Module: name, Env: env})
		if len(errs) > 0 {
			t.Fatalf("stored module %s: %v", name, errs)
		}
		env.Put(info)
	}
	return env
}

// chunk is one program of a testdata file.
type chunk struct {
	file   string
	line   int // line of the chunk's first line in the file
	src    string
	lang   keywords.Lang
	mode   check.Mode
	module string
	// translate is false for chunks that use another surface's words on
	// purpose.
	translate bool
}

func (c chunk) String() string { return fmt.Sprintf("%s:%d", c.file, c.line) }

var optionRE = regexp.MustCompile(`^# option: (.*)$`)

// readChunks splits a testdata file at lines holding only "---".
func readChunks(t testing.TB, path string) []chunk {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []chunk
	lines := strings.SplitAfter(string(data), "\n")
	start := 0
	flush := func(end int) {
		c := chunk{file: filepath.Base(path), line: start + 1, src: strings.Join(lines[start:end], ""),
			lang: keywords.Eng, module: "m", translate: true}
		for _, l := range lines[start:end] {
			m := optionRE.FindStringSubmatch(strings.TrimSpace(strings.Split(l, "###")[0]))
			if m == nil {
				continue
			}
			for _, opt := range strings.Fields(m[1]) {
				switch {
				case opt == "run":
					c.mode = check.Run
				case opt == "nob":
					c.lang = keywords.Nob
				case opt == "notranslate":
					c.translate = false
				case strings.HasPrefix(opt, "module="):
					c.module = strings.TrimPrefix(opt, "module=")
				default:
					t.Fatalf("%s: unknown option %q", c, opt)
				}
			}
		}
		if strings.TrimSpace(c.src) != "" || c.mode == check.Run {
			out = append(out, c)
		}
	}
	for i, l := range lines {
		if strings.TrimRight(l, "\r\n") == "---" {
			flush(i)
			start = i + 1
		}
	}
	flush(len(lines))
	return out
}

// chunkFiles returns the testdata chunk files.
func chunkFiles(t testing.TB) []string {
	files, err := filepath.Glob(filepath.Join("testdata", "*.dke"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no testdata: %v", err)
	}
	return files
}

// checkChunk checks a chunk's source on its surface.
func checkChunk(c chunk, src string, lang keywords.Lang, env check.Env) diag.List {
	_, _, errs := check.Source("chunk", src, lang, check.Options{Module: c.module, Mode: c.mode, Env: env})
	return errs
}

var wantRE = regexp.MustCompile(`### "((?:[^"\\]|\\.)*)"`)

// expectations returns the expected-diagnostic regexps by line.
func expectations(t testing.TB, c chunk) map[int][]*regexp.Regexp {
	out := map[int][]*regexp.Regexp{}
	for i, l := range strings.Split(c.src, "\n") {
		for _, m := range wantRE.FindAllStringSubmatch(l, -1) {
			pat := strings.ReplaceAll(m[1], `\"`, `"`)
			re, err := regexp.Compile(pat)
			if err != nil {
				t.Fatalf("%s: line %d: bad pattern: %v", c, i+1, err)
			}
			out[i+1] = append(out[i+1], re)
		}
	}
	return out
}

// matchExpectations compares diagnostics with the chunk's expectations.
func matchExpectations(t *testing.T, c chunk, errs diag.List) {
	t.Helper()
	want := expectations(t, c)
	used := map[*regexp.Regexp]bool{}
	for _, d := range errs {
		text := string(d.Class) + ": " + d.Message
		found := false
		for _, re := range want[d.Line] {
			if re.MatchString(text) {
				used[re], found = true, true
			}
		}
		if !found {
			t.Errorf("%s: line %d: unexpected %s", c, d.Line, d.Error())
		}
	}
	lines := make([]int, 0, len(want))
	for l := range want {
		lines = append(lines, l)
	}
	sort.Ints(lines)
	for _, l := range lines {
		for _, re := range want[l] {
			if !used[re] {
				t.Errorf("%s: line %d: no diagnostic matching %q (got %v)", c, l, re, onLine(errs, l))
			}
		}
	}
}

func onLine(errs diag.List, line int) []string {
	var out []string
	for _, d := range errs {
		if d.Line == line {
			out = append(out, string(d.Class)+": "+d.Message)
		}
	}
	return out
}
