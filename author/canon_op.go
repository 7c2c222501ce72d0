// dli.canon's use case: the canon export of a scope at a revision.

package author

import (
	"context"

	"github.com/deloreis/deloreis/fault"
)

// CanonParams name the scope to export and, optionally, a revision (the
// serving branch's head by default).
type CanonParams struct {
	Scope string `json:"scope"`
	Rev   string `json:"rev,omitempty"`
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
