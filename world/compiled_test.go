package world

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	"github.com/deloreis/deloreis/datalog"
	"github.com/deloreis/deloreis/objects"
)

// TestCompiledDeterministic: two compiles of one input write the same
// snapshot, byte for byte (a compile's file is the same whoever writes it).
func TestCompiledDeterministic(t *testing.T) {
	written := 0
	for seed := range uint64(40) {
		objs := randomWorld(rand.New(rand.NewPCG(seed, 4)))
		var a, b bytes.Buffer
		wa := mustCompile(t, Input{Scope: "camelot", Base: entriesOf(t, objs)})
		wb := mustCompile(t, Input{Scope: "camelot", Base: entriesOf(t, objs)})
		ea, eb := wa.WriteCompiled(&a), wb.WriteCompiled(&b)
		if ea != nil || eb != nil {
			if ea == nil || eb == nil || !errors.Is(ea, datalog.ErrNoSnapshot) {
				t.Fatalf("seed %d: %v, %v", seed, ea, eb)
			}
			continue
		}
		written++
		if !bytes.Equal(a.Bytes(), b.Bytes()) {
			n := 0
			for n < min(a.Len(), b.Len()) && a.Bytes()[n] == b.Bytes()[n] {
				n++
			}
			t.Fatalf("seed %d: the snapshots differ at byte %d (of %d and %d)", seed, n, a.Len(), b.Len())
		}
	}
	if written < 30 {
		t.Fatalf("only %d of 40 worlds snapshotted", written)
	}
}

// compiledSameSeeds small random worlds TestCompiledSameAtAnyGOMAXPROCS
// compiles beside its large one (fewer under the race detector, where the
// large one's parallel entry checks are the point: see race_test.go).
var compiledSameSeeds uint64 = 20

// TestCompiledSameAtAnyGOMAXPROCS: the world file a compile writes is the
// same bytes whatever the number of processors it may use (issue 34: a
// parallel evaluation must stay deterministic).
func TestCompiledSameAtAnyGOMAXPROCS(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	worlds := make([][]objects.Object, 0, compiledSameSeeds+1)
	for seed := range compiledSameSeeds {
		worlds = append(worlds, randomWorld(rand.New(rand.NewPCG(seed, 34))))
	}
	// One world large enough that its entry checks run on several
	// goroutines: their findings must come out in the same order.
	worlds = append(worlds, unknownRefsWorld(3*minEntryCheckRun))
	for seed, objs := range worlds {
		var files [][]byte
		for _, procs := range []int{1, 2, 8} {
			runtime.GOMAXPROCS(procs)
			var b bytes.Buffer
			w := mustCompile(t, Input{Scope: "camelot", Base: entriesOf(t, objs)})
			if err := w.WriteCompiled(&b); err != nil {
				if !errors.Is(err, datalog.ErrNoSnapshot) {
					t.Fatalf("seed %d, GOMAXPROCS=%d: %v", seed, procs, err)
				}
				break
			}
			files = append(files, b.Bytes())
		}
		for i := 1; i < len(files); i++ {
			if !bytes.Equal(files[0], files[i]) {
				t.Fatalf("seed %d: the world file written at GOMAXPROCS=1 differs from the one at %d", seed, []int{1, 2, 8}[i])
			}
		}
	}
}

// unknownRefsWorld is n facts over n/4 persons, every seventh naming a
// person not in scope and every eleventh citing a decision not recorded.
func unknownRefsWorld(n int) []objects.Object {
	var objs []objects.Object
	for i := range n / 4 {
		objs = append(objs, &objects.Entity{Kind: objects.KindPerson, Ident: fmt.Sprintf("p-%d", i), Name: "P", Provenance: objects.Proposed("s")})
	}
	for i := range n {
		who, prov := fmt.Sprintf("p-%d", i%(n/4)), objects.Proposed("s")
		if i%7 == 0 {
			who = fmt.Sprintf("ghost-%d", i)
		}
		if i%11 == 0 {
			prov = objects.Cited(objects.CitedProvisional, fmt.Sprintf("d-%d", i))
		}
		objs = append(objs, &objects.Fact{Entity: who, Key: "title", Value: fmt.Sprintf("v%d", i%5), Provenance: prov})
	}
	return objs
}

// TestCompiledEntryLowering: a world restored from its snapshot takes the
// entries' lowering (arities, and the findings of atoms left out for
// another arity) from it instead of walking every entry, and reads as the
// compile; a snapshot whose arities disagree with its program is not
// taken.
func TestCompiledEntryLowering(t *testing.T) {
	prov := objects.Proposed("s")
	objs := []objects.Object{
		&objects.Entity{Kind: objects.KindPerson, Ident: "a", Name: "A", Provenance: prov},
		&objects.Entity{Kind: objects.KindPerson, Ident: "b", Name: "B", Provenance: prov},
		&objects.Fact{Entity: "a", Key: "person", Value: "b", Provenance: prov}, // person/2 against person/1
		&objects.Fact{Entity: "a", Key: "title", Value: "v1", Provenance: prov},
		&objects.Rule{Name: "knight", Head: objects.Atom{Pred: "knight", Args: []objects.Term{objects.Var("X")}},
			Body: []objects.Literal{{Atom: objects.Atom{Pred: "title", Args: []objects.Term{objects.Var("X"), objects.Var("Y")}}}}, Provenance: prov},
	}
	in := func() Input { return Input{Scope: "camelot", Base: entriesOf(t, objs)} }
	w := mustCompile(t, in())
	if len(w.groups[groupArityClaims]) == 0 {
		t.Fatal("the compile found no claim left out for its arity")
	}
	want := findingsJSON(t, w)
	compiled := compiledBytes(t, w)
	for _, tamper := range []bool{false, true} {
		c, err := LoadCompiled(compiled)
		if err != nil {
			t.Fatal(err)
		}
		if tamper {
			c.lowering.arity["title"] = 3
		}
		walks := entryWalks.Load()
		got := mustCompile(t, Input{Scope: "camelot", Base: entriesOf(t, objs), Compiled: c})
		if got.Restored() == tamper {
			t.Fatalf("tampered %v: restored %v", tamper, got.Restored())
		}
		if walked := entryWalks.Load() - walks; (walked == 0) == tamper {
			t.Fatalf("tampered %v: the entries were lowered %d times", tamper, walked)
		}
		if g := findingsJSON(t, got); g != want {
			t.Fatalf("tampered %v: findings\n%s\nwant\n%s", tamper, g, want)
		}
		q := datalog.Atom{Pred: "knight", Args: []datalog.Term{{Var: "X"}}}
		if g, x := fmt.Sprint(got.Query(q)), fmt.Sprint(w.Query(q)); g != x || !strings.Contains(x, "a") {
			t.Fatalf("tampered %v: knight answers %s, the compile %s", tamper, g, x)
		}
	}
}

func findingsJSON(t *testing.T, w *World) string {
	t.Helper()
	b, err := json.Marshal(w.Findings())
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestCompiledAlignedSnapshot: the datalog snapshot after the findings
// begins at a multiple of 8 from the start of what WriteCompiled wrote,
// past zero padding; a padding byte that is not zero is refused; and an
// aliased load restores the same world as a copying one.
func TestCompiledAlignedSnapshot(t *testing.T) {
	padded := 0
	for seed := range uint64(20) {
		objs := randomWorld(rand.New(rand.NewPCG(seed, 9)))
		w := mustCompile(t, Input{Scope: "camelot", Base: entriesOf(t, objs)})
		var buf bytes.Buffer
		if err := w.WriteCompiled(&buf); err != nil {
			if errors.Is(err, datalog.ErrNoSnapshot) {
				continue
			}
			t.Fatal(err)
		}
		b := buf.Bytes()
		n := int(binary.LittleEndian.Uint64(b))
		at := (8 + n + 7) &^ 7
		if !bytes.HasPrefix(b[at:], []byte("DLSNAP")) {
			t.Fatalf("seed %d: no snapshot at offset %d, after %d bytes of findings", seed, at, n)
		}
		for _, c := range []struct {
			name    string
			load    func([]byte) *Compiled
			pad     int // a padding byte made 1, or -1
			restore bool
		}{
			{"copied", StartLoadCompiled, -1, true},
			{"aliased", func(b []byte) *Compiled { return StartLoadCompiledAliased(b, nil) }, -1, true},
			{"bad padding", StartLoadCompiled, 8 + n, false},
		} {
			data := bytes.Clone(b)
			if c.pad >= 0 {
				if c.pad == at {
					continue // no padding after these findings
				}
				padded++
				data[c.pad] = 1
			}
			cp := c.load(data)
			if err := cp.Err(); (err == nil) != c.restore {
				t.Fatalf("seed %d, %s: load error %v", seed, c.name, err)
			}
			if !c.restore {
				continue
			}
			got := mustCompile(t, Input{Scope: "camelot", Base: entriesOf(t, objs), Compiled: cp})
			if !got.Restored() {
				t.Fatalf("seed %d, %s: not restored", seed, c.name)
			}
			if g, x := findingsJSON(t, got), findingsJSON(t, w); g != x {
				t.Fatalf("seed %d, %s: findings differ", seed, c.name)
			}
		}
	}
	if padded == 0 {
		t.Fatal("no findings needed padding")
	}
}

// compiledBytes is w's compiled snapshot, written whole.
func compiledBytes(t *testing.T, w *World) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := w.WriteCompiled(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}
