// The standing ops of DLI section 3.10: decisions, standing and defeat.
// Each commits ledger records (decisions, attacks, standing revisions)
// straight onto the workspace's branch: the staged layer, and so the
// digest, is left as it was, and only the base moves. The records are
// checked against the base world, staged onto it (world.Stage — never a
// compile from scratch), committed by compare-and-swap, and the staged
// world is filed in the cache under the new commit.

package author

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/deloreis/deloreis/datalog"
	"github.com/deloreis/deloreis/fault"
	"github.com/deloreis/deloreis/lorestore"
	"github.com/deloreis/deloreis/objects"
	"github.com/deloreis/deloreis/world"
)

// Error codes of the standing ops.
const (
	CodeDecisionExists   = "decision-exists"
	CodeUnknownDecision  = "unknown-decision"
	CodeUnknownClaim     = "unknown-claim"
	CodeNotProvisional   = "not-provisional"
	CodeNotOnEveryPath   = "decision-not-on-every-path"
	CodeAttackExists     = "attack-exists"
	CodeClaimDead        = "claim-dead"
	CodeStampCitation    = "stamp-citation"
	CodeEvidenceCorrupt  = "evidence-corrupt"
	CodeUnknownCanonRev  = "unknown-revision"
	maxLedgerCommitTries = 8
)

func init() {
	for code, class := range map[string]fault.Class{
		CodeDecisionExists: fault.Refused, CodeUnknownDecision: fault.NotFound, CodeUnknownClaim: fault.NotFound,
		CodeNotProvisional: fault.Refused, CodeNotOnEveryPath: fault.Refused, CodeAttackExists: fault.Refused,
		CodeClaimDead: fault.Refused, CodeStampCitation: fault.Refused, CodeEvidenceCorrupt: fault.Refused,
		CodeUnknownCanonRev: fault.NotFound,
	} {
		ErrorCodes[code] = class
	}
}

// DecisionRecord is one decision to record.
type DecisionRecord struct {
	Decision   string          `json:"decision" desc:"the decision's id, new in the document; what claims cite and author.defeat names"`
	Rationale  string          `json:"rationale,omitempty" desc:"why the decision was taken, stored as data; absent for none"`
	Provenance json.RawMessage `json:"provenance,omitempty" desc:"the decision's own provenance: {kind: proposed, origin} or {kind: cited, decisions, state} (hypothesis is refused: a decision is canon); absent for none"`
}

// RecordDecisionParams record one decision.
type RecordDecisionParams struct {
	Workspace string `json:"workspace" desc:"the workspace id author.open returned (ws-N); the decision is recorded in its document"`
	DecisionRecord
}

// RecordDecisionsParams record an ordered batch of decisions.
type RecordDecisionsParams struct {
	Workspace string           `json:"workspace" desc:"the workspace id author.open returned (ws-N); the decisions are recorded in its document"`
	Records   []DecisionRecord `json:"records" desc:"the decisions to record, in order, all or none; a record may cite one later in the batch; a refusal names its record_index"`
}

// Validate requires at least one record.
func (p *RecordDecisionsParams) Validate() error {
	if len(p.Records) == 0 {
		return fault.Errorf(fault.Invalid, fault.CodeBadParams, "params: records must hold at least one decision").With("field", "records")
	}
	return nil
}

// SetStandingParams ratify a stored claim under a decision.
type SetStandingParams struct {
	Workspace string `json:"workspace" desc:"the workspace id author.open returned (ws-N)"`
	ClaimID   string `json:"claim_id" desc:"the object id (64 hex digits) of a stored provisional claim"`
	Decision  string `json:"decision" desc:"a recorded decision that occurs in every support path of the claim; the claim is ratified under it"`
}

// DefeatParams attack a decision supporting a claim with another.
type DefeatParams struct {
	Workspace        string `json:"workspace" desc:"the workspace id author.open returned (ws-N)"`
	ClaimID          string `json:"claim_id" desc:"the object id (64 hex digits) of the stored claim to defeat"`
	Decision         string `json:"decision" desc:"the defeating decision, recorded by this call when the document lacks it; it attacks defeated_decision on this claim"`
	DefeatedDecision string `json:"defeated_decision" desc:"a decision that supports every path of the claim; it is out while the attacker is in"`
}

// LedgerResult is what a standing op committed: the new commit, the
// unchanged digest, and the ids of the objects it wrote.
type LedgerResult struct {
	RootHash        string   `json:"root_hash" desc:"the commit the call wrote on the workspace's branch (40 hex digits)"`
	WorkspaceDigest string   `json:"workspace_digest" desc:"the workspace's digest, unchanged: the call commits, it stages nothing"`
	Committed       []string `json:"committed" desc:"the object ids (64 hex digits) of the objects the commit wrote (decisions, attacks, standing revisions)"`
}

func (s *Service) RecordDecision(_ context.Context, g Guard, p *RecordDecisionParams) (LedgerResult, error) {
	decs, err := decodeRecords([]DecisionRecord{p.DecisionRecord}, false)
	if err != nil {
		return LedgerResult{}, err
	}
	return mutate(s, g, p, p.Workspace, func(ws *Workspace) (LedgerResult, error) {
		return s.recordDecisions(ws, "record_decision", decs)
	})
}

func (s *Service) RecordDecisions(_ context.Context, g Guard, p *RecordDecisionsParams) (LedgerResult, error) {
	decs, err := decodeRecords(p.Records, true)
	if err != nil {
		return LedgerResult{}, err
	}
	return mutate(s, g, p, p.Workspace, func(ws *Workspace) (LedgerResult, error) {
		return s.recordDecisions(ws, "record_decisions", decs)
	})
}

// decodeRecords builds the Decision objects of a batch through
// objects.Decode, which validates each (ids, provenance shape).
func decodeRecords(recs []DecisionRecord, batch bool) ([]*objects.Decision, error) {
	out := make([]*objects.Decision, len(recs))
	for i, r := range recs {
		field := func(f string) string {
			if batch {
				return fmt.Sprintf("records[%d].%s", i, f)
			}
			return f
		}
		if r.Decision == "" {
			return nil, fault.Errorf(fault.Invalid, fault.CodeMissingField, "params needs field %q", field("decision")).
				With("field", field("decision")).With("record_index", i)
		}
		fields := map[string]any{"id": r.Decision, "type": "decision"}
		if r.Rationale != "" {
			fields["rationale"] = r.Rationale
		}
		if len(r.Provenance) > 0 {
			fields["provenance"] = r.Provenance
		}
		body, err := json.Marshal(fields)
		if err != nil {
			return nil, fault.Errorf(fault.Invalid, fault.CodeBadParams, "params: %s: %v", field("provenance"), err).With("record_index", i)
		}
		o, err := objects.Decode(body)
		if err != nil {
			// The object's id is the param decision: report each problem
			// under the param that holds it.
			return nil, renameFields(objectError(err), func(f string) string {
				if f == "id" {
					f = "decision"
				}
				return field(f)
			}).With("record_index", i)
		}
		out[i] = o.(*objects.Decision)
	}
	return out, nil
}

// renameFields names the fields of an objectError as the params name them:
// its field, each problem's field, and the field its message starts with.
func renameFields(e *fault.Error, rename func(string) string) *fault.Error {
	c := *e
	c.Data = make(map[string]any, len(e.Data))
	for k, v := range e.Data {
		c.Data[k] = v
	}
	if f, ok := e.Data["field"].(string); ok {
		c.Data["field"] = rename(f)
		if rest, ok := strings.CutPrefix(c.Message, "params: "+f+" "); ok {
			c.Message = "params: " + rename(f) + " " + rest
		}
	}
	if ps, ok := e.Data["problems"].([]map[string]string); ok {
		out := make([]map[string]string, len(ps))
		for i, p := range ps {
			msg := p["message"]
			if rest, ok := strings.CutPrefix(msg, p["field"]+" "); ok {
				msg = rename(p["field"]) + " " + rest
			}
			out[i] = map[string]string{"field": rename(p["field"]), "code": p["code"], "message": msg}
		}
		c.Data["problems"] = out
	}
	return &c
}

// recordDecisions checks a batch whole against the base world and commits
// it (DL-0110).
func (s *Service) recordDecisions(ws *Workspace, op string, decs []*objects.Decision) (LedgerResult, error) {
	summary := fmt.Sprintf("record decisions %s: %d", ws.scope, len(decs))
	if len(decs) == 1 {
		summary = fmt.Sprintf("record decision %s: %s", ws.scope, decs[0].Ident)
		if len(summary) > 200 {
			summary = fmt.Sprintf("record decision %s: 1", ws.scope)
		}
	}
	idents := make([]string, len(decs))
	for i, d := range decs {
		idents[i] = d.Ident
	}
	return s.commitLedger(ws, op, summary, idents, func(bw *world.World) ([]objects.Object, error) {
		if err := checkRecords(bw, decs); err != nil {
			return nil, err
		}
		objs := make([]objects.Object, len(decs))
		for i, d := range decs {
			objs[i] = d
		}
		return objs, nil
	})
}

// checkRecords applies the per-record rules in record order, against one
// pre-image: the base world and the whole batch. A decision id is recorded
// once; a cited provenance names decisions of the base or of the batch
// (before or after the record, itself included); a hypothesis provenance
// is fork-local, and decisions are recorded only outside forks.
func checkRecords(bw *world.World, decs []*objects.Decision) error {
	first := make(map[string]int, len(decs))
	for i, d := range decs {
		if _, ok := first[d.Ident]; !ok {
			first[d.Ident] = i
		}
	}
	for i, d := range decs {
		if j := first[d.Ident]; j < i {
			return fault.Errorf(fault.Refused, CodeDecisionExists,
				"Record %d repeats decision %q of record %d; a decision is recorded once. Nothing was recorded.", i, d.Ident, j).
				With("record_index", i).With("decision", d.Ident)
		}
		if _, _, ok := bw.Decision(d.Ident); ok {
			return fault.Errorf(fault.Refused, CodeDecisionExists,
				"Decision %q is already recorded in this document (record %d). Nothing was recorded.", d.Ident, i).
				With("record_index", i).With("decision", d.Ident)
		}
		if d.Provenance == nil {
			continue
		}
		switch d.Provenance.Kind {
		case objects.ProvenanceHypothesis:
			return fault.Errorf(fault.Refused, CodeHypothesisInScope,
				"Record %d: hypothesis provenance is fork-local and a decision is recorded in canon; cite decisions or give a proposed origin. Nothing was recorded.", i).
				With("record_index", i).With("hyp", d.Provenance.Hyp)
		case objects.ProvenanceCited:
			for _, c := range d.Provenance.Decisions {
				if _, inBatch := first[c]; inBatch {
					continue
				}
				if _, _, ok := bw.Decision(c); !ok {
					return fault.Errorf(fault.NotFound, CodeUnknownDecision,
						"Record %d cites decision %q, which is neither recorded in this document nor in the batch. Nothing was recorded.", i, c).
						With("record_index", i).With("decision", c)
				}
			}
		}
	}
	return nil
}

func (s *Service) SetStanding(_ context.Context, g Guard, p *SetStandingParams) (LedgerResult, error) {
	id, err := parseClaimID(p.ClaimID)
	if err != nil {
		return LedgerResult{}, err
	}
	if err := checkDecisionID("decision", p.Decision); err != nil {
		return LedgerResult{}, err
	}
	return mutate(s, g, p, p.Workspace, func(ws *Workspace) (LedgerResult, error) {
		summary := fmt.Sprintf("set standing %s: %s ratified", ws.scope, id.String()[:12])
		return s.commitLedger(ws, "set_standing", summary, []string{p.Decision}, func(bw *world.World) ([]objects.Object, error) {
			if err := storedClaim(bw, id); err != nil {
				return nil, err
			}
			if _, _, ok := bw.Decision(p.Decision); !ok {
				return nil, unknownDecision("decision", p.Decision)
			}
			if st := standingOf(bw, id); st != objects.StandingProvisional {
				return nil, fault.Errorf(fault.Refused, CodeNotProvisional,
					"Claim %s is %s, not provisional: only a provisional claim is ratified by author.set_standing.", p.ClaimID, st).
					With("claim_id", p.ClaimID).With("standing", st)
			}
			if bw.ClaimGrade(id) == datalog.Dead {
				return nil, fault.Errorf(fault.Refused, CodeClaimDead,
					"Claim %s is dead under the recorded attacks; a defeated claim is not ratified.", p.ClaimID).With("claim_id", p.ClaimID)
			}
			if err := onEveryPath(bw, id, p.Decision, "decision"); err != nil {
				return nil, err
			}
			return []objects.Object{&objects.Standing{Claim: id, Standing: objects.StandingRatified, Decision: p.Decision}}, nil
		})
	})
}

func (s *Service) Defeat(_ context.Context, g Guard, p *DefeatParams) (LedgerResult, error) {
	id, err := parseClaimID(p.ClaimID)
	if err != nil {
		return LedgerResult{}, err
	}
	if err := checkDecisionID("decision", p.Decision); err != nil {
		return LedgerResult{}, err
	}
	if err := checkDecisionID("defeated_decision", p.DefeatedDecision); err != nil {
		return LedgerResult{}, err
	}
	return mutate(s, g, p, p.Workspace, func(ws *Workspace) (LedgerResult, error) {
		summary := fmt.Sprintf("defeat %s: %s by %s", ws.scope, p.DefeatedDecision, p.Decision)
		if len(summary) > 200 {
			summary = fmt.Sprintf("defeat %s: %s", ws.scope, id.String()[:12])
		}
		return s.commitLedger(ws, "defeat", summary, []string{p.Decision}, func(bw *world.World) ([]objects.Object, error) {
			return defeatObjects(bw, id, p)
		})
	})
}

// defeatObjects checks a defeat against the base world and returns what it
// writes: the attacking decision when it is new, and the attack (DL-0112).
func defeatObjects(bw *world.World, id objects.ID, p *DefeatParams) ([]objects.Object, error) {
	if err := storedClaim(bw, id); err != nil {
		return nil, err
	}
	if _, _, ok := bw.Decision(p.DefeatedDecision); !ok {
		return nil, unknownDecision("defeated_decision", p.DefeatedDecision)
	}
	attacker := false
	for _, e := range bw.AttackGraph(id) {
		attacker = attacker || e[0] == p.DefeatedDecision
	}
	if !attacker {
		if err := onEveryPath(bw, id, p.DefeatedDecision, "defeated_decision"); err != nil {
			return nil, err
		}
	}
	a := &objects.Attack{Attacker: p.Decision, Target: p.DefeatedDecision, Claim: id}
	aid, err := a.ID()
	if err != nil {
		return nil, objectError(err)
	}
	if _, ok := bw.Lookup(aid); ok {
		return nil, fault.Errorf(fault.Refused, CodeAttackExists,
			"Decision %q already attacks %q on claim %s.", p.Decision, p.DefeatedDecision, p.ClaimID).
			With("attack", aid.String())
	}
	var objs []objects.Object
	if _, _, ok := bw.Decision(p.Decision); !ok {
		objs = append(objs, &objects.Decision{Ident: p.Decision})
	}
	return append(objs, a), nil
}

// commitLedger commits the records build returns for the base world on the
// workspace's branch by compare-and-swap over the workspace's base. When
// the branch moved, build runs again over the new head's world (its checks
// may now refuse). On success the staged world of the records is filed in
// the cache for the new commit and the workspace moves onto it: the staged
// layer is restaged over the new base and the digest does not change.
func (s *Service) commitLedger(ws *Workspace, op, summary string, decisions []string, build func(bw *world.World) ([]objects.Object, error)) (LedgerResult, error) {
	if ws.fork != "" {
		return LedgerResult{}, fault.Errorf(fault.Refused, CodeForkLocal,
			"Workspace %s forks question %s: standing ops write canon, and a fork never does. Open a scope workspace.", ws.id, ws.fork)
	}
	if err := s.refusePinned("author." + op); err != nil {
		return LedgerResult{}, err
	}
	bw, parent := ws.baseWorld, ws.base
	for range maxLedgerCommitTries {
		objs, err := build(bw)
		if err != nil {
			return LedgerResult{}, err
		}
		nbw, err := bw.Stage(objs, nil)
		if err != nil {
			return LedgerResult{}, err
		}
		batch := lorestore.NewBatch()
		ids := make([]string, len(objs))
		for i, o := range objs {
			id, err := batch.Put(ws.scope, o)
			if err != nil {
				return LedgerResult{}, objectError(err)
			}
			ids[i] = id.String()
		}
		msg := lorestore.NewMessage(summary, op, ws.scope)
		for _, d := range decisions {
			msg.Trailers = append(msg.Trailers, lorestore.Trailer{Key: lorestore.TrailerDecision, Value: d})
		}
		msg.Trailers = append(msg.Trailers, lorestore.Trailer{Key: lorestore.TrailerWorkspace, Value: ws.id})
		res, err := s.store.Commit(batch, msg, lorestore.CommitOptions{Branch: ws.branch, Parent: parent, Refuse: true})
		var stale *lorestore.StaleError
		if errors.As(err, &stale) {
			if bw, err = s.baseWorld(stale.Actual, ws.scope); err != nil {
				return LedgerResult{}, err
			}
			parent = stale.Actual
			continue
		}
		if err != nil {
			return LedgerResult{}, err
		}
		if err := s.install(ws, res.Commit, nbw); err != nil {
			return LedgerResult{}, err
		}
		return LedgerResult{RootHash: hashString(res.Commit), WorkspaceDigest: ws.digest, Committed: ids}, nil
	}
	return LedgerResult{}, fault.Errorf(fault.Refused, CodeBranchMoved,
		"Branch %s kept moving while workspace %s tried to commit; try again.", ws.branch, ws.id)
}

// install moves a workspace onto a commit whose world the caller built:
// the world is cached for the commit, and the staged layer is restaged
// over it. The staged state, and so the digest, is unchanged.
func (s *Service) install(ws *Workspace, commit lorestore.Hash, bw *world.World) error {
	s.cache.put(commit, ws.scope, bw)
	nw := bw
	if len(ws.staged) > 0 {
		objs := make([]objects.Object, len(ws.staged))
		for i, st := range ws.staged {
			objs[i] = st.obj
		}
		var err error
		if nw, err = bw.Stage(objs, nil); err != nil {
			return err
		}
	}
	ws.base, ws.baseWorld, ws.world = commit, bw, nw
	return nil
}

// storedClaim requires a claim-bearing object of the base world.
func storedClaim(bw *world.World, id objects.ID) error {
	e, ok := bw.Lookup(id)
	if ok {
		if _, claim := objects.ProvenanceOf(e.Object); claim {
			return nil
		}
	}
	return fault.Errorf(fault.NotFound, CodeUnknownClaim,
		"No claim %s is stored in this document at the workspace's base; materialize a staged claim before ruling on it.", id).
		With("claim_id", id.String())
}

// standingOf is a stored claim's standing (DL-0111): a ratified or defeated
// revision settles it (defeated first); else a provisional revision, or a
// cited provenance, gives its state; a proposed or hypothetical claim has
// the standing "proposed".
func standingOf(bw *world.World, id objects.ID) objects.StandingValue {
	seen := map[objects.StandingValue]bool{}
	for _, e := range bw.Ledger(id) {
		if st, ok := e.Object.(*objects.Standing); ok {
			seen[st.Standing] = true
		}
	}
	switch {
	case seen[objects.StandingDefeated]:
		return objects.StandingDefeated
	case seen[objects.StandingRatified]:
		return objects.StandingRatified
	case seen[objects.StandingProvisional]:
		return objects.StandingProvisional
	}
	e, _ := bw.Lookup(id)
	p, _ := objects.ProvenanceOf(e.Object)
	if p.Kind == objects.ProvenanceCited {
		if p.State == objects.CitedRatified {
			return objects.StandingRatified
		}
		return objects.StandingProvisional
	}
	return "proposed"
}

// onEveryPath requires the decision to occur in every support path of the
// claim's atoms; the refusal names the first path without it.
func onEveryPath(bw *world.World, id objects.ID, decision, field string) error {
	paths, truncated := bw.SupportPaths(id)
	if truncated {
		return fault.Errorf(fault.Refused, CodeNotOnEveryPath,
			"Claim %s has more support paths than an explanation lists, so decision %q cannot be checked on every one.", id, decision).
			With("claim_id", id.String()).With(field, decision).With("truncated", true)
	}
	if len(paths) == 0 {
		return fault.Errorf(fault.Refused, CodeNotOnEveryPath,
			"Claim %s has no support path, so no decision supports it.", id).With("claim_id", id.String()).With(field, decision)
	}
	for _, path := range paths {
		if !contains(world.PathDecisions(path), decision) {
			return fault.Errorf(fault.Refused, CodeNotOnEveryPath,
				"Decision %q is not on every support path of claim %s: the path %v does without it.", decision, id, path).
				With("claim_id", id.String()).With(field, decision).With("path", nonNil(path))
		}
	}
	return nil
}

func parseClaimID(s string) (objects.ID, error) {
	id, err := objects.ParseID(s)
	if err != nil {
		return objects.ID{}, fault.Errorf(fault.Invalid, fault.CodeBadParams, "params: claim_id must be the 64-digit id of a stored claim").With("field", "claim_id")
	}
	return id, nil
}

func checkDecisionID(field, d string) error {
	if d == "" {
		return fault.Errorf(fault.Invalid, fault.CodeMissingField, "params needs field %q", field).With("field", field)
	}
	if !objects.ValidID(d) {
		return fault.Errorf(fault.Invalid, fault.CodeBadParams, "params: %s %q is not a decision id", field, d).With("field", field)
	}
	return nil
}

func unknownDecision(field, d string) error {
	return fault.Errorf(fault.NotFound, CodeUnknownDecision,
		"No decision %q is recorded in this document; record it with author.record_decision first.", d).With(field, d)
}
