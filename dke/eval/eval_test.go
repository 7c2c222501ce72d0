package eval

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/deloreis/deloreis/dke/claims"
	"github.com/deloreis/deloreis/dke/keywords"
)

// TestVerdicts pins the tallies of each verdict rule independently of the
// golden text: claims written and removed are counted in claims, and a
// statement that changed nothing counts for nothing.
func TestVerdicts(t *testing.T) {
	const seed = `remember(S.a.x, "v1", "src")` + "\n" + `update(S.a.x, "v2", "src")` + "\n" + `update(S.a.x, "v3", "other")`
	tests := []struct {
		name             string
		src              string
		ok               bool
		written, removed int
		prints           []string
		lines            int // body lines
	}{
		{"idempotent remember", `remember(S.a.x, "v1", "src")`, true, 0, 0, nil, 0},
		{"remember by another source", `remember(S.a.x, "v1", "new")`, true, 1, 0, nil, 1},
		{"update of the same value", `update(S.a.x, "v3", "other")`, true, 1, 0, nil, 1},
		{"forget of three", `forget(S.a.x)`, true, 0, 3, nil, 1},
		{"forget of nothing", `forget(S.b.x)`, true, 0, 0, nil, 0},
		{"range forget of zero", "forget(S.a.x, before=1)\nprint(current(S.a.x).value)", true, 0, 0, []string{"v3"}, 1},
		{"range forget keeps the value in force", "forget(S.a.x, before=100)\nprint(len(list claims of S.a.x))", true, 0, 2, []string{"1"}, 2},
		{"failed run keeps its writes", "remember(S.c.x, 1, \"s\")\nprint(current(S.d.x).value)", false, 1, 0, nil, 1},
		{"rolled-back branch", "branch:\n    forget(S.a.x)\n    rollback\nprint(len(list claims of S.a.x))", true, 0, 0, []string{"3"}, 1},
		{"committed branch", "branch:\n    forget(S.a.x)\n    commit\nprint(len(list claims of S.a.x))", true, 0, 3, []string{"0"}, 2},
		{"budget is not catchable", "xs = [\"a\", \"b\", \"c\", \"d\"]\ntry:\n    for a in xs:\n        for b in xs:\n            for c in xs:\n                pass\nexcept error:\n    print(\"caught\")", false, 0, 0, nil, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld()
			w.do(t, step{lang: keywords.Eng, src: seed})
			r := w.do(t, step{lang: keywords.Eng, src: tt.src, budget: 60})
			if r.OK() != tt.ok || r.Written() != tt.written || r.Removed() != tt.removed || !slices.Equal(r.Prints(), tt.prints) {
				t.Errorf("got ok=%v written=%d removed=%d prints=%q; want ok=%v written=%d removed=%d prints=%q\n%s",
					r.OK(), r.Written(), r.Removed(), r.Prints(), tt.ok, tt.written, tt.removed, tt.prints, r.Transcript())
			}
			if n := strings.Count(r.Transcript(), "\n") - 1; n != tt.lines {
				t.Errorf("body has %d lines, want %d:\n%s", n, tt.lines, r.Transcript())
			}
		})
	}
}

// racingStore moves the store under a branch: its next commit is
// preceded by someone else's.
type racingStore struct {
	*claims.Mem
	armed bool
}

func (s *racingStore) Commit(cs claims.ChangeSet) (string, error) {
	if s.armed {
		s.armed = false
		snap, _ := s.Mem.Snapshot()
		tx := claims.NewTx(snap)
		tx.Remember(claims.Cell{Kind: "Other", Subject: "o", Attr: "x"}, claims.Int(1), "elsewhere")
		if _, err := s.Mem.Commit(tx.Changes()); err != nil {
			return "", err
		}
	}
	return s.Mem.Commit(cs)
}

// TestBranchConflict: a branch whose store moved cannot commit; it rolls
// back, and the conflict is catchable as such.
func TestBranchConflict(t *testing.T) {
	w := newWorld()
	src := "try:\n    branch:\n        remember(S.a.x, 1, \"s\")\nexcept conflict as e:\n    print(e.kind)\nprint(current(S.a.x).found)"
	f := checked(t, w, src)
	st := &racingStore{Mem: w.store, armed: true}
	r := Run(f, Options{Store: st, Modules: w.mods})
	if !r.OK() || !slices.Equal(r.Prints(), []string{"conflict", "False"}) || r.Written() != 0 {
		t.Errorf("got\n%s", r.Transcript())
	}
}

// TestWriteRetriedOverAMovedStore: outside a branch a write that meets a
// moved store is applied again over the new state.
func TestWriteRetriedOverAMovedStore(t *testing.T) {
	w := newWorld()
	f := checked(t, w, "remember(S.a.x, 1, \"s\")\nprint(current(Other.o.x).found)")
	st := &racingStore{Mem: w.store, armed: true}
	r := Run(f, Options{Store: st, Modules: w.mods})
	if !r.OK() || r.Written() != 1 || !slices.Equal(r.Prints(), []string{"True"}) || w.store.Len() != 2 {
		t.Errorf("got\n%s", r.Transcript())
	}
}

// TestMachine: the machine-readable result carries the terminal status and
// the print sequence, and encodes as JSON.
func TestMachine(t *testing.T) {
	w := newWorld()
	r := w.do(t, step{lang: keywords.Nob, src: "skriv(\"a\")\nhusk(S.a.x, 1, \"s\")\nskriv(gjeldende(S.b.x).value)"})
	m := r.Machine()
	if m.Status != StatusError || !slices.Equal(m.Prints, []string{"a"}) || m.Written != 1 || !strings.Contains(m.Reason, "mangler") {
		t.Errorf("machine result %+v", m)
	}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"status":"error","reason":"linje 3: mangler: S.b.x har ingen verdi","claims_written":1,"claims_removed":0,` +
		`"prints":["a"],"entries":[{"type":"print","language":"nob","text":"a"},` +
		`{"type":"remember","language":"nob","text":"1","cell":{"kind":"S","subject":"a","attribute":"x"},` +
		`"value":{"type":"int","int":"1"},"source":"s","count":1}]}`
	if string(b) != want {
		t.Errorf("JSON\n%s\nwant\n%s", b, want)
	}
}

// TestArithmetic checks Python's integer and float semantics and the
// arithmetic errors.
func TestArithmetic(t *testing.T) {
	tests := []struct{ expr, want string }{
		{"7 // 2", "3"}, {"-7 // 2", "-4"}, {"-7 % 3", "2"}, {"7 % -3", "-2"},
		{"7 / 2", "3.5"}, {"1 + 2.5", "3.5"}, {"2.0 * 3", "6.0"}, {"\"a\" + \"b\"", "ab"},
		{"[\"a\"] + [\"b\"]", "[\"a\", \"b\"]"}, {"3 == 3.0", "True"}, {"\"b\" in [\"a\", \"b\"]", "True"},
		{"\"x\" not in \"xyz\"", "False"}, {"\"abc\"[-1]", "c"}, {"len(\"æøå\")", "3"},
		{"float(\"2.5\")", "2.5"}, {"int(3.9)", "3"}, {"string(1.0)", "1.0"},
		{"9223372036854775807 + 1", "error"}, {"1 // 0", "error"}, {"1.0 % 0", "error"}, {"int(\"x\")", "error"},
		{"[\"a\"][3]", "error"},
	}
	for _, tt := range tests {
		w := newWorld()
		r := w.do(t, step{lang: keywords.Eng, src: "print(" + tt.expr + ")"})
		got := "error"
		if r.OK() {
			got = r.Prints()[0]
		}
		if got != tt.want {
			t.Errorf("%s = %s, want %s\n%s", tt.expr, got, tt.want, r.Transcript())
		}
	}
}

func TestDeterministicAcrossStores(t *testing.T) {
	var outs []string
	for i := 0; i < 3; i++ {
		w := newWorld()
		// The same claims written in a different order each time: the
		// iteration order, and so the transcript, does not follow it.
		names := []string{"c", "a", "b", "e", "d"}
		var b strings.Builder
		for j := range names {
			n := names[(j+i)%len(names)]
			b.WriteString("remember(S." + n + ".x, \"" + n + "\", \"seed\")\n")
		}
		w.do(t, step{lang: keywords.Eng, src: b.String()})
		r := w.do(t, step{lang: keywords.Eng, src: "for s in list subjects of S:\n    print(s, current(s.x).value)"})
		outs = append(outs, r.Transcript())
	}
	if outs[0] != outs[1] || outs[1] != outs[2] || !strings.Contains(outs[0], "print: S.a a\nprint: S.b b\n") {
		t.Errorf("transcripts differ or are out of order:\n%s", strings.Join(outs, "---\n"))
	}
}
