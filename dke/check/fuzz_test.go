// The fuzz target: scanning, parsing, checking and translating never
// panic, and every diagnostic has a position in the source. Its seed
// corpus (every testdata chunk) runs in the normal tests.

package check_test

import (
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
