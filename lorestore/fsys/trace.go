package fsys

import (
	"io/fs"
	"os"
)

// Traced is an FS that tells Note of each operation before passing it
// to FS (nil: OS): the operation's name ("open", "writeat", "truncate",
// "sync", "syncdir", "rename", "link", "remove", "mkdir", "rmdir") and
// the paths it names (for an operation on an open file, the name it was
// opened under). A test reads the order of a write's flushes with it;
// package lorestore/crashtest records whole logs to replay.
type Traced struct {
	FS   FS
	Note func(op string, paths ...string)
}

func (t Traced) fs() FS { return Or(t.FS) }

func (t Traced) OpenFile(name string, flag int, perm fs.FileMode) (*os.File, error) {
	t.Note("open", name)
	return t.fs().OpenFile(name, flag, perm)
}

func (t Traced) WriteAt(f *os.File, p []byte, off int64) (int, error) {
	t.Note("writeat", f.Name())
	return t.fs().WriteAt(f, p, off)
}

func (t Traced) Truncate(f *os.File, size int64) error {
	t.Note("truncate", f.Name())
	return t.fs().Truncate(f, size)
}

func (t Traced) Sync(f *os.File) error {
	t.Note("sync", f.Name())
	return t.fs().Sync(f)
}

func (t Traced) SyncDir(dir string) error {
	t.Note("syncdir", dir)
	return t.fs().SyncDir(dir)
}

func (t Traced) Rename(oldpath, newpath string) error {
	t.Note("rename", oldpath, newpath)
	return t.fs().Rename(oldpath, newpath)
}

func (t Traced) Link(oldpath, newpath string) error {
	t.Note("link", oldpath, newpath)
	return t.fs().Link(oldpath, newpath)
}

func (t Traced) Remove(name string) error {
	t.Note("remove", name)
	return t.fs().Remove(name)
}

func (t Traced) Mkdir(name string, perm fs.FileMode) error {
	t.Note("mkdir", name)
	return t.fs().Mkdir(name, perm)
}

func (t Traced) Rmdir(name string) error {
	t.Note("rmdir", name)
	return t.fs().Rmdir(name)
}
