package author

import (
	"flag"
	"os"
	"runtime"
	"testing"
	"time"

	"github.com/deloreis/deloreis/lorestore"
	"github.com/deloreis/deloreis/world"
)

// go test ./author -run '^$' -bench OpenFromFile -benchtime 1x -args -worldfile.n=1000000
var worldfileN = flag.Int("worldfile.n", 100_000, "facts in the world BenchmarkOpenFromFile opens")

// BenchmarkOpenFromFile: a cold open (a fresh opening of the store, an
// empty world cache) of followService's n-fact world, without a world file
// (read the scope from the packs, compile) and with one (read and verify
// the file, decode, compile), the read halves alone, the file's write
// time and its bytes per object.
func BenchmarkOpenFromFile(b *testing.B) {
	svc, _ := followService(b, *worldfileN)
	head, err := svc.store.Head("main")
	if err != nil {
		b.Fatal(err)
	}
	w, err := svc.cache.get(svc.store, head, "big")
	if err != nil {
		b.Fatal(err)
	}
	objs := 0
	for range w.Objects() {
		objs++
	}
	t0 := time.Now()
	svc.store.WaitBackground()
	write := time.Since(t0) // an upper bound: the writer started at the compile's end
	path := worldFilePath(svc.store, head, "big")
	info, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	w, svc.cache = nil, newWorldCache(1) // only the cold opens' worlds live
	cold := func(noFiles bool) (time.Duration, *worldCache, *world.World) {
		s, err := lorestore.Open(svc.store.Dir(), lorestore.Options{})
		if err != nil {
			b.Fatal(err)
		}
		defer s.Close()
		c := newWorldCache(4)
		c.noFiles = noFiles
		t := time.Now()
		w, err := c.get(s, head, "big")
		if err != nil {
			b.Fatal(err)
		}
		return time.Since(t), c, w
	}
	b.ResetTimer()
	for range b.N {
		live0 := liveHeap()
		without, c, w := cold(true)
		if c.compileCount() != 1 {
			b.Fatal("the open without a file did not compile")
		}
		liveWithout := liveHeap() - live0
		runtime.KeepAlive(w)
		w = nil
		live0 = liveHeap()
		with, c, w := cold(false)
		if l, _, _ := c.fileCounts(); l != 1 || c.compileCount() != 0 {
			b.Fatal("the open with a file did not load it")
		}
		liveWith := liveHeap() - live0
		runtime.KeepAlive(w)
		b.ReportMetric(float64(liveWithout)/float64(objs), "live-nofile-B/obj")
		b.ReportMetric(float64(liveWith)/float64(objs), "live-file-B/obj")
		readStore, readFile := readHalves(b, svc.store.Dir(), head, path)
		b.ReportMetric(float64(without.Milliseconds()), "open-nofile-ms")
		b.ReportMetric(float64(with.Milliseconds()), "open-file-ms")
		b.ReportMetric(float64(readStore.Milliseconds()), "read-store-ms")
		b.ReportMetric(float64(readFile.Milliseconds()), "read-file-ms")
	}
	b.ReportMetric(float64(write.Milliseconds()), "write-wait-ms")
	b.ReportMetric(float64(info.Size())/float64(objs), "file-B/obj")
}

// readHalves times the read phase alone, cold: the scope from the packs
// (LoadScope over a fresh opening) against the file (read, verify,
// decode).
func readHalves(b *testing.B, dir string, head [20]byte, path string) (store, file time.Duration) {
	b.Helper()
	s, err := lorestore.Open(dir, lorestore.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	t := time.Now()
	sn, err := s.SnapshotAt(head)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := LoadScope(sn, "big"); err != nil {
		b.Fatal(err)
	}
	store = time.Since(t)
	c := newWorldCache(4)
	hd, ok := c.wantHeader(s, head, "big")
	if !ok {
		b.Fatal("no header")
	}
	t = time.Now()
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	if _, _, err := decodeWorldFile(data, hd); err != nil {
		b.Fatal(err)
	}
	return store, time.Since(t)
}
