// The index of a scope's objects: every object by id and by kind, with the
// names each declares, gathered once so that lowering and checks read from
// one place. An index never changes; staging derives a new one that shares
// the old one's storage.

package world

import (
	"iter"
	"slices"
	"sort"
	"sync"

	"github.com/deloreis/deloreis/base/hugemem"
	"github.com/deloreis/deloreis/objects"
)

// Entry is one object of the world and whether it is staged (not yet
// committed).
type Entry struct {
	ID     objects.ID
	Object objects.Object
	Staged bool
}

// named is a declared name with the entry that declared it (in the
// entries' storage: a pointer, not a copy of its 32-byte id), or, for an
// entity of a lazy base, the entry's position there, so that filing it
// reads no leaf.
type named[T any] struct {
	obj T
	at  *Entry
	lz  *lazyEntries
	pos uint32
}

// object is the declared object: for an entity of a lazy base, read
// from its leaf on first use.
func (n named[T]) object() T {
	if n.at == nil && n.lz != nil {
		return n.lz.ptr(int(n.pos)).Object.(T)
	}
	return n.obj
}

// id is the id of the declaring entry; the zero ID for the zero named.
func (n named[T]) id() objects.ID {
	switch {
	case n.at != nil:
		return n.at.ID
	case n.lz != nil:
		return n.lz.id(int(n.pos))
	}
	return objects.ID{}
}

// index holds a scope's objects by kind.
type index struct {
	entries entryVec
	byID    idIndex

	entities  entityMap    // by id; the smallest object id wins (entities.go)
	order     *entityOrder // entities' ids sorted, made on first use; new with every new entities map
	events    map[string]named[*objects.Event]
	decisions map[string]named[*objects.Decision]
	questions map[string]named[*objects.Question]
	optionOf  map[string]string // option id → question id

	// The big kinds, which staging appends to. They hold pointers to the
	// entries' own storage (an entry never moves or changes there), not
	// copies: a copy of each was 56 B per object (DL-0315).
	facts     kindVec // *objects.Fact
	relations kindVec // *objects.Relation
	befores   kindVec // *objects.Before
	states    kindVec // *objects.State
	answers   []Entry // the facts that answer a question (DL-0019)

	// Where the staged entries begin in entries and in each big kind: the
	// committed ones come first, so that a discard rebuilds only the tail.
	stagedFrom marks

	// The small kinds; staging one of these recompiles the world.
	rules      []Entry // *objects.Rule
	functional []Entry // *objects.Functional
	inertial   []Entry // *objects.Inertial
	sameAs     kindVec // *objects.SameAs: as many as facts, at scale
	predSameAs []Entry // *objects.PredicateSameAs
	attacks    []Entry // *objects.Attack
	standing   []Entry // *objects.Standing
	ratify     []Entry // *objects.Ratify
	lang       kindVec // the expert lane's claims (language.go): dialects, words, names, derivations, ledger entries
}

// each yields copies of the entries of v (kindVec.values).
func each(v kindVec) iter.Seq[Entry] { return v.values() }

// marks are the lengths of the committed prefixes of an index's vectors.
type marks struct{ entries, facts, relations, befores, states, sameAs, lang int }

// sortEntries sorts entries by id. A scope read from the store arrives in
// id order, and a world file holds its world's entries in index order: a
// base in id order, then the few that each commit since (or a staged
// layer) added, each run in id order. So the sorted prefix is found in one
// pass and a short tail merged into it from the back, instead of sorting
// all of it (DL-0374).
func sortEntries(es []Entry) {
	p := 1
	for p < len(es) && byID(es[p-1], es[p]) <= 0 {
		p++
	}
	if p >= len(es) {
		return
	}
	if len(es)-p > len(es)/8 {
		slices.SortFunc(es, byID)
		return
	}
	tail := slices.Clone(es[p:])
	slices.SortFunc(tail, byID)
	i, j := p-1, len(tail)-1
	for k := len(es) - 1; j >= 0; k-- {
		if i >= 0 && byID(es[i], tail[j]) > 0 {
			es[k] = es[i]
			i--
		} else {
			es[k] = tail[j]
			j--
		}
	}
}

// newIndex sorts entries by id (so that every result is independent of the
// order objects arrive in) and files them by kind. A duplicate id is kept
// once; a staged copy of a committed object counts as committed. The
// index takes entries over: it sorts them in place and keeps their array.
func newIndex(entries []Entry) *index {
	ix := &index{
		order:     &entityOrder{},
		entities:  newEntityMap(0),
		events:    map[string]named[*objects.Event]{},
		decisions: map[string]named[*objects.Decision]{},
		questions: map[string]named[*objects.Question]{},
		optionOf:  map[string]string{},
	}
	kept := keepEntries(entries)
	vec := pvecAdopt(kept)
	ix.entries = entryVecOf(vec)
	big, apart := ix.sizeKinds(kept)
	// Many entities are filed on a goroutine of their own, into their map
	// alone, with the answers (a million entities take 0.4 s, and the
	// answers read every fact), while this one files the rest.
	var entities sync.WaitGroup
	if apart {
		entities.Go(func() { ix.fileEntitiesApart(vec) })
	}
	var lang []*Entry
	for chunk := range vec.leafSlices() {
		for i := range chunk {
			e := &chunk[i]
			switch k := bulkOf(e.Object); k {
			case bulkEntity:
				if !apart {
					ix.file(e)
				}
			case bulkLang:
				lang = append(lang, e) // filed in bulk below (language.go)
			case bulkOther:
				ix.file(e)
			default:
				big[k] = append(big[k], e) // filed in bulk below
				if k == bulkFact && !apart {
					ix.noteAnswer(e)
				}
			}
		}
	}
	defer entities.Wait()
	ix.adoptKinds(kept, big, lang)
	ix.indexIDs()
	return ix
}

// keepEntries sorts entries by id in place, keeps each id once (a staged
// copy of a committed object counts as committed) and puts the committed
// ones first. It is a step of its own because it decides which entries
// the index holds, and in what order, before any is filed.
func keepEntries(entries []Entry) []Entry {
	sorted := entries // ours: sorted in place, and adopted by newIndex
	sortEntries(sorted)
	deduped := sorted[:0]
	for i, e := range sorted {
		if i > 0 && e.ID == deduped[len(deduped)-1].ID {
			deduped[len(deduped)-1].Staged = deduped[len(deduped)-1].Staged && e.Staged
			continue
		}
		deduped = append(deduped, e)
	}
	// Committed entries first (each part still in id order); a compile
	// of committed objects only, the usual one, needs no third copy, nor
	// one of staged objects only (a scope's first import): only a
	// committed entry after a staged one does.
	kept := deduped
	if i := slices.IndexFunc(deduped, func(e Entry) bool { return e.Staged }); i >= 0 &&
		slices.ContainsFunc(deduped[i:], func(e Entry) bool { return !e.Staged }) {
		kept = make([]Entry, 0, len(deduped))
		for _, staged := range []bool{false, true} {
			for _, e := range deduped {
				if e.Staged == staged {
					kept = append(kept, e)
				}
			}
		}
	}
	return kept
}

// sizeKinds counts the kept entries by kind and makes ix's entity map and
// the bulk kinds' lists (returned empty) at their sizes; apart says the
// entities are many enough to be filed on a goroutine of their own. It is
// apart from the filing because every size must be known before it.
func (ix *index) sizeKinds(kept []Entry) (big [bulkKinds][]*Entry, apart bool) {
	// Counted first, so that each kind's list is made at its size and
	// adopted by adoptKinds: a 10M-fact list is neither grown by doubling
	// nor copied into the vector. Kinds are told apart by the object's
	// concrete type, not by a map of type names: two passes over 10M
	// entries paid 0.6 s of lookups.
	var counts [bulkOther + 1]int
	for i := range kept {
		counts[bulkOf(kept[i].Object)]++
	}
	// The entities are many at scale (a million in the 10M bench world):
	// a map made at its size is never rehashed as it fills.
	ix.entities = newEntityMap(counts[bulkEntity])
	for k := range big {
		big[k] = hugemem.Make[*Entry](counts[k])[:0]
	}
	return big, counts[bulkEntity] >= entitiesApart
}

// fileEntitiesApart files vec's entities, and notes its answers, on the
// entities' own goroutine (newIndex): it writes ix's entity map and
// answers alone, which nothing else writes until newIndex returns.
func (ix *index) fileEntitiesApart(vec pvec[Entry]) {
	for chunk := range vec.leafSlices() {
		for i := range chunk {
			switch chunk[i].Object.(type) {
			case *objects.Entity:
				ix.file(&chunk[i])
			case *objects.Fact:
				ix.noteAnswer(&chunk[i])
			}
		}
	}
}

// noteAnswer keeps e in ix's answers if it is a fact that answers a
// question; a method, as both newIndex and its entities' goroutine note
// them.
func (ix *index) noteAnswer(e *Entry) {
	if f, ok := e.Object.(*objects.Fact); ok && f.Key == answerKey {
		ix.answers = append(ix.answers, *e)
	}
}

// adoptKinds marks where the staged entries begin in entries and in each
// bulk list (the committed ones come first in each), then adopts the
// lists as ix's kinds in place. It is apart from the filing because it
// runs once every entry is filed, while the entities' goroutine may still
// run: it writes none of what that goroutine writes (entities, answers).
func (ix *index) adoptKinds(kept []Entry, big [bulkKinds][]*Entry, lang []*Entry) {
	committed := func(es []*Entry) int {
		return sort.Search(len(es), func(i int) bool { return es[i].Staged })
	}
	ix.stagedFrom = marks{
		entries:   sort.Search(len(kept), func(i int) bool { return kept[i].Staged }),
		facts:     committed(big[bulkFact]),
		relations: committed(big[bulkRelation]),
		befores:   committed(big[bulkBefore]),
		states:    committed(big[bulkState]),
		sameAs:    committed(big[bulkSameAs]),
		lang:      committed(lang),
	}
	ix.lang = ix.lang.append(lang...)
	ix.facts = kindOf(pvecAdopt(big[bulkFact]))
	ix.relations = kindOf(pvecAdopt(big[bulkRelation]))
	ix.befores = kindOf(pvecAdopt(big[bulkBefore]))
	ix.states = kindOf(pvecAdopt(big[bulkState]))
	ix.sameAs = kindOf(pvecAdopt(big[bulkSameAs]))
}

// indexIDs builds ix's id index over its entries; it is the last step
// because it needs stagedFrom, where the staged ones begin.
func (ix *index) indexIDs() {
	// The committed entries are the base of the id index, in the order
	// they are in; the staged ones go into its trie — unless every entry
	// is staged (a scope's first import), when they are the base: in id
	// order, each id once, found as committed ones are, with no trie.
	if ix.stagedFrom.entries == 0 {
		ix.byID = baseIndex(ix.entries, ix.entries.n)
		return
	}
	ix.byID = baseIndex(ix.entries, ix.stagedFrom.entries)
	var staged []*Entry
	for i := ix.stagedFrom.entries; i < ix.entries.n; i++ {
		staged = append(staged, ix.entries.ptr(i))
	}
	ix.byID = ix.byID.withSorted(staged)
}

// The kinds newIndex files in bulk, each in a list of its own, then
// entities and the rest.
const (
	bulkFact = iota
	bulkRelation
	bulkBefore
	bulkState
	bulkSameAs
	bulkKinds  // how many are filed in bulk
	bulkEntity = bulkKinds
	bulkLang   = bulkKinds + 1 // filed in bulk too, in arrival order (language.go)
	bulkOther  = bulkKinds + 2
)

// bulkOf is the kind newIndex files o under.
func bulkOf(o objects.Object) int {
	switch o.(type) {
	case *objects.Fact:
		return bulkFact
	case *objects.Relation:
		return bulkRelation
	case *objects.Before:
		return bulkBefore
	case *objects.State:
		return bulkState
	case *objects.SameAs:
		return bulkSameAs
	case *objects.Entity:
		return bulkEntity
	case *objects.Dialect, *objects.Word, *objects.Name, *objects.Derivation, *objects.LedgerEntry:
		return bulkLang
	}
	return bulkOther
}

// entitiesApart is the number of entities from which newIndex files them
// on a goroutine of their own.
var entitiesApart = 1 << 14

func lessID(a, b objects.ID) bool {
	for i := range a {
		if a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	return false
}

// file puts one entry under its kind. Entries arrive in id order when the
// index is built, and later when staged, so "the smallest id wins" is
// decided explicitly, never by arrival. p lives in ix.entries' storage:
// the big kinds keep it.
func (ix *index) file(p *Entry) {
	e := *p
	switch o := e.Object.(type) {
	case *objects.Entity:
		if cur, ok := ix.entities.get(o.Ident); !ok || lessID(e.ID, cur.id()) {
			ix.entities.set(o.Ident, named[*objects.Entity]{obj: o, at: p})
		}
	case *objects.Event:
		if cur, ok := ix.events[o.Ident]; !ok || lessID(e.ID, cur.id()) {
			ix.events[o.Ident] = named[*objects.Event]{obj: o, at: p}
		}
	case *objects.Decision:
		if cur, ok := ix.decisions[o.Ident]; !ok || lessID(e.ID, cur.id()) {
			ix.decisions[o.Ident] = named[*objects.Decision]{obj: o, at: p}
		}
	case *objects.Question:
		// A question grows by new versions as options are added; the one
		// with the most options is the current one.
		cur, ok := ix.questions[o.Ident]
		if !ok || len(o.Options) > len(cur.object().Options) || len(o.Options) == len(cur.object().Options) && lessID(e.ID, cur.id()) {
			ix.questions[o.Ident] = named[*objects.Question]{obj: o, at: p}
		}
		for _, opt := range o.Options {
			ix.optionOf[opt.Ident] = o.Ident
		}
	case *objects.Fact:
		ix.facts = ix.facts.append(p)
		if o.Key == answerKey {
			ix.answers = append(ix.answers[:len(ix.answers):len(ix.answers)], e)
		}
	case *objects.Relation:
		ix.relations = ix.relations.append(p)
	case *objects.Before:
		ix.befores = ix.befores.append(p)
	case *objects.State:
		ix.states = ix.states.append(p)
	case *objects.Rule:
		ix.rules = append(ix.rules, e)
	case *objects.Functional:
		ix.functional = append(ix.functional, e)
	case *objects.Inertial:
		ix.inertial = append(ix.inertial, e)
	case *objects.SameAs:
		ix.sameAs = ix.sameAs.append(p)
	case *objects.PredicateSameAs:
		ix.predSameAs = append(ix.predSameAs, e)
	case *objects.Attack:
		ix.attacks = append(ix.attacks, e)
	case *objects.Standing:
		ix.standing = append(ix.standing, e)
	case *objects.Ratify:
		ix.ratify = append(ix.ratify, e)
	case *objects.Dialect, *objects.Word, *objects.Name, *objects.Derivation, *objects.LedgerEntry:
		ix.lang = ix.lang.append(p)
	}
}

// derive returns an index that also holds adds (entries of the big kinds
// and entities or events), sharing everything else with ix. Entries whose
// id is already present are skipped. It reports which were new.
func (ix *index) derive(adds []Entry) (*index, []Entry) {
	n := *ix
	var fresh []Entry
	seen := map[objects.ID]bool{}
	for _, e := range adds {
		if ix.byID.has(e.ID) || seen[e.ID] {
			continue
		}
		seen[e.ID] = true
		fresh = append(fresh, e)
	}
	if len(fresh) == 0 {
		return &n, nil
	}
	n.entries = ix.entries.append(fresh...)
	// Filing appends and writes maps: slices are clipped so that an
	// append copies, and the maps fresh writes to are cloned, so that
	// nothing of ix is ever written.
	n.rules, n.predSameAs = slices.Clip(ix.rules), slices.Clip(ix.predSameAs)
	n.functional, n.inertial = slices.Clip(ix.functional), slices.Clip(ix.inertial)
	n.standing, n.ratify, n.attacks = slices.Clip(ix.standing), slices.Clip(ix.ratify), slices.Clip(ix.attacks)
	kinds := map[objects.Type]bool{}
	for _, e := range fresh {
		kinds[e.Object.Type()] = true
	}
	if kinds[objects.TypeEntity] {
		n.entities, n.order = ix.entities.with(), &entityOrder{}
	}
	if kinds[objects.TypeEvent] {
		n.events = cloneMap(ix.events)
	}
	if kinds[objects.TypeDecision] {
		n.decisions = cloneMap(ix.decisions)
	}
	if kinds[objects.TypeQuestion] {
		n.questions, n.optionOf = cloneMap(ix.questions), cloneMap(ix.optionOf)
	}
	ptrs := make([]*Entry, len(fresh))
	for i := range fresh {
		ptrs[i] = n.entries.ptr(ix.entries.n + i)
	}
	n.fileAll(ptrs)
	n.byID = ix.byID.with(ptrs)
	return &n, fresh
}

// fileAll files entries as file does, appending those of the big kinds to
// their vectors once per kind: one append per entry would copy the
// vector's chunk list and last chunk each time (a commit of thousands of
// facts advanced at once, DL-0280).
func (ix *index) fileAll(es []*Entry) {
	var big [bulkKinds][]*Entry
	var lang []*Entry // in arrival order, as file keeps it
	for _, e := range es {
		switch k := bulkOf(e.Object); k {
		case bulkLang:
			lang = append(lang, e)
		case bulkEntity, bulkOther:
			ix.file(e)
		default:
			big[k] = append(big[k], e)
		}
	}
	for _, e := range big[bulkFact] {
		if e.Object.(*objects.Fact).Key == answerKey {
			ix.answers = append(ix.answers[:len(ix.answers):len(ix.answers)], *e)
		}
	}
	ix.facts = ix.facts.append(big[bulkFact]...)
	ix.relations = ix.relations.append(big[bulkRelation]...)
	ix.befores = ix.befores.append(big[bulkBefore]...)
	ix.states = ix.states.append(big[bulkState]...)
	ix.sameAs = ix.sameAs.append(big[bulkSameAs]...)
	ix.lang = ix.lang.append(lang...)
}

// discard returns an index without the staged entries named in ids,
// sharing everything before the staged tails with ix, and the entries it
// dropped. Ids of no staged entry are ignored. ok is false for a kind
// this index does not know how to take back (the caller recompiles).
func (ix *index) discard(ids []objects.ID) (n *index, gone []Entry, ok bool) {
	drop := map[objects.ID]bool{}
	for _, id := range ids {
		e, found := ix.byID.get(id)
		if !found || !e.Staged || drop[id] {
			continue
		}
		switch e.Object.(type) {
		case *objects.Fact, *objects.Relation, *objects.Before, *objects.State, *objects.SameAs, *objects.Rule, *objects.PredicateSameAs,
			*objects.Functional, *objects.Inertial, *objects.Standing, *objects.Ratify, *objects.Attack, *objects.Decision,
			*objects.Entity, *objects.Event, *objects.Question, *objects.Hypothesis,
			*objects.Dialect, *objects.Word, *objects.Name, *objects.Derivation, *objects.LedgerEntry:
		default:
			return nil, nil, false
		}
		drop[id] = true
		gone = append(gone, *e)
	}
	c := *ix
	if len(gone) == 0 {
		return &c, nil, true
	}
	keep := func(e Entry) bool { return !drop[e.ID] }
	keepRef := func(e *Entry) bool { return !drop[e.ID] }
	c.entries = ix.entries.filterTail(ix.stagedFrom.entries, keep)
	c.facts = ix.facts.filterTail(ix.stagedFrom.facts, keepRef)
	c.relations = ix.relations.filterTail(ix.stagedFrom.relations, keepRef)
	c.befores = ix.befores.filterTail(ix.stagedFrom.befores, keepRef)
	c.states = ix.states.filterTail(ix.stagedFrom.states, keepRef)
	c.sameAs = ix.sameAs.filterTail(ix.stagedFrom.sameAs, keepRef)
	c.lang = ix.lang.filterTail(ix.stagedFrom.lang, keepRef)
	for _, small := range []*[]Entry{&c.rules, &c.predSameAs, &c.functional, &c.inertial, &c.standing, &c.ratify, &c.attacks, &c.answers} {
		*small = slices.DeleteFunc(slices.Clone(*small), func(e Entry) bool { return drop[e.ID] })
	}
	c.forgetNamed(gone)
	c.forgetQuestions(gone)
	dropped := make([]objects.ID, len(gone))
	for i, e := range gone {
		dropped[i] = e.ID
	}
	c.byID = ix.byID.without(dropped)
	return &c, gone, true
}

// forgetNamed takes the gone entities, events and decisions out of their
// maps; where another record of the same id remains, the smallest takes
// the place (one scan of the entries, only when one of them went).
func (ix *index) forgetNamed(gone []Entry) {
	idents := map[objects.Type]map[string]bool{}
	for _, e := range gone {
		if id, ok := namedIdent(e.Object); ok {
			t := e.Object.Type()
			if idents[t] == nil {
				idents[t] = map[string]bool{}
			}
			idents[t][id] = true
		}
	}
	if len(idents) == 0 {
		return
	}
	if len(idents[objects.TypeEntity]) > 0 {
		ix.entities, ix.order = ix.entities.without(idents[objects.TypeEntity]), &entityOrder{}
	}
	ix.events = without(ix.events, idents[objects.TypeEvent])
	ix.decisions = without(ix.decisions, idents[objects.TypeDecision])
	for t, ids := range idents {
		pick := func(name string) bool { return ids[name] }
		if t != objects.TypeEntity {
			pick = nil // a lazy base names entities alone; events and decisions are few
		}
		for e := range ix.entries.ofType(t, pick) {
			if id, ok := namedIdent(e.Object); ok && ids[id] {
				ix.file(e)
			}
		}
	}
}

// namedIdent is the id an entity, event or decision declares.
func namedIdent(o objects.Object) (string, bool) {
	switch o := o.(type) {
	case *objects.Entity:
		return o.Ident, true
	case *objects.Event:
		return o.Ident, true
	case *objects.Decision:
		return o.Ident, true
	}
	return "", false
}

// without returns m less the keys in ids, copied when there are any.
func without[V any](m map[string]V, ids map[string]bool) map[string]V {
	if len(ids) == 0 {
		return m
	}
	m = cloneMap(m)
	for id := range ids {
		delete(m, id)
	}
	return m
}

// forgetQuestions takes the gone question versions out: the current
// version of each such question, and the option map, are filed again from
// the versions that remain (one scan of the entries).
func (ix *index) forgetQuestions(gone []Entry) {
	idents := map[string]bool{}
	for _, e := range gone {
		if q, ok := e.Object.(*objects.Question); ok {
			idents[q.Ident] = true
		}
	}
	if len(idents) == 0 {
		return
	}
	ix.questions, ix.optionOf = cloneMap(ix.questions), map[string]string{}
	for id := range idents {
		delete(ix.questions, id)
	}
	for e := range ix.entries.ofType(objects.TypeQuestion, nil) {
		q := e.Object.(*objects.Question)
		if idents[q.Ident] {
			ix.file(e)
			continue
		}
		for _, opt := range q.Options {
			ix.optionOf[opt.Ident] = q.Ident
		}
	}
}

func cloneMap[K comparable, V any](m map[K]V) map[K]V {
	c := make(map[K]V, len(m)+1)
	for k, v := range m {
		c[k] = v
	}
	return c
}

// isEra reports whether id is a declared era entity.
func (ix *index) isEra(id string) bool {
	e, ok := ix.entities.get(id)
	return ok && e.object().Kind == objects.KindEra
}

// known reports whether id names an entity or an event in scope.
func (ix *index) known(id string) bool {
	if ix.entities.has(id) {
		return true // the common case: one lookup, not two
	}
	_, ok := ix.events[id]
	return ok
}
