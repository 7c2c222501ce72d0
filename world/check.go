// The check battery, part one: references, citations, identity, rules.
// Each check reads the index (and, where it must, the graded model) and
// appends findings; none of them changes the world.

package world

import (
	"iter"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/deloreis/deloreis/base/phases"
	"github.com/deloreis/deloreis/base/spell"
	"github.com/deloreis/deloreis/objects"
)

// The check groups. Each check writes its findings into its own group, so
// that a staged world can re-run the checks a change touches and keep the
// others' findings.
const (
	groupRules       = "rules"
	groupArityClaims = "arity-claims"
	groupCitations   = "citations"
	groupReferences  = "references"
	groupIdentity    = "identity"
	groupArity       = "arity"
	groupChronology  = "chronology"
	groupFunctional  = "functional"
	groupFluents     = "fluents"
)

// emit files a finding under a check group.
func (w *World) emit(group string, f Finding) {
	w.groups[group] = append(w.groups[group], f)
}

// runChecks runs every check of the battery.
func (w *World) runChecks(entryChecks func() (citations, references []Finding)) {
	w.groups[groupCitations], w.groups[groupReferences] = entryChecks()
	w.checkIdentity()
	w.rerun(groupArity, w.checkPredicateIdentity)
	w.rerun(groupChronology, w.checkChronology)
	w.rerun(groupFunctional, w.checkFunctional)
	w.rerun(groupFluents, w.checkFluents)
	w.rerun(groupNames, w.checkNames) // language.go
	w.rerun(groupLanguage, w.checkLanguage)
	w.rerun(groupLedger, w.checkLedger)
}

// startEntryChecks runs the checks of each entry on its own (what its
// citations and references name) on goroutines of their own, and returns
// the function that waits for their findings. They read only the index,
// which nothing changes once built, so a compile runs them beside its
// lowering and evaluation. The entries are cut into as many runs as
// there are cores, each checked by one goroutine, and the findings put
// together in the entries' order: the same at any GOMAXPROCS.
func (w *World) startEntryChecks() (wait func() (citations, references []Finding)) {
	n := w.ix.entries.n
	runs := entryCheckRuns(n, runtime.GOMAXPROCS(0))
	cit := make([][]Finding, len(runs))
	ref := make([][]Finding, len(runs))
	var wg sync.WaitGroup
	end := phases.Start(PhaseEntryChecks)
	done := make(chan struct{})
	go func() {
		known := w.knownSet()
		for k, r := range runs {
			wg.Go(func() { cit[k], ref[k] = w.entryChecksIn(known, r[0], r[1]) })
		}
		wg.Wait()
		end()
		close(done)
	}()
	return func() ([]Finding, []Finding) {
		<-done
		return slices.Concat(cit...), slices.Concat(ref...)
	}
}

// knownSet returns the names in scope (every entity's and event's) as a
// nameSet. Over a lazy base the entities' idents are views of its
// mapping: searching its sorted column once per reference took 6.3 s of
// CPU in a 10M compile, and the entry checks 7.0 s of wall against 3.3 s
// with the set.
func (w *World) knownSet() *nameSet {
	m := &w.ix.entities
	names := make([]string, 0, m.len()+len(w.ix.events))
	for id := range m.all() {
		names = append(names, id)
	}
	for id := range w.ix.events {
		names = append(names, id)
	}
	return newNameSet(names)
}

// entryChecksIn runs the entry checks of entries [from, to) with the
// names in scope told by known: the names a batch of entries refers to
// are looked up at once (nameSet.hasEach), then each entry is checked in
// order, its findings as referencesOf makes them.
func (w *World) entryChecksIn(known *nameSet, from, to int) (cit, ref []Finding) {
	var qs [nameBatch]string
	var in [nameBatch]bool
	var es [nameBatch]Entry // an entry gives at least no name, so a batch may hold as many entries
	c := w.ix.entries.cursor(from)
	for lo := from; lo < to; {
		n, m := 0, 0
		for ; lo+m < to && m < nameBatch && n+maxRefNames <= nameBatch; m++ {
			es[m] = c.next()
			w.refNames(es[m], func(s string) { qs[n] = s; n++ })
		}
		known.hasEach(qs[:n], in[:n])
		k := 0
		for _, e := range es[:m] {
			cit = append(cit, w.citationsOf(e)...)
			ref = append(ref, w.referencesWith(e, func(string) bool { k++; return in[k-1] })...)
		}
		lo += m
	}
	return cit, ref
}

// entryCheckRuns cuts n entries into up to procs runs [from, to) in
// order; a small world is one run (a goroutine each is not worth it).
func entryCheckRuns(n, procs int) [][2]int {
	k := max(1, min(procs, n/minEntryCheckRun))
	out := make([][2]int, k)
	for i := range out {
		out[i] = [2]int{n * i / k, n * (i + 1) / k}
	}
	return out
}

// minEntryCheckRun is the fewest entries a goroutine of the entry checks
// is started for.
const minEntryCheckRun = 1 << 14

// rerun empties a group and runs its check again.
func (w *World) rerun(group string, check func()) {
	w.groups[group] = nil
	check()
}

// checkRuleNames reports a rule name used by two different rules, and
// leaves the later-staged one out of the program.
func (w *World) checkRuleNames() {
	seen := map[string]Entry{}
	for _, e := range w.ix.rules {
		r := e.Object.(*objects.Rule)
		first, dup := seen[r.Name]
		if !dup {
			seen[r.Name] = e
			continue
		}
		staged := e
		if first.Staged && !e.Staged {
			staged, seen[r.Name] = first, e
		}
		f := newFinding(CodeRuleDuplicate, "A rule named %q is already in the world; rename the new rule.", r.Name)
		f.Citations = []string{staged.ID.String()}
		f.Data = map[string]any{"rule": r.Name}
		w.emit(groupRules, f)
		w.droppedRules[r.Name] = staged.Staged // a committed duplicate stays in, a staged one does not
	}
	for name, drop := range w.droppedRules {
		if !drop {
			delete(w.droppedRules, name)
		}
	}
}

// citationsOf reports the decisions an entry names that the scope does not
// record — those its provenance cites, and those an attack, standing
// revision or ratify record rules or attacks with — and the claims a
// ledger record names that are not in scope.
func (w *World) citationsOf(e Entry) []Finding {
	var out []Finding
	for _, d := range decisionsNamed(e.Object) {
		if _, ok := w.ix.decisions[d]; ok {
			continue
		}
		f := newFinding(CodeCitationUnknownDecision,
			"The %s %s decision %q, which is not recorded in scope %s. Record it with author.record_decision first.",
			e.Object.Type(), decisionVerb(e.Object), d, w.scope)
		f.Citations = []string{e.ID.String()}
		f.Data = map[string]any{"decision": d}
		out = append(out, f)
	}
	for _, c := range claimsNamed(e.Object) {
		if w.ix.byID.has(c) {
			continue
		}
		f := newFinding(CodeCitationUnknownClaim,
			"The %s names claim %s, which is not in scope %s.", e.Object.Type(), c.String()[:12], w.scope)
		f.Citations = []string{e.ID.String()}
		f.Data = map[string]any{"claim": c.String()}
		out = append(out, f)
	}
	return out
}

// decisionsNamed lists the decisions an object draws on: the ones its
// cited provenance names, or the ones a ledger record rules or attacks
// with, each once.
func decisionsNamed(o objects.Object) []string {
	switch x := o.(type) {
	case *objects.Attack:
		if x.Attacker == x.Target {
			return []string{x.Attacker}
		}
		return []string{x.Attacker, x.Target}
	case *objects.Standing:
		return []string{x.Decision}
	case *objects.Ratify:
		return []string{x.Decision}
	}
	if p, ok := objects.ProvenanceOf(o); ok && p.Kind == objects.ProvenanceCited {
		return p.Decisions
	}
	return nil
}

// decisionVerb says how an object draws on the decisions it names.
func decisionVerb(o objects.Object) string {
	switch o.(type) {
	case *objects.Attack:
		return "names"
	case *objects.Standing, *objects.Ratify:
		return "is ruled by"
	}
	return "cites"
}

// claimsNamed lists the claims a ledger record is about.
func claimsNamed(o objects.Object) []objects.ID {
	switch x := o.(type) {
	case *objects.Attack:
		return []objects.ID{x.Claim}
	case *objects.Standing:
		return []objects.ID{x.Claim}
	case *objects.Ratify:
		return x.Claims
	}
	return nil
}

// referencesOf reports the entities (or events) an entry names that are
// not in scope, each with the nearest known ids as candidates.
func (w *World) referencesOf(e Entry) []Finding { return w.referencesWith(e, w.ix.known) }

// referencesWith is referencesOf, told whether a name is in scope by
// known, which is asked once for each name refNames gives, in its order.
func (w *World) referencesWith(e Entry, known func(string) bool) []Finding {
	var out []Finding
	reported := map[string]bool{}
	w.refNames(e, func(id string) {
		if known(id) || reported[id] {
			return
		}
		reported[id] = true
		f := newFinding(CodeEntityUnknown,
			"No entity %q is in scope. The claim is staged but cannot materialize until it exists.", id)
		f.Citations = []string{e.ID.String()}
		f.Repair = &Repair{Kind: "resolve-entity", Candidates: w.candidates(id)}
		f.Data = map[string]any{"entity": id}
		out = append(out, f)
	})
	if o, ok := e.Object.(*objects.Event); ok {
		out = append(out, w.eraOf(e, o)...)
	}
	return out
}

// refNames calls ref with each name of an entity or event that e's object
// needs in scope, in order: at most maxRefNames of them, which
// entryChecksIn's batches count on (a kind naming more must raise it).
func (w *World) refNames(e Entry, ref func(string)) {
	switch o := e.Object.(type) {
	case *objects.Fact:
		if _, isQuestion := w.ix.questions[o.Entity]; !isQuestion {
			ref(o.Entity)
		}
	case *objects.Relation:
		ref(o.From)
		ref(o.To)
	case *objects.Event:
		ref(o.Era)
	case *objects.Before:
		ref(o.Earlier)
		ref(o.Later)
	case *objects.State:
		ref(o.Entity)
		for _, anchor := range []string{o.Since, o.Until} {
			if anchor != "" {
				ref(anchor)
			}
		}
	case *objects.SameAs:
		ref(o.Left)
		ref(o.Right)
	case *objects.Name:
		ref(o.Entity)
	case *objects.LedgerEntry:
		ref(o.Entity)
		ref(o.At)
	}
}

// maxRefNames is the most names refNames gives for one entry.
const maxRefNames = 3

// eraOf reports an event whose era names an entity or event in scope that
// is not an era (DLI §3.4: era names an era entity). An era not in scope
// is entity.unknown's.
func (w *World) eraOf(e Entry, ev *objects.Event) []Finding {
	var kind string
	if ent, ok := w.ix.entities.get(ev.Era); ok {
		if kind = string(ent.object().Kind); kind == string(objects.KindEra) {
			return nil
		}
	} else if _, ok := w.ix.events[ev.Era]; ok {
		kind = "event"
	} else {
		return nil
	}
	f := newFinding(CodeNotAnEra,
		"Event %s is anchored to %s, which is a %s, not an era: an event's era must name an era entity. Anchor it to an era, or declare one.", ev.Ident, ev.Era, kind)
	f.Citations = []string{e.ID.String()}
	f.Repair = &Repair{Kind: "resolve-entity", Candidates: w.eraCandidates(ev.Era)}
	f.Data = map[string]any{"era": ev.Era, "kind": kind}
	return []Finding{f}
}

// eraCandidates ranks the eras in scope by edit distance to id: at most
// three, closest first. It runs only for a misplaced era, so it may look
// at every entity.
func (w *World) eraCandidates(id string) []string {
	type cand struct {
		id   string
		dist int
	}
	var cs []cand
	for k, n := range w.ix.entities.all() {
		if n.object().Kind == objects.KindEra {
			cs = append(cs, cand{k, spell.Distance(id, k)})
		}
	}
	sort.Slice(cs, func(i, j int) bool {
		if cs[i].dist != cs[j].dist {
			return cs[i].dist < cs[j].dist
		}
		return cs[i].id < cs[j].id
	})
	out := []string{}
	for i := 0; i < len(cs) && i < 3; i++ {
		out = append(out, cs[i].id)
	}
	return out
}

// candidates ranks the known ids by edit distance to id: at most three,
// within a distance that still reads as a misspelling. A world of up to
// fullScanKnown names compares id with every known one; a bigger world
// compares it with the candidateWindow names on either side of it in
// sorted order (misspellings mostly keep the start of a name), so that a
// file of many unknown names costs near-linear time (DL-0084).
func (w *World) candidates(id string) []string {
	type cand struct {
		id   string
		dist int
	}
	limit := max(2, len([]rune(id))/3)
	known := w.knownSorted()
	if len(known) > fullScanKnown {
		i := sort.SearchStrings(known, id)
		known = known[max(0, i-candidateWindow):min(len(known), i+candidateWindow)]
	}
	var cs []cand
	for _, k := range known {
		if abs(len(k)-len(id)) > limit*4 {
			continue // more bytes apart than the limit's runes can be
		}
		if d := spell.Distance(id, k); d <= limit {
			cs = append(cs, cand{k, d})
		}
	}
	sort.Slice(cs, func(i, j int) bool {
		if cs[i].dist != cs[j].dist {
			return cs[i].dist < cs[j].dist
		}
		return cs[i].id < cs[j].id
	})
	out := []string{}
	for i := 0; i < len(cs) && i < 3; i++ {
		out = append(out, cs[i].id)
	}
	return out
}

// The bounds of the candidate search.
const (
	fullScanKnown   = 4096
	candidateWindow = 256
)

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// knownSorted is the sorted list of known entity and event ids, built once
// per world (the checks run while the world is being built, by one
// goroutine).
func (w *World) knownSorted() []string {
	w.knownMu.Lock()
	defer w.knownMu.Unlock()
	if w.known == nil {
		w.known = w.knownIDs()
	}
	return w.known
}

func (w *World) knownIDs() []string {
	ids := make([]string, 0, w.ix.entities.len()+len(w.ix.events))
	for id := range w.ix.entities.all() {
		ids = append(ids, id)
	}
	for id := range w.ix.events {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

// checkIdentity runs the stage-time identity checks of DLI section 3.12.
func (w *World) checkIdentity() { w.checkIdentityOf(each(w.ix.sameAs)) }

// checkIdentityOf runs them over some of the same-as claims.
func (w *World) checkIdentityOf(claims iter.Seq[Entry]) {
	for e := range claims {
		s := e.Object.(*objects.SameAs)
		cite := []string{e.ID.String()}
		switch {
		case s.Left == s.Right:
			f := newFinding(CodeSelfMerge, "%s is declared the same as itself: a harmless no-op merge.", s.Left)
			f.Citations = cite
			w.emit(groupIdentity, f)
			continue
		case w.temporal(s.Left) || w.temporal(s.Right):
			f := newFinding(CodeTemporalUnsupported,
				"Identity over the chronology spine is refused: %s or %s is an era or an event.", s.Left, s.Right)
			f.Citations = cite
			f.Data = map[string]any{"endpoint": s.Left}
			if !w.temporal(s.Left) {
				f.Data["endpoint"] = s.Right
			}
			w.emit(groupIdentity, f)
			continue
		}
		l, lok := w.ix.entities.get(s.Left)
		r, rok := w.ix.entities.get(s.Right)
		if lok && rok && l.object().Kind != r.object().Kind {
			f := newFinding(CodeSortMismatch, "%s is a %s and %s a %s; they are declared the same.", s.Left, l.object().Kind, s.Right, r.object().Kind)
			f.Citations = cite
			w.emit(groupIdentity, f)
		}
	}
}

// checkPredicateIdentity reports predicate identities whose members are
// used with different numbers of arguments.
func (w *World) checkPredicateIdentity() {
	for _, comp := range w.predicateComponents(false) {
		var counts []int
		seen := map[int]bool{}
		for _, p := range comp.members {
			ns, _ := w.arity.get(p)
			for n := range ns {
				if !seen[n] {
					seen[n] = true
					counts = append(counts, n)
				}
			}
		}
		if len(counts) < 2 {
			continue
		}
		sort.Ints(counts)
		f := newFinding(CodeArityMismatch, "The predicates %s are declared the same property but are used with %s arguments.",
			strings.Join(comp.members, ", "), joinInts(counts))
		f.Citations = comp.claims
		f.Data = map[string]any{"predicates": comp.members, "arities": counts}
		w.emit(groupArity, f)
	}
}

func joinInts(ns []int) string {
	parts := make([]string, len(ns))
	for i, n := range ns {
		parts[i] = itoa(n)
	}
	return strings.Join(parts, " and ")
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b [20]byte
	i := len(b)
	for n > 0 {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
	}
	return string(b[i:])
}
