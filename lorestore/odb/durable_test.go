package odb

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/deloreis/deloreis/lorestore/fsys"
	"github.com/go-git/go-git/v5/plumbing"
)

// opLog collects what a traced FS is told, in order.
type opLog struct {
	mu  sync.Mutex
	ops [][]string // op, paths...
}

func (l *opLog) note(op string, paths ...string) {
	l.mu.Lock()
	l.ops = append(l.ops, append([]string{op}, paths...))
	l.mu.Unlock()
}

func (l *opLog) take() [][]string {
	l.mu.Lock()
	defer l.mu.Unlock()
	ops := l.ops
	l.ops = nil
	return ops
}

// checkPublishOrder says what is wrong with the order ops publish packs
// in, durable or not: in a durable log every file renamed into objects/pack
// is flushed before its rename, and objects/pack after the last rename; in
// a log written with NoFsync nothing is flushed.
func checkPublishOrder(ops [][]string, packDir string, durable bool) []string {
	var bad []string
	synced := map[string]bool{}
	renamed, syncedAfter := 0, true
	for _, op := range ops {
		switch op[0] {
		case "sync":
			synced[op[1]] = true
		case "rename":
			if filepath.Dir(op[2]) != packDir {
				continue
			}
			renamed++
			syncedAfter = false
			if durable && !synced[op[1]] {
				bad = append(bad, fmt.Sprintf("%s renamed onto %s before it was flushed", filepath.Base(op[1]), filepath.Base(op[2])))
			}
		case "syncdir":
			if op[1] == packDir {
				syncedAfter = true
			}
		}
		if !durable && (op[0] == "sync" || op[0] == "syncdir") {
			bad = append(bad, "NoFsync flushed "+strings.Join(op[1:], " "))
		}
	}
	if renamed == 0 {
		bad = append(bad, "no pack was published")
	}
	if durable && !syncedAfter {
		bad = append(bad, "objects/pack not flushed after the last rename")
	}
	return bad
}

// TestPublishFlushesFirst: every way a pack is published (a small batch,
// a spooled batch, a bulk pack, an ingested pack, a roll-up) flushes the
// pack and its index before renaming them into objects/pack, and the
// folder after, unless NoFsync (then nothing). Fails with the flushes of
// publishFiles removed or moved after the renames.
func TestPublishFlushesFirst(t *testing.T) {
	src := deltaRepo(t)
	pk := git(t, src, joinHashes(allObjects(t, src)), "pack-objects", "--stdout", "-q", "--delta-base-offset")
	blobs := func(n int) [][]byte {
		r := rand.New(rand.NewPCG(uint64(n), 7))
		var out [][]byte
		for range n {
			out = append(out, blob(r, 200))
		}
		return out
	}
	writes := []struct {
		name  string
		write func(*DB) error
	}{
		{"small batch", func(db *DB) error {
			b := db.NewBatch()
			b.Add(plumbing.BlobObject, []byte("one\n"))
			return b.Write()
		}},
		{"spooled batch", func(db *DB) error {
			b := db.NewBatch()
			for _, d := range blobs(5000) {
				b.Add(plumbing.BlobObject, d)
			}
			return b.Write()
		}},
		{"bulk pack", func(db *DB) error {
			bp, err := db.NewBulkPack()
			if err != nil {
				return err
			}
			for _, d := range blobs(300) {
				bp.Add(plumbing.BlobObject, d)
			}
			return bp.Finish()
		}},
		{"ingest", func(db *DB) error { return db.IngestPack(bytes.NewReader(pk), nil) }},
		{"consolidate", func(db *DB) error {
			for i := range 3 {
				b := db.NewBatch()
				b.Add(plumbing.BlobObject, fmt.Appendf(nil, "roll %d\n", i))
				if err := b.Write(); err != nil {
					return err
				}
			}
			return db.Consolidate()
		}},
	}
	for _, w := range writes {
		for _, durable := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s/durable=%v", w.name, durable), func(t *testing.T) {
				log := &opLog{}
				dir := initBare(t)
				db := openDB(t, dir, Options{AutoPackLimit: -1, NoFsync: !durable, FS: fsys.Traced{Note: log.note}})
				log.take()
				if err := w.write(db); err != nil {
					t.Fatal(err)
				}
				for _, p := range checkPublishOrder(log.take(), filepath.Join(dir, "objects", "pack"), durable) {
					t.Error(p)
				}
			})
		}
	}
}
