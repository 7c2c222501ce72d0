// author.merge: the union merge of two branches, written only when the
// merged world is safe — no conflict between the sides (valuation,
// exclusivity, functional) and no error finding neither side had. The
// merge commit is written first and checked where it stands; a merge that
// does not pass leaves nothing behind (lorestore.MergeChecked).

package author

import (
	"errors"
	"fmt"

	"github.com/deloreis/deloreis/lorestore"
	"github.com/deloreis/deloreis/world"
)

// errMergeHeld is what the check answers when the merge must not be
// written; the report says why.
var errMergeHeld = errors.New("author: merge held back by its conflicts")

// mergeReport is what the check found in a merge commit.
type mergeReport struct {
	conflicts []MergeConflict
	findings  []MergeFinding
	worlds    map[string]*world.World // the merged world of each scope looked at
}

// merge merges branch source into target (default main) for a workspace.
// Its steps go to pr: one per scope checked, then the outcome.
func (s *Service) merge(ws *Workspace, source, target string, pr *steps) (AuthorMergeResult, error) {
	if target == "" {
		target = lorestore.DefaultBranch
	}
	msg := lorestore.NewMessage("merge "+source+" into "+target, "merge", "")
	msg.Trailers = append(msg.Trailers, lorestore.Trailer{Key: "Lore-Workspace", Value: ws.id})
	for attempt := 0; ; attempt++ {
		src, err := s.branchHead(source)
		if err != nil {
			return AuthorMergeResult{}, err
		}
		head, err := s.branchHead(target)
		if err != nil {
			return AuthorMergeResult{}, err
		}
		var rep *mergeReport
		r, err := s.store.MergeChecked(target, head, src, msg, func(r lorestore.MergeResult) error {
			var err error
			if rep, err = s.mergeReport(r, pr); err != nil {
				return err
			}
			if len(rep.conflicts) > 0 || len(rep.findings) > 0 {
				return errMergeHeld
			}
			return nil
		})
		var stale *lorestore.StaleError
		if errors.As(err, &stale) && attempt < 8 {
			continue // the target moved before the lock was ours: merge its new head
		}
		res := AuthorMergeResult{Conflicts: []MergeConflict{}, Findings: []MergeFinding{}}
		switch {
		case errors.Is(err, errMergeHeld):
			pr.finish("held back: the merge would bring conflicts")
			res.Conflicts, res.Findings = rep.conflicts, rep.findings
			res.RootHash, res.Base = r.Target.String(), r.Base.String()
			res.SourceHead, res.TargetHead = r.Source.String(), r.Target.String()
			return res, nil
		case err != nil:
			return AuthorMergeResult{}, storeError(err, target)
		}
		pr.finish("merged " + source + " into " + target)
		res.Merged, res.UpToDate = !r.UpToDate, r.UpToDate
		res.RootHash, res.Base = r.Commit.String(), r.Base.String()
		res.SourceHead, res.TargetHead = r.Source.String(), r.Target.String()
		if rep != nil {
			for scope, w := range rep.worlds {
				s.cache.put(r.Commit, scope, w)
			}
		}
		return res, nil
	}
}

// mergeReport compiles, scope by scope, the worlds of the merge base, the
// two sides and the merge commit, and lists the conflicts and new error
// findings of the merge. A scope whose merged objects are one side's as
// they were brings nothing new and is not compiled (DL-0134).
func (s *Service) mergeReport(r lorestore.MergeResult, pr *steps) (*mergeReport, error) {
	rep := &mergeReport{conflicts: []MergeConflict{}, findings: []MergeFinding{}, worlds: map[string]*world.World{}}
	scopes, err := s.store.MergeScopes(r)
	if err != nil {
		return nil, err
	}
	pr.of(len(scopes) + 1)
	for i, ms := range scopes {
		scope := ms.Scope
		pr.to(float64(i), fmt.Sprintf("checking scope %s (%d of %d)", scope, i+1, len(scopes)))
		if !ms.Kept.IsZero() {
			if w, ok := s.cache.peek(ms.Kept, scope); ok {
				rep.worlds[scope] = w // the same objects: the same world
			}
			continue
		}
		var ws [3]*world.World // base, ours, theirs
		for i, c := range []lorestore.Hash{r.Base, r.Target, r.Source} {
			if ws[i], err = s.cache.get(s.store, c, scope); err != nil {
				return nil, err
			}
		}
		merged, err := s.mergedWorld(r, scope, ws[1], ws[2])
		if err != nil {
			return nil, err
		}
		rep.worlds[scope] = merged
		rep.add(scope, ws[0], ws[1], ws[2], merged)
	}
	return rep, nil
}

// add files one scope's conflicts and new error findings. A conflict or
// finding one side had already is that side's, not the merge's.
func (rep *mergeReport) add(scope string, base, ours, theirs, merged *world.World) {
	had := map[string]bool{}
	for _, w := range []*world.World{ours, theirs} {
		// MergeConflicts of a world with itself is its own exclusivity
		// conflicts: no standing differs and nothing is new.
		for _, c := range world.MergeConflicts(w, w, w, w) {
			had[c.Kind+"\x00"+c.Message] = true
		}
	}
	for _, c := range world.MergeConflicts(base, ours, theirs, merged) {
		if had[c.Kind+"\x00"+c.Message] {
			continue
		}
		data := c.Data
		if data == nil {
			data = map[string]any{}
		}
		claims := c.Claims
		if claims == nil {
			claims = []string{}
		}
		rep.conflicts = append(rep.conflicts, MergeConflict{Kind: c.Kind, Claims: claims, Message: c.Message, Data: data, Scope: scope})
	}
	var sides []world.Finding
	sides = append(sides, errorFindings(ours)...)
	sides = append(sides, errorFindings(theirs)...)
	for _, f := range newFindings(sides, errorFindings(merged)) {
		if f.Code == world.CodeFDViolation || f.Code == world.CodeDerivedFDViolation {
			continue // a functional conflict already
		}
		rep.findings = append(rep.findings, MergeFinding{Scope: scope, Finding: f})
	}
}

func errorFindings(w *world.World) []world.Finding {
	var out []world.Finding
	for _, f := range w.Findings() {
		if f.Severity == world.SeverityError {
			out = append(out, f)
		}
	}
	return out
}
