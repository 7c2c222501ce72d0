package world

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"testing"
	"unsafe"

	"github.com/deloreis/deloreis/objects"
)

// version is a pvec beside the plain slice it must equal, and the
// addresses of its elements when it was made (they must never change).
type version struct {
	v     pvec[int]
	model []int
	ptrs  []*int
}

func newVersion(v pvec[int], model []int) version {
	ptrs := make([]*int, v.n)
	for i := range ptrs {
		ptrs[i] = v.ptr(i)
	}
	return version{v: v, model: model, ptrs: ptrs}
}

// checkVersion compares every way of reading v with its model.
func checkVersion(t *testing.T, what string, ver version) {
	t.Helper()
	v := ver.v
	if v.n != len(ver.model) {
		t.Fatalf("%s: n = %d, model has %d", what, v.n, len(ver.model))
	}
	if d := pvecDiff(slices.Collect(v.all()), ver.model); d != "" {
		t.Fatalf("%s: all(): %s", what, d)
	}
	var bySlice []int
	for s := range v.leafSlices() {
		bySlice = append(bySlice, s...)
	}
	if d := pvecDiff(bySlice, ver.model); d != "" {
		t.Fatalf("%s: leafSlices(): %s", what, d)
	}
	for i, want := range ver.model {
		if got := v.at(i); got != want {
			t.Fatalf("%s: at(%d) = %d, want %d", what, i, got, want)
		}
		if v.ptr(i) != ver.ptrs[i] {
			t.Fatalf("%s: element %d moved", what, i)
		}
	}
}

// pvecDiff says where got and want part, or "" when they are equal.
func pvecDiff(got, want []int) string {
	for i := range min(len(got), len(want)) {
		if got[i] != want[i] {
			return fmt.Sprintf("element %d is %d, want %d", i, got[i], want[i])
		}
	}
	if len(got) != len(want) {
		return fmt.Sprintf("%d elements, want %d", len(got), len(want))
	}
	return ""
}

// next is a value no version holds yet, so a write into a shared slot
// shows up as a wrong element in some older version.
type next struct{ n int }

func (c *next) take(k int) []int {
	xs := make([]int, k)
	for i := range xs {
		c.n++
		xs[i] = c.n
	}
	return xs
}

// step makes a new version from base by a random operation and returns it
// with its model.
func step(r *rand.Rand, c *next, base version) (string, pvec[int], []int) {
	model := slices.Clone(base.model)
	switch op := r.IntN(10); {
	case op < 6: // append a few, sometimes many (bulk, several leaves)
		k := r.IntN(4)
		if r.IntN(5) == 0 {
			k = r.IntN(3 * leafLen * leafLen)
		}
		xs := c.take(k)
		return fmt.Sprintf("append %d", k), base.v.append(xs...), append(model, xs...)
	case op < 9: // drop some of a tail, append a few after
		from := r.IntN(len(model) + 1)
		parity := r.IntN(3)
		keep := func(x int) bool { return x%3 != parity }
		kept := slices.DeleteFunc(model[from:], func(x int) bool { return !keep(x) })
		model = append(model[:from:from], kept...)
		return fmt.Sprintf("filterTail(%d)", from), base.v.filterTail(from, keep), model
	default:
		n := r.IntN(len(model) + 1)
		return fmt.Sprintf("truncate(%d)", n), base.v.truncate(n), model[:n]
	}
}

func TestPvecVersions(t *testing.T) {
	for _, seed := range []uint64{1, 2, 3, 4, 5, 6, 7, 8} {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			r := rand.New(rand.NewPCG(seed, 13))
			c := &next{}
			vs := []version{newVersion(pvec[int]{}, nil)}
			for i := range 300 {
				// Mostly extend a recent version (a session's chain),
				// often branch from any older one.
				j := len(vs) - 1 - r.IntN(min(len(vs), 3))
				if r.IntN(3) == 0 {
					j = r.IntN(len(vs))
				}
				what, v, model := step(r, c, vs[j])
				nv := newVersion(v, model)
				checkVersion(t, fmt.Sprintf("step %d: %s of version %d", i, what, j), nv)
				vs = append(vs, nv)
				if i%100 == 99 {
					for k, old := range vs {
						checkVersion(t, fmt.Sprintf("after step %d: version %d", i, k), old)
					}
				}
			}
			for k, old := range vs {
				checkVersion(t, fmt.Sprintf("at the end: version %d", k), old)
			}
		})
	}
}

// TestPvecEdges covers the boundaries of leaves and tree levels.
func TestPvecEdges(t *testing.T) {
	for _, n := range []int{0, 1, leafLen - 1, leafLen, leafLen + 1, leafLen * leafLen, leafLen*leafLen + 1, leafLen*(leafLen+1) + 1, leafLen*leafLen*leafLen + 3, leafLen*leafLen*leafLen + leafLen + 3} {
		c := &next{}
		model := c.take(n)
		v := pvec[int]{}.append(model...)
		one := pvec[int]{}
		for _, x := range model {
			one = one.append(x)
		}
		base := newVersion(v, model)
		checkVersion(t, fmt.Sprintf("bulk %d", n), base)
		checkVersion(t, fmt.Sprintf("one by one %d", n), newVersion(one, model))
		for _, cut := range []int{0, 1, n / 2, n - 1, n} {
			if cut < 0 || cut > n {
				continue
			}
			tr := newVersion(v.truncate(cut), model[:cut])
			checkVersion(t, fmt.Sprintf("truncate(%d) of %d", cut, n), tr)
			more := c.take(leafLen + 2)
			checkVersion(t, fmt.Sprintf("append after truncate(%d) of %d", cut, n),
				newVersion(tr.v.append(more...), append(slices.Clone(model[:cut]), more...)))
		}
		checkVersion(t, fmt.Sprintf("bulk %d afterwards", n), base)
	}
}

// TestPvecConcurrent appends to shared versions from several goroutines:
// the claim on a tail must let exactly one of them write in place (run
// it with -race too).
func TestPvecConcurrent(t *testing.T) {
	c := &next{}
	model := c.take(leafLen + 5)
	base := newVersion(pvec[int]{}.append(model...), model)
	const workers = 8
	results := make([]version, workers)
	var wg sync.WaitGroup
	for w := range workers {
		xs := make([]int, 40)
		for i := range xs {
			xs[i] = -(w*1000 + i + 1)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			v := base.v
			for _, x := range xs {
				v = v.append(x)
			}
			results[w] = newVersion(v, append(slices.Clone(model), xs...))
		}()
	}
	wg.Wait()
	checkVersion(t, "base", base)
	for w, res := range results {
		checkVersion(t, fmt.Sprintf("worker %d", w), res)
	}
}

// appendGarbage is the bytes allocated per one-element append on a chain
// of versions that starts from a vector of n entries.
func appendGarbage(n, appends int) float64 {
	v := pvec[Entry]{}.append(make([]Entry, n)...)
	e := Entry{Staged: true}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range appends {
		v = v.append(e)
	}
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(v)
	return float64(after.TotalAlloc-before.TotalAlloc) / float64(appends)
}

// TestPvecAppendGarbage: an append's garbage must not grow with the
// vector (it was ~50 KB per append per vector at 10k entries: a copied
// spine and last chunk).
func TestPvecAppendGarbage(t *testing.T) {
	const appends = 4096
	small, big := appendGarbage(1_000, appends), appendGarbage(300_000, appends)
	t.Logf("bytes per append: %.0f at 1k, %.0f at 300k", small, big)
	// A new 32-entry leaf every 32 appends (~56 B an append) and a
	// right-edge path copy (~40 B an append at three levels).
	const limit = 256
	if small > limit || big > limit {
		t.Fatalf("bytes per append: %.0f at 1k, %.0f at 300k; want both under %d", small, big, limit)
	}
}

// TestPvecBulkBytes: a bulk append (a world's load) allocates little more
// than its elements; leaves allocated one by one would cost 2048 bytes for
// 1792 of entries (the malloc header pushes them into the next class).
func TestPvecBulkBytes(t *testing.T) {
	const n = 100_000
	xs := make([]Entry, n)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	v := pvec[Entry]{}.append(xs...)
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(v)
	got := float64(after.TotalAlloc - before.TotalAlloc)
	want := float64(n * unsafe.Sizeof(Entry{}))
	t.Logf("bulk append of %d entries: %.0f bytes, %.3f× the entries", n, got, got/want)
	if got > want*1.03 {
		t.Fatalf("bulk append of %d entries allocated %.0f bytes, %.3f× the entries' %.0f; want under 1.03×", n, got, got/want, want)
	}
}

// BenchmarkPvecAppend measures the garbage of a one-element append at
// several sizes, on a chain (each version extends the last) and on a
// branch (each append extends the same version, so the tail is copied).
func BenchmarkPvecAppend(b *testing.B) {
	for _, n := range []int{10_000, 1_000_000} {
		base := pvec[Entry]{}.append(make([]Entry, n)...)
		e := Entry{Staged: true, ID: objects.ID{1}}
		b.Run(fmt.Sprintf("chain/n=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			v := base
			for range b.N {
				v = v.append(e)
			}
		})
		b.Run(fmt.Sprintf("branch/n=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			_ = base.append(e) // another version has extended base's tail
			for range b.N {
				_ = base.append(e)
			}
		})
	}
}

// BenchmarkPvecRead measures random reads and a full scan at 1M.
func BenchmarkPvecRead(b *testing.B) {
	const n = 1_000_000
	v := pvec[Entry]{}.append(make([]Entry, n)...)
	b.Run("at", func(b *testing.B) {
		for i := range b.N {
			_ = v.at(i * 7919 % n)
		}
	})
	b.Run("all", func(b *testing.B) {
		for range b.N {
			k := 0
			for range v.all() {
				k++
			}
			if k != n {
				b.Fatal(k)
			}
		}
	})
}

// TestPvecAdopt checks that an adopted slice reads back whole, that its
// full leaves are the slice's own array (no copy), and that appends to
// versions of it never write into that array.
func TestPvecAdopt(t *testing.T) {
	for _, n := range []int{0, 1, leafLen - 1, leafLen, leafLen + 1, 2 * leafLen, leafLen * leafLen, leafLen*leafLen + 1, leafLen*(leafLen+1) + 5, leafLen*leafLen*leafLen + 3} {
		c := &next{}
		model := c.take(n)
		xs := slices.Clone(model)
		v := pvecAdopt(xs)
		base := newVersion(v, model)
		checkVersion(t, fmt.Sprintf("adopt %d", n), base)
		if n >= leafLen && v.ptr(0) != &xs[0] {
			t.Errorf("adopt %d: the first leaf was copied", n)
		}
		if full := n &^ leafMask; full > 0 && v.ptr(full-1) != &xs[full-1] {
			t.Errorf("adopt %d: the last full leaf was copied", n)
		}
		one, many := c.take(1), c.take(2*leafLen+3)
		checkVersion(t, fmt.Sprintf("adopt %d, append 1", n), newVersion(v.append(one...), append(slices.Clone(model), one...)))
		checkVersion(t, fmt.Sprintf("adopt %d, append %d", n, len(many)), newVersion(v.append(many...), append(slices.Clone(model), many...)))
		checkVersion(t, fmt.Sprintf("adopt %d afterwards", n), base)
		if !slices.Equal(xs, model) {
			t.Errorf("adopt %d: an append wrote into the adopted array", n)
		}
	}
}
