// Forks: the hypothesis a fork mints, and suppositions, which pin it true
// in the fork's world and nowhere else (koan 2: a fork is exploration over
// an unchanged store).

package author

import (
	"sort"

	"github.com/deloreis/deloreis/fault"
	"github.com/deloreis/deloreis/lorestore"
	"github.com/deloreis/deloreis/objects"
)

// CodeHypothesisInUse refuses discarding a hypothesis that claims or a
// supposition still name.
const CodeHypothesisInUse = "hypothesis-in-use"

func init() { ErrorCodes[CodeHypothesisInUse] = fault.Refused }

// suppose adds hypotheses to the supposed set and re-grades the fork's
// world under them: the valuation moves, nothing is compiled again.
func (s *Service) suppose(ws *Workspace, hyps []string) error {
	set := map[string]bool{}
	for _, h := range append(append([]string(nil), ws.supposed...), hyps...) {
		set[h] = true
	}
	supposed := make([]string, 0, len(set))
	for h := range set {
		supposed = append(supposed, h)
	}
	sort.Strings(supposed)
	ws.world, ws.supposed = ws.world.Suppose(supposed), supposed
	ws.digest = ws.computeDigest()
	return nil
}

// unmint forgets the fork's hypothesis when its declaration is discarded,
// unless a staged claim or a supposition still names it.
func (ws *Workspace) unmint(h string) error {
	inUse := contains(ws.supposed, h)
	for _, st := range ws.staged {
		if p, ok := objects.ProvenanceOf(st.obj); ok && p.Kind == objects.ProvenanceHypothesis && p.Hyp == h {
			inUse = true
		}
	}
	if inUse {
		return fault.Errorf(fault.Refused, CodeHypothesisInUse,
			"Hypothesis %s is still supposed or cited by a staged claim; discard those first.", h).With("hyp", h)
	}
	ws.hyps = nil
	ws.resetDigest()
	return nil
}

// hashString renders a commit id, "" for none.
func hashString(h lorestore.Hash) string {
	if h.IsZero() {
		return ""
	}
	return h.String()
}
