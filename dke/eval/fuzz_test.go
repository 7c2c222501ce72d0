package eval

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/deloreis/deloreis/dke/check"
	"github.com/deloreis/deloreis/dke/keywords"
)

// FuzzRun: any program the checker accepts runs without panicking, within
// its budget, and renders the same transcript twice over equal stores.
func FuzzRun(f *testing.F) {
	cases, _ := filepath.Glob("testdata/runs/*.dke")
	for _, path := range cases {
		text, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		for _, s := range parseCase(f, string(text)) {
			if s.compile == "" {
				f.Add(s.src, s.lang == keywords.Nob)
			}
		}
	}
	f.Fuzz(func(t *testing.T, src string, nob bool) {
		lang := keywords.Eng
		if nob {
			lang = keywords.Nob
		}
		var out []string
		for range 2 {
			w := newWorld()
			fl, _, errs := check.Source("", src, lang, check.Options{Mode: check.Run, Env: w.env})
			if len(errs) > 0 {
				return
			}
			w.do(t, step{lang: keywords.Eng, src: "remember(Sensor.s1.room, \"kitchen\", \"seed\")\nremember(Sensor.s2.celsius, 20, \"seed\")"})
			r := Run(fl, Options{Store: w.store, Modules: w.mods, Budget: 20_000})
			out = append(out, r.Transcript())
		}
		if out[0] != out[1] {
			t.Fatalf("two runs differ:\n%s\n---\n%s", out[0], out[1])
		}
	})
}
