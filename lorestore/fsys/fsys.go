// Package fsys is the seam through which the store changes the disk: the
// object database (lorestore/odb), the refs (lorestore/refs) and the
// store's own few files go through an FS for every operation that decides
// what a crash leaves behind — creating a file, writing it in place,
// flushing it, renaming, linking and removing names, making and flushing
// folders. The real one is the operating system's (OS); a test gives a
// recording one (package lorestore/crashtest) and replays the log as a
// crash at each point would have left the disk (DL-0415).
//
// Bytes streamed into a new file through its *os.File (a pack, an index)
// do not pass through the seam: the FS sees the file when it is flushed,
// renamed or linked, which is when its content starts to matter. Reads
// never pass through it.
package fsys

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"golang.org/x/sys/unix"
)

// FS changes the disk. Every method behaves as its namesake in package os
// (or, for Sync and SyncDir, as fsync(2) on the file or the folder).
type FS interface {
	// OpenFile opens or creates name; a file it creates is new and empty.
	OpenFile(name string, flag int, perm fs.FileMode) (*os.File, error)
	// WriteAt writes p into f at off.
	WriteAt(f *os.File, p []byte, off int64) (int, error)
	// Truncate sets f's size.
	Truncate(f *os.File, size int64) error
	// Sync flushes f's data and size to stable storage.
	Sync(f *os.File) error
	// SyncDir flushes the names in the folder dir to stable storage.
	SyncDir(dir string) error
	// Rename moves the name oldpath to newpath, replacing newpath.
	Rename(oldpath, newpath string) error
	// Link gives the file oldpath the second name newpath.
	Link(oldpath, newpath string) error
	// Remove removes the name of a file.
	Remove(name string) error
	// Mkdir makes the folder name.
	Mkdir(name string, perm fs.FileMode) error
	// Rmdir removes the empty folder name.
	Rmdir(name string) error
}

// OS is the operating system's file system: the FS of every store that
// is given none.
var OS FS = osFS{}

// Or is fs, or OS when fs is nil.
func Or(fs FS) FS {
	if fs == nil {
		return OS
	}
	return fs
}

type osFS struct{}

func (osFS) OpenFile(name string, flag int, perm fs.FileMode) (*os.File, error) {
	return os.OpenFile(name, flag, perm)
}
func (osFS) WriteAt(f *os.File, p []byte, off int64) (int, error) { return f.WriteAt(p, off) }
func (osFS) Truncate(f *os.File, size int64) error                { return f.Truncate(size) }
func (osFS) Sync(f *os.File) error                                { return f.Sync() }
func (osFS) SyncDir(dir string) error                             { return syncDir(dir) }
func (osFS) Rename(oldpath, newpath string) error                 { return os.Rename(oldpath, newpath) }
func (osFS) Link(oldpath, newpath string) error                   { return os.Link(oldpath, newpath) }
func (osFS) Remove(name string) error                             { return syscallErr("remove", name, unix.Unlink(name)) }
func (osFS) Mkdir(name string, perm fs.FileMode) error            { return os.Mkdir(name, perm) }
func (osFS) Rmdir(name string) error                              { return syscallErr("rmdir", name, unix.Rmdir(name)) }

func syscallErr(op, name string, err error) error {
	if err == nil {
		return nil
	}
	return &fs.PathError{Op: op, Path: name, Err: err}
}

// syncDir fsyncs the folder dir.
func syncDir(dir string) error {
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return &fs.PathError{Op: "open", Path: dir, Err: err}
	}
	err = unix.Fsync(fd)
	unix.Close(fd)
	if err != nil {
		return &fs.PathError{Op: "fsync", Path: dir, Err: err}
	}
	return nil
}

// MkdirAll makes the folder path and the missing folders above it, as
// os.MkdirAll does. When durable, the folder above each one it made is
// flushed, so that the new folders outlive a crash of the machine (their
// files are flushed by whoever writes them).
func MkdirAll(fsys FS, path string, perm fs.FileMode, durable bool) error {
	if st, err := os.Stat(path); err == nil {
		if st.IsDir() {
			return nil
		}
		return &fs.PathError{Op: "mkdir", Path: path, Err: syscall.ENOTDIR}
	}
	parent := filepath.Dir(path)
	if parent != path {
		if err := MkdirAll(fsys, parent, perm, durable); err != nil {
			return err
		}
	}
	err := fsys.Mkdir(path, perm)
	if errors.Is(err, fs.ErrExist) {
		if st, serr := os.Lstat(path); serr == nil && st.IsDir() {
			return nil // made meanwhile by someone else, who flushes it
		}
		return err
	}
	if err != nil {
		return err
	}
	if durable {
		return fsys.SyncDir(parent)
	}
	return nil
}

// WriteFile writes a new file at path with data (it must not exist) and,
// when durable, flushes it.
func WriteFile(fsys FS, path string, data []byte, perm fs.FileMode, durable bool) error {
	f, err := fsys.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	_, err = fsys.WriteAt(f, data, 0)
	if err == nil && durable {
		err = fsys.Sync(f)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
