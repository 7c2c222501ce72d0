// dli.canon's use case: the canon export of a scope at a revision.

package author

import (
	"context"

	"github.com/deloreis/deloreis/fault"
)

// CanonParams name the scope to export and, optionally, a revision (the
// serving branch's head by default).
type CanonParams struct {
	Scope string `json:"scope" desc:"the scope (document) whose canon to export"`
	Rev   string `json:"rev,omitempty" desc:"the revision to read: a branch, a commit id (4 or more hex digits), main~2, … (default: the serving branch's head)"`
}

// maxRevLen bounds a revision arriving in params: it is resolved, never
// used as a path, but an unbounded one is never a revision.
const maxRevLen = 256

// ExportCanon is Canon for a request: a revision longer than any names
// nothing.
func (s *Service) ExportCanon(_ context.Context, p *CanonParams) (CanonExport, error) {
	if len(p.Rev) > maxRevLen {
		return CanonExport{}, fault.Errorf(fault.NotFound, CodeUnknownCanonRev, "No commit is named by a %d-byte revision.", len(p.Rev))
	}
	return s.Canon(p.Scope, p.Rev)
}
