package author

import (
	"context"
	"errors"

	"github.com/deloreis/deloreis/fault"
	"github.com/deloreis/deloreis/lorestore"
)

// GarbageFile is a file in objects/ that no reader uses: a temporary file
// of a writer that did not finish, or a pack whose index never came.
type GarbageFile struct {
	Path string `json:"path" desc:"the file, relative to the store"`
	Size int64  `json:"size" desc:"its size in bytes"`
	Why  string `json:"why" desc:"why no reader uses it: a temporary file of an unfinished write, or a pack without its index"`
}

// GarbageResult lists the store's garbage (Garbage), or what GC removed.
type GarbageResult struct {
	Files []GarbageFile `json:"files" desc:"the garbage files, by path"`
	Bytes int64         `json:"bytes" desc:"their total size in bytes"`
}

// Garbage lists the store's garbage files; fsck prints them beside its
// problems (they are not problems: every reader skips them, as git does).
func (s *Service) Garbage(_ context.Context, _ *Empty) (GarbageResult, error) {
	st, err := s.needStore()
	if err != nil {
		return GarbageResult{}, err
	}
	gs, err := st.Garbage()
	return garbageResult(gs), err
}

// GC removes the store's garbage files and says which (DL-0438).
func (s *Service) GC(_ context.Context, _ *Empty) (GarbageResult, error) {
	st, err := s.needStore()
	if err != nil {
		return GarbageResult{}, err
	}
	gs, err := st.GC()
	if errors.Is(err, lorestore.ErrReadOnly) {
		return GarbageResult{}, fault.Errorf(fault.Refused, CodePinnedProject, "The lorestore is open read-only: gc removes nothing from it.")
	}
	return garbageResult(gs), err
}

func garbageResult(gs []lorestore.Garbage) GarbageResult {
	res := GarbageResult{Files: make([]GarbageFile, len(gs))}
	for i, g := range gs {
		res.Files[i] = GarbageFile{Path: g.Path, Size: g.Size, Why: g.Why}
		res.Bytes += g.Size
	}
	return res
}
