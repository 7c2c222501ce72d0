package worker

import (
	"io/fs"
	"os"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/deloreis/deloreis/author"
	"github.com/deloreis/deloreis/lorestore"
	"github.com/deloreis/deloreis/lorestore/fsys"
)

// failingDisk is the operating system's file system until fail is set;
// then every flush fails with that errno (a full disk whose delayed
// allocation fails at fsync) and, unless atSync, every new file too (a
// read-only disk).
type failingDisk struct {
	fsys.FS
	fail   atomic.Value // syscall.Errno; 0: healthy
	atSync bool
}

func (d *failingDisk) errno() syscall.Errno {
	e, _ := d.fail.Load().(syscall.Errno)
	return e
}

func (d *failingDisk) OpenFile(name string, flag int, perm fs.FileMode) (*os.File, error) {
	if e := d.errno(); e != 0 && !d.atSync && flag&os.O_CREATE != 0 {
		return nil, &fs.PathError{Op: "open", Path: name, Err: e}
	}
	return d.FS.OpenFile(name, flag, perm)
}

func (d *failingDisk) Sync(f *os.File) error {
	if e := d.errno(); e != 0 {
		return &fs.PathError{Op: "fsync", Path: f.Name(), Err: e}
	}
	return d.FS.Sync(f)
}

// TestDiskFailuresHaveTheirCodes: a materialize on a full disk is refused
// as disk-full, on a read-only one as read-only (class refused, not
// internal: repeating it unchanged fails again), the branch does not
// move, and the staged work is kept, so the same materialize succeeds
// once the disk is writable again (DL-0439). Before, both came back as
// class internal.
func TestDiskFailuresHaveTheirCodes(t *testing.T) {
	for _, c := range []struct {
		errno  syscall.Errno
		atSync bool
		code   string
	}{{syscall.ENOSPC, true, CodeDiskFull}, {syscall.EROFS, false, CodeReadOnly}} {
		t.Run(c.code, func(t *testing.T) {
			disk := &failingDisk{FS: fsys.OS, atSync: c.atSync}
			clock := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
			s, err := lorestore.Init(t.TempDir(), lorestore.Options{FS: disk, Now: func() time.Time { clock = clock.Add(time.Second); return clock }})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { s.Close() })
			svc, err := author.New(author.Config{Store: s, Documents: []string{"camelot"}})
			if err != nil {
				t.Fatal(err)
			}
			reg := NewRegistry()
			RegisterAuthor(reg, svc)
			h := &dliHarness{t: t, store: s, svc: svc, reg: reg}

			ws := h.ok("author.open", map[string]any{"scope": "camelot"})["workspace"].(string)
			h.ok("author.add_entity", map[string]any{"workspace": ws, "id": "arthur", "kind": "person", "name": "Arthur", "provenance": prop()})
			before, err := s.Head("main")
			if err != nil {
				t.Fatal(err)
			}
			disk.fail.Store(c.errno)
			e := h.refused(c.code, "author.materialize", map[string]any{"workspace": ws})
			t.Logf("refused: %v", e["message"])
			if e["class"] != string(ClassRefused) {
				t.Fatalf("class %v, want refused", e["class"])
			}
			if after, _ := s.Head("main"); after != before {
				t.Fatal("a refused materialize moved main")
			}
			disk.fail.Store(syscall.Errno(0))
			h.ok("author.materialize", map[string]any{"workspace": ws})
			if after, _ := s.Head("main"); after == before {
				t.Fatal("the materialize after the disk came back did not commit")
			}
		})
	}
}
