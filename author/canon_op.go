// dli.canon: the canon export served as a worker op. It lives here, not in
// dliops, because it reads the Service's world cache and its documents.

package author

import (
	"context"

	"github.com/deloreis/deloreis/fault"
	"github.com/deloreis/deloreis/worker"
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

func registerCanon(r *worker.Registry, s *Service) {
	worker.Register(r, worker.Spec{Name: "dli.canon",
		Summary: "Export a scope's canon: non-dead fact objects by predicate, with the interner, decisions and attacks their support needs.",
		Errors:  []string{CodeUnknownScope, CodeUnknownCanonRev, CodeEvidenceCorrupt}},
		func(_ context.Context, _ *worker.Call, p *CanonParams) (CanonExport, error) {
			if len(p.Rev) > maxRevLen {
				return CanonExport{}, fault.Errorf(fault.NotFound, CodeUnknownCanonRev, "No commit is named by a %d-byte revision.", len(p.Rev))
			}
			return s.Canon(p.Scope, p.Rev)
		})
}
