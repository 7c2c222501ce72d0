package crashtest

import (
	"crypto/sha256"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// inode is a file of the model: what it holds now and what its last
// flush left on the disk.
type inode struct {
	cur, synced []byte
}

// link is a name in a folder: a file (ino) or a folder.
type link struct {
	ino int
	dir bool
}

// folder is a folder of the model: its names now and as last flushed.
type folder struct {
	cur, dur map[string]link
}

// model is the disk as the log has changed it so far.
type model struct {
	roots   []string
	inodes  map[int]*inode
	folders map[string]*folder // by absolute path
}

func newModel(r *Recorder) *model {
	m := &model{roots: r.roots, inodes: map[int]*inode{}, folders: map[string]*folder{}}
	for _, root := range r.roots {
		m.folders[root] = &folder{cur: map[string]link{}, dur: map[string]link{}}
	}
	paths := slices.Sorted(maps.Keys(r.start))
	for _, p := range paths {
		e := r.start[p]
		if e.dir {
			if m.folders[p] == nil {
				m.folders[p] = &folder{cur: map[string]link{}, dur: map[string]link{}}
			}
		} else {
			m.inodes[e.ino] = &inode{cur: e.data, synced: e.data}
		}
		if parent := m.folders[filepath.Dir(p)]; parent != nil && !m.isRoot(p) {
			l := link{ino: e.ino, dir: e.dir}
			parent.cur[filepath.Base(p)] = l
			parent.dur[filepath.Base(p)] = l
		}
	}
	return m
}

func (m *model) isRoot(p string) bool { return slices.Contains(m.roots, p) }

func (m *model) file(ino int) *inode {
	n := m.inodes[ino]
	if n == nil {
		n = &inode{}
		m.inodes[ino] = n
	}
	return n
}

func (m *model) parent(path string) (*folder, string, error) {
	f := m.folders[filepath.Dir(path)]
	if f == nil {
		return nil, "", fmt.Errorf("crashtest: the log names %s, whose folder the model does not hold", path)
	}
	return f, filepath.Base(path), nil
}

// apply changes the model as o changed the disk.
func (m *model) apply(o op) error {
	switch o.kind {
	case opCreate:
		f, name, err := m.parent(o.path)
		if err != nil {
			return err
		}
		m.inodes[o.ino] = &inode{}
		f.cur[name] = link{ino: o.ino}
	case opWrite:
		n := m.file(o.ino)
		end := o.off + int64(len(o.data))
		if int64(len(n.cur)) < end {
			n.cur = append(n.cur, make([]byte, end-int64(len(n.cur)))...)
		} else {
			n.cur = slices.Clone(n.cur)
		}
		copy(n.cur[o.off:], o.data)
	case opTruncate:
		n := m.file(o.ino)
		if int64(len(n.cur)) >= o.off {
			n.cur = slices.Clone(n.cur[:o.off])
		} else {
			n.cur = append(slices.Clone(n.cur), make([]byte, o.off-int64(len(n.cur)))...)
		}
	case opContent:
		m.file(o.ino).cur = o.data
	case opSync:
		n := m.file(o.ino)
		n.cur, n.synced = o.data, o.data
	case opSyncDir:
		f := m.folders[o.path]
		if f == nil {
			return fmt.Errorf("crashtest: flush of %s, a folder the model does not hold", o.path)
		}
		f.dur = maps.Clone(f.cur)
	case opRename, opLink:
		from, oldName, err := m.parent(o.path)
		if err != nil {
			return err
		}
		to, newName, err := m.parent(o.path2)
		if err != nil {
			return err
		}
		l, ok := from.cur[oldName]
		if !ok {
			return fmt.Errorf("crashtest: %s of %s, which the model does not hold", o.kind, o.path)
		}
		if l.dir {
			return fmt.Errorf("crashtest: %s of the folder %s is not modelled", o.kind, o.path)
		}
		if o.kind == opRename {
			delete(from.cur, oldName)
		}
		to.cur[newName] = l
	case opRemove, opRmdir:
		f, name, err := m.parent(o.path)
		if err != nil {
			return err
		}
		delete(f.cur, name)
	case opMkdir:
		f, name, err := m.parent(o.path)
		if err != nil {
			return err
		}
		f.cur[name] = link{dir: true}
		m.folders[o.path] = &folder{cur: map[string]link{}, dur: map[string]link{}}
	case opAck:
	}
	return nil
}

// dirty is the folders whose names changed since their last flush, sorted.
func (m *model) dirty() []string {
	var out []string
	for p, f := range m.folders {
		if !maps.Equal(f.cur, f.dur) {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return out
}

// crash is one way a crash may leave the disk: the folders taken as they
// are now (the others as last flushed), and whether unflushed data stays.
type crash struct {
	now      map[string]bool
	keepData bool
}

func (c crash) String() string {
	return fmt.Sprintf("folders as now %v, unflushed data kept %v", slices.Sorted(maps.Keys(c.now)), c.keepData)
}

// crashes lists the ways a crash may leave the disk after the log so far:
// for each data choice, every subset of the dirty folders taken as now
// (when there are few), else none, all, and each one alone and all but it.
func (m *model) crashes() []crash {
	dirty := m.dirty()
	var sets []map[string]bool
	if len(dirty) <= 4 {
		for mask := 0; mask < 1<<len(dirty); mask++ {
			s := map[string]bool{}
			for i, d := range dirty {
				if mask&(1<<i) != 0 {
					s[d] = true
				}
			}
			sets = append(sets, s)
		}
	} else {
		all := map[string]bool{}
		for _, d := range dirty {
			all[d] = true
		}
		sets = append(sets, map[string]bool{}, all)
		for _, d := range dirty {
			but := maps.Clone(all)
			delete(but, d)
			sets = append(sets, map[string]bool{d: true}, but)
		}
	}
	var out []crash
	for _, s := range sets {
		out = append(out, crash{now: s, keepData: false}, crash{now: s, keepData: true})
	}
	return out
}

// disk is a crash's disk: file contents and folders by path.
type disk struct {
	files map[string][]byte
	dirs  []string
}

// leave is the disk c leaves.
func (m *model) leave(c crash) disk {
	d := disk{files: map[string][]byte{}}
	var walk func(path string)
	walk = func(path string) {
		f := m.folders[path]
		if f == nil {
			return
		}
		d.dirs = append(d.dirs, path)
		names := f.dur
		if c.now[path] {
			names = f.cur
		}
		for name, l := range names {
			p := filepath.Join(path, name)
			if l.dir {
				walk(p)
				continue
			}
			n := m.inodes[l.ino]
			if n == nil {
				d.files[p] = nil
				continue
			}
			if c.keepData {
				d.files[p] = n.cur
			} else {
				d.files[p] = n.synced
			}
		}
	}
	for _, root := range m.roots {
		walk(root)
	}
	return d
}

// sum identifies the disk's content, but for the files that only say a
// writer was at work (temporary packs and indexes, lock tokens, the lock
// record, the lock files): two disks that differ in those alone are one
// disk to the checks, which open and read a store and write nothing.
func (d disk) sum() [32]byte {
	h := sha256.New()
	for _, p := range slices.Sorted(maps.Keys(d.files)) {
		if scaffolding(filepath.Base(p)) {
			continue
		}
		fmt.Fprintf(h, "f %s %d\n", p, len(d.files[p]))
		h.Write(d.files[p])
	}
	for _, p := range slices.Sorted(slices.Values(d.dirs)) {
		fmt.Fprintf(h, "d %s\n", p)
	}
	var s [32]byte
	h.Sum(s[:0])
	return s
}

// write lays the disk out under base, each root at where(root).
func (d disk) write(where func(string) string) error {
	for _, p := range d.dirs {
		if err := os.MkdirAll(where(p), 0o755); err != nil {
			return err
		}
	}
	for p, data := range d.files {
		if err := os.WriteFile(where(p), data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// scaffolding reports whether a file of this name is a writer's work in
// progress rather than part of the store.
func scaffolding(name string) bool {
	for _, p := range []string{"tmp_pack_", "tmp_idx_", "deloreis-refs.token."} {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return strings.HasSuffix(name, ".lock")
}
