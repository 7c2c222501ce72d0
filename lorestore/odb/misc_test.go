// Small shared test helpers.

package odb

import (
	"errors"
	"io"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
)

func isNotFound(err error) bool { return errors.Is(err, ErrNotFound) }

func ioReadFull(r io.Reader, b []byte) (int, error) { return io.ReadFull(r, b) }

// entryTypes counts the stored entry types over all packs of db.
func entryTypes(t testing.TB, db *DB) map[plumbing.ObjectType]int {
	t.Helper()
	s, err := db.acquire()
	if err != nil {
		t.Fatal(err)
	}
	defer s.release()
	m := map[plumbing.ObjectType]int{}
	for _, p := range s.packs {
		for i := 0; i < p.idx.n; i++ {
			off, _ := p.idx.offset(i)
			h, err := p.header(off)
			if err != nil {
				t.Fatal(err)
			}
			m[h.typ]++
		}
	}
	return m
}

var errBadContent = errors.New("content does not match its name, or Has disagrees with Read")
