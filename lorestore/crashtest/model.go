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

// folder is a folder of the model: its names now and as last flushed,
// and the changes since that flush, in order.
type folder struct {
	cur, dur map[string]link
	pending  []change
}

// change is one name made (or replaced) or removed in a folder.
type change struct {
	name    string
	l       link
	removed bool
}

func newFolder() *folder { return &folder{cur: map[string]link{}, dur: map[string]link{}} }

// set makes name l in f.
func (f *folder) set(name string, l link) {
	f.cur[name] = l
	f.pending = append(f.pending, change{name: name, l: l})
}

// unset removes name from f.
func (f *folder) unset(name string) {
	delete(f.cur, name)
	f.pending = append(f.pending, change{name: name, removed: true})
}

// after is f's names once the first n pending changes have happened.
func (f *folder) after(n int) map[string]link {
	if n >= len(f.pending) {
		return f.cur
	}
	names := maps.Clone(f.dur)
	for _, c := range f.pending[:n] {
		if c.removed {
			delete(names, c.name)
		} else {
			names[c.name] = c.l
		}
	}
	return names
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
		m.folders[root] = newFolder()
	}
	paths := slices.Sorted(maps.Keys(r.start))
	for _, p := range paths {
		e := r.start[p]
		if e.dir {
			if m.folders[p] == nil {
				m.folders[p] = newFolder()
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
		f.set(name, link{ino: o.ino})
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
		f.pending = nil
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
		// The new name first: a rename within one folder never shows
		// neither name.
		to.set(newName, l)
		if o.kind == opRename {
			from.unset(oldName)
		}
	case opRemove, opRmdir:
		f, name, err := m.parent(o.path)
		if err != nil {
			return err
		}
		f.unset(name)
	case opMkdir:
		f, name, err := m.parent(o.path)
		if err != nil {
			return err
		}
		f.set(name, link{dir: true})
		m.folders[o.path] = newFolder()
	case opAck:
	}
	return nil
}

// dirty is the folders whose names changed since their last flush, sorted.
func (m *model) dirty() []string {
	var out []string
	for p, f := range m.folders {
		if len(f.pending) > 0 && !maps.Equal(f.cur, f.dur) {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return out
}

// crash is one way a crash may leave the disk: how many of each dirty
// folder's changes since its last flush happened (in order; a folder not
// named: none), and whether unflushed data stays.
type crash struct {
	happened map[string]int
	keepData bool
}

func (c crash) String() string {
	var parts []string
	for _, p := range slices.Sorted(maps.Keys(c.happened)) {
		parts = append(parts, fmt.Sprintf("%s: %d", p, c.happened[p]))
	}
	return fmt.Sprintf("changes since the last flush that happened {%s}, unflushed data kept %v", strings.Join(parts, ", "), c.keepData)
}

// maxCombined bounds the crashes tried as every combination of the dirty
// folders' prefixes.
const maxCombined = 32

// crashes lists the ways a crash may leave the disk after the log so far.
// A folder's names change in the order they were changed (a journal
// keeps that order), so each dirty folder has happened some prefix of
// its changes since its last flush: every combination of prefixes when
// they are few, else each folder's prefixes with every other folder at
// none and at all of its changes. Each with unflushed data lost and kept.
func (m *model) crashes() []crash {
	dirty := m.dirty()
	n := make([]int, len(dirty))
	combined := 1
	for i, d := range dirty {
		n[i] = len(m.folders[d].pending)
		combined *= n[i] + 1
		if combined > maxCombined {
			combined = maxCombined + 1
		}
	}
	var sets []map[string]int
	if combined <= maxCombined {
		idx := make([]int, len(dirty))
		for {
			s := map[string]int{}
			for i, d := range dirty {
				if idx[i] > 0 {
					s[d] = idx[i]
				}
			}
			sets = append(sets, s)
			i := 0
			for ; i < len(idx); i++ {
				if idx[i] < n[i] {
					idx[i]++
					break
				}
				idx[i] = 0
			}
			if i == len(idx) {
				break
			}
		}
	} else {
		for _, all := range []bool{false, true} {
			for i, d := range dirty {
				for j := 0; j <= n[i]; j++ {
					s := map[string]int{}
					for k, e := range dirty {
						if all {
							s[e] = n[k]
						}
					}
					s[d] = j
					sets = append(sets, s)
				}
			}
		}
	}
	var out []crash
	for _, s := range sets {
		out = append(out, crash{happened: s, keepData: false}, crash{happened: s, keepData: true})
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
		names := f.after(c.happened[path])
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
