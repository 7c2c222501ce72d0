// Package crashtest records what a store does to the disk and replays it
// as a crash of the machine at each point would have left the disk
// (DL-0415). A test opens its stores with a Recorder as their
// lorestore.Options.FS, runs the calls under test, marks each call that
// returned with Ack, and calls Replay: for every prefix of the log it
// builds the disks a crash there may leave and checks each of them —
// the store opens, lorestore's fsck and `git fsck --strict` are clean,
// and every commit acknowledged before the crash point is on its branch.
//
// The model of a crash, per prefix of the log:
//   - data a file was given and flushed (Sync) stays; data written but
//     not flushed is either lost (the file holds what its last flush
//     left, nothing if never flushed) or kept;
//   - a name made, moved or removed in a folder (create, rename, link,
//     remove, mkdir, rmdir) that was not followed by a flush of that
//     folder (SyncDir) may or may not have happened: each folder with
//     such changes has happened some first few of them, in order (none,
//     all, or any prefix between; every combination across folders when
//     they are few).
//
// A rename that moves a name between two folders is thus seen by each
// folder separately, as POSIX promises no more; within one folder the
// order of changes is kept, as a journaling file system keeps it. The
// state at the start of the recording is taken to be durable.
//
// Only this package's tests and the tests of the packages above lorestore
// use it; nothing in a program imports it.
package crashtest

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/deloreis/deloreis/lorestore/fsys"
	"golang.org/x/sys/unix"
)

// opKind is what one logged operation did.
type opKind int

const (
	opCreate   opKind = iota // a new empty file at path, inode ino
	opWrite                  // data written into ino at off
	opTruncate               // ino's size set to off
	opContent                // ino's content seen as data (before a rename or link)
	opSync                   // ino flushed, its content being data
	opSyncDir                // the folder path flushed
	opRename                 // path moved to path2
	opLink                   // path2 made a second name of path
	opRemove                 // the name path removed
	opMkdir                  // the folder path made
	opRmdir                  // the empty folder path removed
	opAck                    // a call returned: ack
)

var opNames = [...]string{"create", "write", "truncate", "content", "sync", "syncdir", "rename", "link", "remove", "mkdir", "rmdir", "ack"}

func (k opKind) String() string { return opNames[k] }

// op is one entry of the log. Paths are absolute.
type op struct {
	kind  opKind
	path  string
	path2 string
	ino   int
	off   int64
	data  []byte
	ack   Ack
}

func (o op) String() string {
	switch o.kind {
	case opAck:
		return fmt.Sprintf("ack %s %s", o.ack.Branch, o.ack.Commit)
	case opRename, opLink:
		return fmt.Sprintf("%s %s -> %s", o.kind, o.path, o.path2)
	case opWrite, opTruncate, opContent, opSync:
		return fmt.Sprintf("%s #%d (%d bytes)", o.kind, o.ino, len(o.data))
	}
	return fmt.Sprintf("%s %s", o.kind, o.path)
}

// Ack is a commit a call reported as made: after a crash at any later
// point, the branch in the store at Store must hold it (be it, or have it
// as an ancestor).
type Ack struct {
	Store  string // the store's folder (one of the recorded roots)
	Branch string // a branch name ("main") or a full ref name
	Commit string // the commit's id in hex
	What   string // the call, for messages
}

// Recorder is an fsys.FS that does every operation on the disk and logs
// those under its roots, in the order they happened.
type Recorder struct {
	roots []string

	mu    sync.Mutex
	log   []op
	inos  map[uint64]int // a real inode number → its model inode
	next  int
	start map[string]entry // the roots' trees at the start, by path
}

// entry is a file or folder of the starting tree.
type entry struct {
	dir  bool
	ino  int
	data []byte
}

// Record starts a Recorder over the folders roots (stores, usually),
// taking what they hold now as durable.
func Record(roots ...string) (*Recorder, error) {
	r := &Recorder{inos: map[uint64]int{}, start: map[string]entry{}}
	for _, root := range roots {
		abs, err := filepath.Abs(root)
		if err != nil {
			return nil, err
		}
		r.roots = append(r.roots, abs)
		err = filepath.WalkDir(abs, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				r.start[path] = entry{dir: true}
				return nil
			}
			if !d.Type().IsRegular() {
				return nil
			}
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			var st unix.Stat_t
			if err := unix.Lstat(path, &st); err != nil {
				return err
			}
			id, ok := r.inos[st.Ino]
			if !ok {
				id = r.newIno(st.Ino)
			}
			r.start[path] = entry{ino: id, data: data}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return r, nil
}

func (r *Recorder) newIno(real uint64) int {
	r.next++
	r.inos[real] = r.next
	return r.next
}

// Ack marks a call that returned having made a commit.
func (r *Recorder) Ack(a Ack) {
	if abs, err := filepath.Abs(a.Store); err == nil {
		a.Store = abs
	}
	r.mu.Lock()
	r.log = append(r.log, op{kind: opAck, ack: a})
	r.mu.Unlock()
}

// Ops is how many operations have been logged.
func (r *Recorder) Ops() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.log)
}

// under reports whether path lies in one of the roots.
func (r *Recorder) under(path string) bool {
	for _, root := range r.roots {
		if path == root || strings.HasPrefix(path, root+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

// fileIno is the model inode of the open file f (made up for a file the
// log never saw created, which then has no name in the model).
func (r *Recorder) fileIno(f *os.File) int {
	var st unix.Stat_t
	if unix.Fstat(int(f.Fd()), &st) != nil {
		return 0
	}
	if id, ok := r.inos[st.Ino]; ok {
		return id
	}
	return r.newIno(st.Ino)
}

// pathIno is the model inode of the file at path, 0 if none.
func (r *Recorder) pathIno(path string) int {
	var st unix.Stat_t
	if unix.Lstat(path, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFREG {
		return 0
	}
	if id, ok := r.inos[st.Ino]; ok {
		return id
	}
	return r.newIno(st.Ino)
}

// content reads the whole of the open file f.
func content(f *os.File) []byte {
	st, err := f.Stat()
	if err != nil {
		return nil
	}
	buf := make([]byte, st.Size())
	n, _ := f.ReadAt(buf, 0)
	return buf[:n]
}

func (r *Recorder) add(o op) { r.log = append(r.log, o) }

// OpenFile implements fsys.FS.
func (r *Recorder) OpenFile(name string, flag int, perm fs.FileMode) (*os.File, error) {
	abs, _ := filepath.Abs(name)
	if !r.under(abs) {
		return os.OpenFile(name, flag, perm)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	_, statErr := os.Lstat(abs)
	f, err := os.OpenFile(name, flag, perm)
	if err != nil {
		return nil, err
	}
	var st unix.Stat_t
	if err := unix.Fstat(int(f.Fd()), &st); err != nil {
		f.Close()
		return nil, err
	}
	switch {
	case statErr != nil && flag&os.O_CREATE != 0:
		r.add(op{kind: opCreate, path: abs, ino: r.newIno(st.Ino)})
	case flag&os.O_TRUNC != 0:
		r.add(op{kind: opTruncate, ino: r.fileIno(f)})
	}
	return f, nil
}

// WriteAt implements fsys.FS.
func (r *Recorder) WriteAt(f *os.File, p []byte, off int64) (int, error) {
	abs, _ := filepath.Abs(f.Name())
	if !r.under(abs) {
		return f.WriteAt(p, off)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	n, err := f.WriteAt(p, off)
	if n > 0 {
		r.add(op{kind: opWrite, ino: r.fileIno(f), off: off, data: slices.Clone(p[:n])})
	}
	return n, err
}

// Truncate implements fsys.FS.
func (r *Recorder) Truncate(f *os.File, size int64) error {
	abs, _ := filepath.Abs(f.Name())
	if !r.under(abs) {
		return f.Truncate(size)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	err := f.Truncate(size)
	if err == nil {
		r.add(op{kind: opTruncate, ino: r.fileIno(f), off: size})
	}
	return err
}

// Sync implements fsys.FS.
func (r *Recorder) Sync(f *os.File) error {
	abs, _ := filepath.Abs(f.Name())
	if !r.under(abs) {
		return fsys.OS.Sync(f)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	// The disk here need not be flushed: the log is what a test replays.
	r.add(op{kind: opSync, ino: r.fileIno(f), data: content(f)})
	return nil
}

// SyncDir implements fsys.FS.
func (r *Recorder) SyncDir(dir string) error {
	abs, _ := filepath.Abs(dir)
	if !r.under(abs) {
		return fsys.OS.SyncDir(dir)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if st, err := os.Stat(abs); err != nil || !st.IsDir() {
		return fsys.OS.SyncDir(dir) // the same error
	}
	r.add(op{kind: opSyncDir, path: abs})
	return nil
}

// seen logs the content of the file at path, about to get another name.
func (r *Recorder) seen(path string) {
	f, err := os.Open(path)
	if err != nil {
		return
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		return
	}
	r.add(op{kind: opContent, ino: r.fileIno(f), data: content(f)})
}

// Rename implements fsys.FS.
func (r *Recorder) Rename(oldpath, newpath string) error {
	o, _ := filepath.Abs(oldpath)
	n, _ := filepath.Abs(newpath)
	if !r.under(o) && !r.under(n) {
		return os.Rename(oldpath, newpath)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.seen(o)
	if err := os.Rename(oldpath, newpath); err != nil {
		return err
	}
	r.add(op{kind: opRename, path: o, path2: n})
	return nil
}

// Link implements fsys.FS.
func (r *Recorder) Link(oldpath, newpath string) error {
	o, _ := filepath.Abs(oldpath)
	n, _ := filepath.Abs(newpath)
	if !r.under(o) && !r.under(n) {
		return os.Link(oldpath, newpath)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.seen(o)
	if err := os.Link(oldpath, newpath); err != nil {
		return err
	}
	r.add(op{kind: opLink, path: o, path2: n, ino: r.pathIno(n)})
	return nil
}

// Remove implements fsys.FS.
func (r *Recorder) Remove(name string) error {
	abs, _ := filepath.Abs(name)
	if !r.under(abs) {
		return fsys.OS.Remove(name)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := fsys.OS.Remove(name); err != nil {
		return err
	}
	r.add(op{kind: opRemove, path: abs})
	return nil
}

// Mkdir implements fsys.FS.
func (r *Recorder) Mkdir(name string, perm fs.FileMode) error {
	abs, _ := filepath.Abs(name)
	if !r.under(abs) {
		return os.Mkdir(name, perm)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := os.Mkdir(name, perm); err != nil {
		return err
	}
	r.add(op{kind: opMkdir, path: abs})
	return nil
}

// Rmdir implements fsys.FS.
func (r *Recorder) Rmdir(name string) error {
	abs, _ := filepath.Abs(name)
	if !r.under(abs) {
		return fsys.OS.Rmdir(name)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := fsys.OS.Rmdir(name); err != nil {
		return err
	}
	r.add(op{kind: opRmdir, path: abs})
	return nil
}

var _ fsys.FS = (*Recorder)(nil)
