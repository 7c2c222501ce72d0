// In-process concurrency: readers on many goroutines, through this DB and
// through a second DB on the same repository, while batches are written
// and packs consolidated. Run with -race.

package odb

import (
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
)

func TestConcurrentReadersWritersConsolidate(t *testing.T) {
	dir := initBare(t)
	db := openDB(t, dir, Options{AutoPackLimit: 3})
	other := openDB(t, dir, Options{AutoPackLimit: -1}) // sees changes by rescanning
	var mu sync.Mutex
	var committed []plumbing.Hash
	snapshot := func() []plumbing.Hash {
		mu.Lock()
		defer mu.Unlock()
		return committed
	}
	var stop atomic.Bool
	var reads atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for g := 0; g < 6; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(g), 1))
			reader := db
			if g%2 == 1 {
				reader = other
			}
			for !stop.Load() {
				hs := snapshot()
				if len(hs) == 0 {
					continue
				}
				h := hs[r.IntN(len(hs))]
				typ, data, err := reader.Read(h)
				if err == nil && HashObject(typ, data) != h {
					err = errBadContent
				}
				if err == nil {
					var ok bool
					ok, err = reader.Has(h)
					if !ok && err == nil {
						err = errBadContent
					}
				}
				if err != nil {
					errs <- err
					return
				}
				reads.Add(1)
			}
		}(g)
	}
	r := rand.New(rand.NewPCG(9, 9))
	for i := 0; i < 40; i++ {
		b := db.NewBatch()
		var names []plumbing.Hash
		for j := 0; j < 30; j++ {
			names = append(names, b.Add(plumbing.BlobObject, blob(r, 200)))
		}
		if err := b.Write(); err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		committed = append(committed[:len(committed):len(committed)], names...)
		mu.Unlock()
		if i%7 == 6 {
			if err := other.Consolidate(); err != nil {
				t.Fatal(err)
			}
		}
	}
	stop.Store(true)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("reader: %v", err)
	}
	if reads.Load() < 100 {
		t.Fatalf("only %d reads happened", reads.Load())
	}
	readAllNamed(t, db, committed)
	readAllNamed(t, other, committed)
}
