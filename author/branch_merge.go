// author.merge: the union merge of two branches, written only when the
// merged world is safe — no conflict between the sides (valuation,
// exclusivity, functional) and no error finding neither side had. The
// merge commit is written first and checked where it stands; a merge that
// does not pass leaves nothing behind (lorestore.MergeChecked).

package author

import (
	"context"
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

// MergeRequest is one merge, as every surface asks for it: author.merge
// (for a workspace, whose id it records) and `deloreis merge`.
type MergeRequest struct {
	// Source is the branch merged.
	Source string
	// AnyRevision lets Source name any revision the store resolves (a
	// commit, main~2 …) when no branch is named so, as the command line
	// does; author.merge merges branches only.
	AnyRevision bool
	// Target is the branch merged into; "" is main.
	Target string
	// FastForward moves the target to the source, writing no merge commit,
	// when the target is an ancestor of the source (`merge --ff`).
	FastForward bool
	// Workspace, when the merge is a workspace's, is recorded in the merge
	// commit's Lore-Workspace trailer.
	Workspace string
	// Progress hears one step per scope checked, then the outcome.
	Progress context.Context
	// Preview checks the merge and writes nothing: the answer is Merged
	// false with the conflicts and findings a merge would meet (the
	// reviewer's merge preview).
	Preview bool
}

// MergeBranches is the one merge use case: the union of both sides over
// their merge base, written as a two-parent commit only when the merged
// world is safe — no conflict between the sides and no error finding
// neither side had. A merge held back answers Merged false with its
// conflicts and findings, and writes nothing; so does one already
// merged (UpToDate).
func (s *Service) MergeBranches(r MergeRequest) (AuthorMergeResult, error) {
	if _, err := s.needStore(); err != nil {
		return AuthorMergeResult{}, err
	}
	ctx := r.Progress
	if ctx == nil {
		ctx = context.Background()
	}
	return s.merge(r, &steps{ctx: ctx})
}

// mergeSource is the commit a merge's source names: a branch's head, or,
// when no branch is named so, any revision the store resolves.
func (s *Service) mergeSource(source string, anyRevision bool) (lorestore.Hash, error) {
	if anyRevision {
		return s.mustResolve(source)
	}
	return s.branchHead(source)
}

// merge merges r.Source into r.Target (default main). Its steps go to pr:
// one per scope checked, then the outcome.
func (s *Service) merge(r MergeRequest, pr *steps) (AuthorMergeResult, error) {
	target := r.Target
	if target == "" {
		target = lorestore.DefaultBranch
	}
	msg := lorestore.NewMessage("merge "+r.Source+" into "+target, "merge", "")
	if r.Workspace != "" {
		msg.Trailers = append(msg.Trailers, lorestore.Trailer{Key: "Lore-Workspace", Value: r.Workspace})
	}
	for attempt := 0; ; attempt++ {
		src, err := s.mergeSource(r.Source, r.AnyRevision)
		if err != nil {
			return AuthorMergeResult{}, err
		}
		head, err := s.branchHead(target)
		if err != nil {
			return AuthorMergeResult{}, err
		}
		if r.FastForward && !r.Preview {
			if res, done, err := s.fastForward(target, head, src, pr); done || err != nil {
				return res, err
			}
		}
		var rep *mergeReport
		mr, err := s.store.MergeChecked(target, head, src, msg, func(m lorestore.MergeResult) error {
			var err error
			if rep, err = s.mergeReport(m, pr); err != nil {
				return err
			}
			if len(rep.conflicts) > 0 || len(rep.findings) > 0 || r.Preview {
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
			if r.Preview {
				pr.finish("previewed: nothing written")
			} else {
				pr.finish("held back: the merge would bring conflicts")
			}
			res.Conflicts, res.Findings = rep.conflicts, rep.findings
			res.RootHash, res.Base = mr.Target.String(), mr.Base.String()
			res.SourceHead, res.TargetHead = mr.Source.String(), mr.Target.String()
			return res, nil
		case err != nil:
			return AuthorMergeResult{}, storeError(err, target)
		}
		pr.finish("merged " + r.Source + " into " + target)
		res.Merged, res.UpToDate = !mr.UpToDate, mr.UpToDate
		res.RootHash, res.Base = mr.Commit.String(), mr.Base.String()
		res.SourceHead, res.TargetHead = mr.Source.String(), mr.Target.String()
		if rep != nil {
			for scope, w := range rep.worlds {
				s.cache.put(mr.Commit, scope, w)
			}
		}
		return res, nil
	}
}

// fastForward moves target from head to src when head is an ancestor of
// src (done): the target then holds the source's world as it is, which a
// branch already holds, so there is nothing to check. done is false when
// the two have diverged.
func (s *Service) fastForward(target string, head, src lorestore.Hash, pr *steps) (AuthorMergeResult, bool, error) {
	if ok, err := s.store.IsAncestor(head, src); err != nil || !ok || head == src {
		return AuthorMergeResult{}, false, err
	}
	mr, err := s.store.Merge(src.String(), lorestore.MergeOptions{Target: target, FastForward: true, Refuse: true})
	if err != nil {
		return AuthorMergeResult{}, true, storeError(err, target)
	}
	if !mr.FastForward && !mr.UpToDate {
		return AuthorMergeResult{}, false, nil // the target moved meanwhile and has diverged
	}
	pr.finish("fast-forwarded " + target)
	return AuthorMergeResult{Merged: mr.FastForward, FastForward: mr.FastForward, UpToDate: mr.UpToDate, RootHash: mr.Commit.String(), Base: mr.Base.String(),
		SourceHead: mr.Source.String(), TargetHead: mr.Target.String(), Conflicts: []MergeConflict{}, Findings: []MergeFinding{}}, true, nil
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
