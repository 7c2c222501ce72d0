// Benchmarks. Compare with go-git's loose-object writes and reads:
//
//	go test -run '^$' -bench . -benchtime 3x ./lorestore/odb

package odb

import (
	"compress/zlib"
	"fmt"
	"io"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/storage/filesystem"
)

var (
	benchBlobsOnce sync.Once
	benchBlobs     [][]byte
)

// blobs100k returns 100,000 distinct ~200-byte text blobs.
func blobs100k() [][]byte {
	benchBlobsOnce.Do(func() {
		r := rand.New(rand.NewPCG(1, 1))
		benchBlobs = make([][]byte, 100_000)
		for i := range benchBlobs {
			benchBlobs[i] = append([]byte("lore "+strconv.Itoa(i)+"\n"), blob(r, 150+r.IntN(100))...)
		}
	})
	return benchBlobs
}

// benchRepo writes the 100k blobs as one pack and returns the DB and names.
func benchRepo(b *testing.B) (*DB, []plumbing.Hash) {
	b.Helper()
	db := openDB(b, initBare(b), Options{AutoPackLimit: -1})
	batch := db.NewBatch()
	var hs []plumbing.Hash
	for _, data := range blobs100k() {
		hs = append(hs, batch.Add(plumbing.BlobObject, data))
	}
	if err := batch.Write(); err != nil {
		b.Fatal(err)
	}
	return db, hs
}

func BenchmarkBatchWrite100k(b *testing.B) {
	blobs := blobs100k()
	db := openDB(b, initBare(b), Options{AutoPackLimit: -1, NoFsync: true})
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		batch := db.NewBatch()
		for _, data := range blobs {
			batch.Add(plumbing.BlobObject, data)
		}
		if err := batch.Write(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*len(blobs))/b.Elapsed().Seconds(), "objects/s")
}

func BenchmarkBatchWrite100kFsync(b *testing.B) {
	blobs := blobs100k()
	db := openDB(b, initBare(b), Options{AutoPackLimit: -1})
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		batch := db.NewBatch()
		for _, data := range blobs {
			batch.Add(plumbing.BlobObject, data)
		}
		if err := batch.Write(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*len(blobs))/b.Elapsed().Seconds(), "objects/s")
}

func BenchmarkRead(b *testing.B) {
	db, hs := benchRepo(b)
	r := rand.New(rand.NewPCG(2, 2))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, _, err := db.Read(hs[r.IntN(len(hs))]); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkReadParallel(b *testing.B) {
	db, hs := benchRepo(b)
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		r := rand.New(rand.NewPCG(rand.Uint64(), 2))
		for pb.Next() {
			if _, _, err := db.Read(hs[r.IntN(len(hs))]); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func BenchmarkHasMissing(b *testing.B) {
	db, _ := benchRepo(b)
	missing := HashObject(plumbing.BlobObject, []byte("absent"))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if ok, err := db.Has(missing); ok || err != nil {
			b.Fatal(ok, err)
		}
	}
}

func BenchmarkWritePack100k(b *testing.B) {
	db, hs := benchRepo(b)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := db.WritePack(io.Discard, hs, nil); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*len(hs))/b.Elapsed().Seconds(), "objects/s")
}

// BenchmarkGoGitLooseWrite is the baseline: go-git's filesystem storage
// writing the same blobs as loose objects (10,000 of them per op).
func BenchmarkGoGitLooseWrite(b *testing.B) {
	blobs := blobs100k()[:10_000]
	st := filesystem.NewStorage(osfs.New(initBare(b)), cache.NewObjectLRUDefault())
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, data := range blobs {
			o := st.NewEncodedObject()
			o.SetType(plumbing.BlobObject)
			w, _ := o.Writer()
			w.Write(data)
			w.Close()
			if _, err := st.SetEncodedObject(o); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.N*len(blobs))/b.Elapsed().Seconds(), "objects/s")
}

// BenchmarkGoGitRead is the baseline for BenchmarkRead: go-git reading a
// 200-byte blob from the same 100k-object pack.
func BenchmarkGoGitRead(b *testing.B) {
	db, hs := benchRepo(b)
	st := filesystem.NewStorage(osfs.New(db.gitDir), cache.NewObjectLRUDefault())
	r := rand.New(rand.NewPCG(2, 2))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		o, err := st.EncodedObject(plumbing.AnyObject, hs[r.IntN(len(hs))])
		if err != nil {
			b.Fatal(err)
		}
		rd, _ := o.Reader()
		io.ReadAll(rd)
		rd.Close()
	}
}

// jsonish returns n lore-like JSON records of about 200 bytes.
func jsonish(n int) [][]byte {
	words := strings.Fields("the of lore rune keeper ancient city river north shadow oath blade " +
		"king queen war peace harvest storm tower song memory ember")
	r := rand.New(rand.NewPCG(4, 4))
	out := make([][]byte, n)
	for i := range out {
		var body []string
		for j := 0; j < 14+r.IntN(10); j++ {
			body = append(body, words[r.IntN(len(words))])
		}
		out[i] = []byte(fmt.Sprintf(`{"id":"lore-%d","kind":"entry","tags":[%q,%q],"body":%q}`,
			i, words[r.IntN(len(words))], words[r.IntN(len(words))], strings.Join(body, " ")))
	}
	return out
}

// BenchmarkCompressLevels is the measurement behind compressLevel and the
// small-object encoder: objects/s and compressed/raw ratio on random text
// and on lore-like JSON.
func BenchmarkCompressLevels(b *testing.B) {
	corpora := map[string][][]byte{"text": blobs100k()[:10_000], "json": jsonish(10_000)}
	for _, corpus := range []string{"text", "json"} {
		blobs := corpora[corpus]
		for _, level := range []int{zlib.HuffmanOnly, zlib.BestSpeed, zlib.DefaultCompression, 100} {
			name := corpus + "/level" + strconv.Itoa(level)
			if level == 100 {
				name = corpus + "/fixed-huffman"
			}
			b.Run(name, func(b *testing.B) {
				w := &sliceWriter{}
				zw, _ := zlib.NewWriterLevel(w, max(min(level, 9), -2))
				fd := &fastDeflater{}
				in, out := 0, 0
				for i := 0; i < b.N; i++ {
					for _, data := range blobs {
						w.b = w.b[:0]
						if level == 100 {
							w.b = fd.appendSmallZlib(w.b, data)
						} else {
							zw.Reset(w)
							zw.Write(data)
							zw.Close()
						}
						in += len(data)
						out += len(w.b)
					}
				}
				b.ReportMetric(float64(b.N*len(blobs))/b.Elapsed().Seconds(), "objects/s")
				b.ReportMetric(float64(out)/float64(in), "ratio")
			})
		}
	}
}
