// The fuzz target: scanning, parsing, checking and translating never
// panic, and every diagnostic has a position in the source. Its seed
// corpus (every testdata chunk, the stored modules and the sources the DKE
// contract fixtures compile and run) runs in the normal tests.

package check_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deloreis/deloreis/dke/check"
	"github.com/deloreis/deloreis/dke/diag"
	"github.com/deloreis/deloreis/dke/keywords"
	"github.com/deloreis/deloreis/dke/syntax"
)

func FuzzCheck(f *testing.F) {
	for _, file := range chunkFiles(f) {
		for _, c := range readChunks(f, file) {
			f.Add(c.src)
		}
	}
	stored, err := filepath.Glob(filepath.Join("testdata", "store", "*.dpy"))
	if err != nil || len(stored) == 0 {
		f.Fatalf("no stored modules: %v", err)
	}
	for _, file := range stored {
		src, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(src))
	}
	for _, src := range fixtureSources(f) {
		f.Add(src)
	}
	f.Add("def f(\n")
	f.Add("x = ((((((((((((((((((((1))))))))))))))))))))")
	f.Add("\"\"\"")
	f.Add("\xff\xfe")
	env := testEnv(f)
	f.Fuzz(func(t *testing.T, src string) {
		lines := strings.Count(src, "\n") + 1
		for _, l := range keywords.Langs {
			for _, mode := range []check.Mode{check.Compile, check.Run} {
				_, _, errs := check.Source("fuzz", src, l, check.Options{Module: "fuzz", Mode: mode, Env: env})
				for _, d := range errs {
					if d.Line < 1 || d.Line > lines || d.Col < 1 {
						t.Fatalf("diagnostic out of the source: %s", d.Error())
					}
					diag.ApplyFix(src, d)
				}
			}
			syntax.Translate(src, l, keywords.Eng)
		}
	})
}

// fixtureSources are the programs the DKE contract fixtures send (the
// source argument of every call, setup and after calls included), a
// framing fixture's with its benign and its tainted string.
func fixtureSources(f *testing.F) []string {
	files, err := filepath.Glob(filepath.Join("..", "..", "contracts", "dke", "fixtures", "*", "*.json"))
	if err != nil || len(files) == 0 {
		f.Fatalf("no DKE contract fixtures: %v", err)
	}
	var out []string
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		type call struct {
			Arguments struct{ Source *string }
		}
		var fx struct {
			Benign, Tainted string
			Setup, After    []call
			Call            call
		}
		if err := json.Unmarshal(data, &fx); err != nil {
			f.Fatalf("%s: %v", name, err)
		}
		for _, c := range append(append(fx.Setup, fx.Call), fx.After...) {
			if c.Arguments.Source == nil {
				continue
			}
			src := *c.Arguments.Source
			if fx.Benign == "" {
				out = append(out, src)
				continue
			}
			for _, s := range []string{fx.Benign, fx.Tainted} {
				out = append(out, strings.ReplaceAll(src, "{S}", s))
			}
		}
	}
	if len(out) == 0 {
		f.Fatal("no source in the DKE contract fixtures")
	}
	return out
}
