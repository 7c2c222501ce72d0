// Canon export (DLI section 3.10): the non-dead fact objects of one scope
// at a commit, grouped by predicate, with the decisions and attacks their
// support needs, every string interned once. Before it exports, it holds
// the history to its evidence: every commit's Lore-Decision trailers must
// be the decisions of the Ratify records that commit added.

package author

import (
	"errors"
	"sort"

	"github.com/deloreis/deloreis/datalog"
	"github.com/deloreis/deloreis/fault"
	"github.com/deloreis/deloreis/lorestore"
	"github.com/deloreis/deloreis/objects"
	"github.com/deloreis/deloreis/world"
)

// CanonExport is one scope's canon at a commit. Every string it names —
// object ids, predicates, arguments, decision ids, origins, rationales —
// is an index into Strings, the sorted table of the distinct strings
// (DL-0115).
type CanonExport struct {
	Scope      string           `json:"scope" desc:"the scope exported"`
	Commit     string           `json:"commit" desc:"the commit read (40 hex digits); \"\" before the first commit"`
	Strings    []string         `json:"strings" desc:"every distinct string the export names (object ids, predicates, arguments, decision ids, origins, rationales), sorted; every integer below that names a string is an index into it"`
	Claims     []CanonClaim     `json:"claims" desc:"the non-dead fact objects (possible ones included), by object id"` // by object id
	Predicates []CanonPredicate `json:"predicates" desc:"the atoms the claims lower to, by predicate name"`             // by predicate name
	Decisions  []CanonDecision  `json:"decisions" desc:"the decisions the claims' support names, by decision id"`       // by decision id
	Attacks    []CanonAttack    `json:"attacks" desc:"the attacks on exported claims, by claim, attacker, target"`      // by claim, attacker, target
}

// CanonClaim is one non-dead fact object.
type CanonClaim struct {
	ID         int             `json:"id" desc:"the claim's object id (an index into strings)"`                                             // the object id
	Type       int             `json:"type" desc:"its object type: entity, fact, relation, event, before or state (an index into strings)"` // entity, fact, relation, event, before, state
	Grade      string          `json:"grade" desc:"certain or possible (dead claims are not exported)"`
	Provenance CanonProvenance `json:"provenance" desc:"the claim's provenance, its strings as indexes"`
}

// CanonProvenance is a claim's or a decision's provenance.
type CanonProvenance struct {
	Kind      string `json:"kind" desc:"proposed, hypothesis or cited"`                                                   // proposed, hypothesis or cited
	Origin    *int   `json:"origin,omitempty" desc:"proposed: the origin (an index into strings); absent otherwise"`      // proposed
	Hyp       *int   `json:"hyp,omitempty" desc:"hypothesis: the hyp variable (an index into strings); absent otherwise"` // hypothesis
	Decisions []int  `json:"decisions,omitempty" desc:"cited: the cited decision ids (indexes into strings); absent otherwise"`
	State     string `json:"state,omitempty" desc:"cited: provisional or ratified; absent otherwise"` // cited
}

// CanonPredicate is the atoms of one predicate the exported claims lower to.
type CanonPredicate struct {
	Pred  int         `json:"pred" desc:"the predicate name (an index into strings)"`
	Atoms []CanonAtom `json:"atoms" desc:"its atoms, by claim, then arguments"` // by claim, then arguments
}

// CanonAtom is one atom: the claim it comes from (an index into Claims)
// and its arguments.
type CanonAtom struct {
	Claim int   `json:"claim" desc:"the claim the atom comes from (an index into claims)"`
	Args  []int `json:"args" desc:"the atom's arguments (indexes into strings)"`
}

// CanonDecision is one decision an exported support names.
type CanonDecision struct {
	ID         int              `json:"id" desc:"the decision id (an index into strings)"`
	Rationale  *int             `json:"rationale,omitempty" desc:"its rationale (an index into strings); absent when it has none"`
	Provenance *CanonProvenance `json:"provenance,omitempty" desc:"its provenance, strings as indexes; absent when it has none"`
}

// CanonAttack is one attack on an exported claim; Claim indexes Claims.
type CanonAttack struct {
	Attacker int `json:"attacker" desc:"the attacking decision id (an index into strings)"`
	Target   int `json:"target" desc:"the attacked decision id (an index into strings)"`
	Claim    int `json:"claim" desc:"the claim the attack is on (an index into claims)"`
}

// Canon exports a declared scope at a revision ("" is the serving
// branch's head). It refuses evidence-corrupt when a commit of the
// first-parent history says it ratified under decisions other than those
// its Ratify records name.
func (s *Service) Canon(scope, rev string) (CanonExport, error) {
	if ok, err := s.declares(scope); err != nil || !ok {
		if err != nil {
			return CanonExport{}, err
		}
		return CanonExport{}, fault.Errorf(fault.Refused, CodeUnknownScope, "This project declares no document %q.", scope).With("scope", scope)
	}
	if rev == "" {
		rev = s.cfg.Branch
	}
	commit, err := s.store.Resolve(rev)
	if err != nil {
		if errors.Is(err, lorestore.ErrNotFound) || errors.Is(err, lorestore.ErrBranchNotFound) {
			return CanonExport{}, fault.Errorf(fault.NotFound, CodeUnknownCanonRev, "No commit is named %q.", rev).With("rev", rev)
		}
		return CanonExport{}, err
	}
	if err := s.checkEvidence(scope, commit); err != nil {
		return CanonExport{}, err
	}
	w, err := s.baseWorld(commit, scope)
	if err != nil {
		return CanonExport{}, err
	}
	return canonOf(w, scope, commit), nil
}

// ledgerOps are the ops whose Lore-Decision trailers name the decisions
// they record or rule with, not a ratification.
var ledgerOps = map[string]bool{"record_decision": true, "record_decisions": true, "set_standing": true, "defeat": true}

// checkEvidence walks the first-parent history from commit and compares,
// for each commit, its Lore-Decision trailers (when its Lore-Scope is the
// scope) with the decisions of the Ratify records of the scope it added —
// those in none of its parents (DL-0116). A ledger op's commit adds no
// Ratify record.
func (s *Service) checkEvidence(scope string, commit lorestore.Hash) error {
	for h := commit; !h.IsZero(); {
		log, err := s.store.Log(lorestore.LogOptions{From: h.String(), Limit: 1})
		if err != nil {
			return err
		}
		if len(log) == 0 {
			return nil
		}
		c := log[0]
		ratified, err := s.ratifiedIn(scope, c)
		if err != nil {
			return err
		}
		op := c.Message.Get(lorestore.TrailerOp)
		var trailers []string
		if c.Message.Get(lorestore.TrailerScope) == scope && !ledgerOps[op] {
			trailers = c.Message.All(lorestore.TrailerDecision)
		}
		if !sameSet(trailers, ratified) {
			return fault.Errorf(fault.Refused, CodeEvidenceCorrupt,
				"Commit %s says it ratified under %v, but the Ratify records it added name %v: the history does not carry its evidence.", c.Commit.String()[:12], nonNil(trailers), nonNil(ratified)).
				With("commit", c.Commit.String()).With("trailers", nonNil(trailers)).With("ratified", nonNil(ratified))
		}
		h = lorestore.ZeroHash
		if len(c.Parents) > 0 {
			h = c.Parents[0]
		}
	}
	return nil
}

// ratifiedIn lists the decisions of the Ratify records of the scope that a
// commit added.
func (s *Service) ratifiedIn(scope string, c lorestore.LogEntry) ([]string, error) {
	sn, err := s.store.SnapshotAt(c.Commit)
	if err != nil {
		return nil, err
	}
	if len(c.Parents) <= 1 {
		// One parent: what the commit added is its diff, found by walking
		// only the subtrees that differ — a long history costs its changes,
		// not its size.
		changes, err := s.store.Changes(c.Commit)
		if err != nil {
			return nil, err
		}
		var out []string
		for _, ch := range changes {
			if ch.Removed || ch.Scope != scope || ch.Kind != lorestore.Decisions {
				continue
			}
			o, err := sn.Get(scope, ch.ID)
			if err != nil {
				return nil, err
			}
			if r, ok := o.(*objects.Ratify); ok {
				out = append(out, r.Decision)
			}
		}
		return out, nil
	}
	ids, err := sn.IDs(scope, lorestore.Decisions)
	if err != nil {
		return nil, err
	}
	old := map[objects.ID]bool{}
	for _, p := range c.Parents {
		psn, err := s.store.SnapshotAt(p)
		if err != nil {
			return nil, err
		}
		pids, err := psn.IDs(scope, lorestore.Decisions)
		if err != nil {
			return nil, err
		}
		for _, id := range pids {
			old[id] = true
		}
	}
	var out []string
	for _, id := range ids {
		if old[id] {
			continue
		}
		o, err := sn.Get(scope, id)
		if err != nil {
			return nil, err
		}
		if r, ok := o.(*objects.Ratify); ok {
			out = append(out, r.Decision)
		}
	}
	return out, nil
}

func sameSet(a, b []string) bool {
	in := map[string]bool{}
	for _, x := range a {
		in[x] = true
	}
	for _, x := range b {
		if !in[x] {
			return false
		}
	}
	out := map[string]bool{}
	for _, x := range b {
		out[x] = true
	}
	return len(in) == len(out)
}

// canonTypes are the fact objects canon exports.
var canonTypes = map[objects.Type]bool{
	objects.TypeEntity: true, objects.TypeFact: true, objects.TypeRelation: true,
	objects.TypeEvent: true, objects.TypeBefore: true, objects.TypeState: true,
}

// canonOf builds the export of a world: first every string, then the
// records by index.
func canonOf(w *world.World, scope string, commit lorestore.Hash) CanonExport {
	g := gatherClaims(w)
	g.gatherDecisions(w)
	table, index := internCanon(g.strs)
	out := CanonExport{Scope: scope, Commit: hashString(commit), Strings: table,
		Claims: []CanonClaim{}, Predicates: []CanonPredicate{}, Decisions: []CanonDecision{}, Attacks: []CanonAttack{}}
	index.exportClaims(&out, g.claims)
	index.exportSupport(&out, g)
	return out
}

// gatheredClaim is a claim the export holds, as read from the world.
type gatheredClaim struct {
	e     world.Entry
	grade datalog.Grade
	p     *objects.Provenance
	atoms []world.ClaimAtom
}

// canonSources is what an export is made of, gathered from the world
// before any string has its index: the claims, the attacks on them, the
// decisions their support needs, and every string they name.
type canonSources struct {
	claims     []gatheredClaim
	claimIndex map[objects.ID]int // each claim's place in claims
	attacks    []*objects.Attack
	decs       []*objects.Decision
	strs       map[string]bool
	decisions  map[string]bool // the decision ids named so far
}

// addProv notes the strings and the decisions a provenance names.
func (g *canonSources) addProv(p *objects.Provenance) {
	g.strs[p.Origin], g.strs[p.Hyp] = true, true
	for _, d := range p.Decisions {
		g.decisions[d] = true
	}
}

// gatherClaims gathers the non-dead fact objects, by object id, and the
// attacks on them, noting the strings and decisions they name; the
// decisions themselves are read after (gatherDecisions), once every claim
// and attack has named its own.
func gatherClaims(w *world.World) *canonSources {
	g := &canonSources{strs: map[string]bool{}, decisions: map[string]bool{}}
	for e := range w.Objects() {
		if !canonTypes[e.Object.Type()] {
			continue
		}
		gr := w.ClaimGrade(e.ID)
		if gr == datalog.Dead {
			continue
		}
		p, _ := objects.ProvenanceOf(e.Object)
		c := gatheredClaim{e: e, grade: gr, p: p, atoms: w.ClaimAtoms(e.ID)}
		g.claims = append(g.claims, c)
		g.strs[e.ID.String()], g.strs[string(e.Object.Type())] = true, true
		g.addProv(p)
		for _, a := range c.atoms {
			g.strs[a.Pred] = true
			for _, x := range a.Args {
				g.strs[x] = true
			}
		}
	}
	sort.Slice(g.claims, func(i, j int) bool { return g.claims[i].e.ID.String() < g.claims[j].e.ID.String() })
	g.claimIndex = map[objects.ID]int{}
	for i, c := range g.claims {
		g.claimIndex[c.e.ID] = i
	}
	for _, e := range w.Attacks() {
		a := e.Object.(*objects.Attack)
		if _, ok := g.claimIndex[a.Claim]; ok {
			g.attacks = append(g.attacks, a)
			g.decisions[a.Attacker], g.decisions[a.Target] = true, true
		}
	}
	return g
}

// gatherDecisions reads the decisions named so far from the world,
// following their citations, and notes the strings they name.
func (g *canonSources) gatherDecisions(w *world.World) {
	// The decisions the supports name, and those their own citations name.
	seen := map[string]bool{}
	queue := make([]string, 0, len(g.decisions))
	for d := range g.decisions {
		queue = append(queue, d)
	}
	for len(queue) > 0 {
		d := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		if seen[d] {
			continue
		}
		seen[d] = true
		g.strs[d] = true
		o, _, ok := w.Decision(d)
		if !ok {
			continue // unrecorded: a citation finding; its id is exported alone
		}
		g.decs = append(g.decs, o)
		g.strs[o.Rationale] = true
		if o.Provenance != nil {
			g.addProv(o.Provenance)
			queue = append(queue, o.Provenance.Decisions...)
		}
	}
}

// canonIndex is each string's index in an export's string table.
type canonIndex map[string]int

// internCanon makes the export's string table, the distinct strings
// named but "" sorted, and indexes it.
func internCanon(strs map[string]bool) ([]string, canonIndex) {
	delete(strs, "")
	table := make([]string, 0, len(strs))
	for x := range strs {
		table = append(table, x)
	}
	sort.Strings(table)
	index := make(canonIndex, len(table))
	for i, x := range table {
		index[x] = i
	}
	return table, index
}

// opt is the index of x, or nil (the field left out) when x is "".
func (index canonIndex) opt(x string) *int {
	if x == "" {
		return nil
	}
	i := index[x]
	return &i
}

// prov is a provenance with its strings as indexes.
func (index canonIndex) prov(p *objects.Provenance) CanonProvenance {
	cp := CanonProvenance{Kind: string(p.Kind), Origin: index.opt(p.Origin), Hyp: index.opt(p.Hyp), State: string(p.State)}
	for _, d := range p.Decisions {
		cp.Decisions = append(cp.Decisions, index[d])
	}
	sort.Ints(cp.Decisions)
	return cp
}

// exportClaims adds the claims to out, and the atoms they lower to,
// grouped by predicate.
func (index canonIndex) exportClaims(out *CanonExport, claims []gatheredClaim) {
	byPred := map[string][]CanonAtom{}
	for i, c := range claims {
		out.Claims = append(out.Claims, CanonClaim{ID: index[c.e.ID.String()], Type: index[string(c.e.Object.Type())], Grade: c.grade.String(), Provenance: index.prov(c.p)})
		for _, a := range c.atoms {
			args := make([]int, len(a.Args))
			for j, x := range a.Args {
				args[j] = index[x]
			}
			byPred[a.Pred] = append(byPred[a.Pred], CanonAtom{Claim: i, Args: args})
		}
	}
	preds := make([]string, 0, len(byPred))
	for p := range byPred {
		preds = append(preds, p)
	}
	sort.Strings(preds)
	for _, p := range preds {
		out.Predicates = append(out.Predicates, CanonPredicate{Pred: index[p], Atoms: byPred[p]})
	}
}

// exportSupport adds to out the decisions the claims' support needs, by
// id, and the attacks on the claims, by claim, attacker and target.
func (index canonIndex) exportSupport(out *CanonExport, g *canonSources) {
	sort.Slice(g.decs, func(i, j int) bool { return g.decs[i].Ident < g.decs[j].Ident })
	for _, d := range g.decs {
		cd := CanonDecision{ID: index[d.Ident], Rationale: index.opt(d.Rationale)}
		if d.Provenance != nil {
			p := index.prov(d.Provenance)
			cd.Provenance = &p
		}
		out.Decisions = append(out.Decisions, cd)
	}
	for _, a := range g.attacks {
		out.Attacks = append(out.Attacks, CanonAttack{Attacker: index[a.Attacker], Target: index[a.Target], Claim: g.claimIndex[a.Claim]})
	}
	sort.Slice(out.Attacks, func(i, j int) bool {
		x, y := out.Attacks[i], out.Attacks[j]
		if x.Claim != y.Claim {
			return x.Claim < y.Claim
		}
		if x.Attacker != y.Attacker {
			return x.Attacker < y.Attacker
		}
		return x.Target < y.Target
	})
}
