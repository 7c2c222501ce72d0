package eval

import (
	"strconv"
	"strings"
	"testing"

	"github.com/deloreis/deloreis/dke/check"
	"github.com/deloreis/deloreis/dke/claims"
	"github.com/deloreis/deloreis/dke/keywords"
	"github.com/deloreis/deloreis/dke/syntax"
)

func benchProgram(b testing.TB, w *world, src string) *syntax.File {
	f, _, errs := check.Source("", src, keywords.Eng, check.Options{Mode: check.Run, Env: w.env})
	if len(errs) > 0 {
		b.Fatal(errs)
	}
	return f
}

// BenchmarkTrivialRun is a run that prints one line.
func BenchmarkTrivialRun(b *testing.B) {
	w := newWorld()
	f := benchProgram(b, w, `print("hello")`)
	for b.Loop() {
		if r := Run(f, Options{Store: w.store, Modules: w.mods}); !r.OK() {
			b.Fatal(r.Transcript())
		}
	}
}

// BenchmarkWrites1000 is a run remembering 1,000 claims, each committed
// on its own as a run outside a branch does.
func BenchmarkWrites1000(b *testing.B) {
	var names []string
	for i := range 1000 {
		names = append(names, strconv.Quote("s"+strconv.Itoa(i)))
	}
	src := "xs = [" + strings.Join(names, ", ") + "]\nfor s in xs:\n    update(Sensor[s].room, \"kitchen\", \"survey\")\n"
	w := newWorld()
	f := benchProgram(b, w, src)
	for i := 0; i < b.N; i++ {
		// A fresh store each time: update adds a claim per run, and the
		// cells' growing histories are not what is measured.
		b.StopTimer()
		st := claims.NewMem()
		b.StartTimer()
		if r := Run(f, Options{Store: st, Modules: w.mods}); !r.OK() || r.Written() != 1000 {
			b.Fatal(r.Header())
		}
	}
}

// BenchmarkRule100k reads a derived cell over 100,000 claims: the rule
// model is built from the values in force for every run that needs it.
func BenchmarkRule100k(b *testing.B) {
	w := rule100k(b)
	f := benchProgram(b, w, "print(current(Room.r7.warm).found, current(Room.r27.warm).found)")
	for b.Loop() {
		r := Run(f, Options{Store: w.store, Modules: w.mods})
		if got := r.Prints(); len(got) != 1 || got[0] != "False True" {
			b.Fatal(r.Transcript())
		}
	}
}

// BenchmarkRule100kWriteRead: in one run over 100,000 claims, 20 writes
// each followed by a derived read; after the first the model is brought
// up to date incrementally.
func BenchmarkRule100kWriteRead(b *testing.B) {
	w := rule100k(b)
	src := "for t in [\"30\", \"10\", \"31\", \"11\", \"32\", \"12\", \"33\", \"13\", \"34\", \"14\", \"35\", \"15\", \"36\", \"16\", \"37\", \"17\", \"38\", \"18\", \"39\", \"19\"]:\n" +
		"    update(Sensor.s7.celsius, float(t), \"probe\")\n" +
		"    print(current(Room.r7.warm).found)\n"
	f := benchProgram(b, w, src)
	for b.Loop() {
		r := Run(f, Options{Store: w.store, Modules: w.mods})
		if got := r.Prints(); len(got) != 20 || got[0] != "True" || got[1] != "False" {
			b.Fatal(r.Transcript())
		}
	}
}

func rule100k(b *testing.B) *world {
	w := newWorld()
	snap, _ := w.store.Snapshot()
	tx := claims.NewTx(snap)
	for i := range 50_000 {
		s := "s" + strconv.Itoa(i)
		tx.Remember(claims.Cell{Kind: "Sensor", Subject: s, Attr: "room"}, claims.Str("r"+strconv.Itoa(i%1000)), "survey")
		tx.Remember(claims.Cell{Kind: "Sensor", Subject: s, Attr: "celsius"}, claims.Float(float64(i%40)), "probe")
	}
	if _, err := w.store.Commit(tx.Changes()); err != nil {
		b.Fatal(err)
	}
	mod := "@rule\ndef warm_rooms(s, r, c):\n    if Sensor[s].room == r and Sensor[s].celsius == c and c > 25.0:\n        Room[r].warm = True\n"
	w.do(b, step{compile: "climate", lang: keywords.Eng, src: mod})
	return w
}
