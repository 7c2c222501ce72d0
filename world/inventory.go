// What a reviewer lists: the entities of a world with their kinds, names
// and grades, its questions with their options and answers, and the
// attacks between decisions that a why-explanation names.

package world

import (
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/deloreis/deloreis/datalog"
	"github.com/deloreis/deloreis/objects"
)

// EntityInfo is one entity of a world.
type EntityInfo struct {
	ID     string        `json:"id"`
	Kind   string        `json:"kind"`
	Name   string        `json:"name"`
	Grade  datalog.Grade `json:"-"`
	Staged bool          `json:"staged"`
	Claim  string        `json:"claim"` // the id of the entity object
}

// Entities lists the entities of the world by id (the record each id
// resolves to: the one with the smallest object id).
func (w *World) Entities() []EntityInfo {
	out, _ := w.EntityPage("", 0, w.ix.entities.len())
	return out
}

// EntityPage lists the entities of kind (every kind when "") by id, from
// the from-th, at most limit of them, and returns how many there are in
// all. Only the page's entities are graded: a reviewer paging through the
// million entities of a large world reads the sorted ids once per set of
// entities (entityOrder), not every entity per page.
func (w *World) EntityPage(kind string, from, limit int) ([]EntityInfo, int) {
	ids := w.ix.order.sorted(&w.ix.entities, kind)
	from = min(max(from, 0), len(ids))
	page := ids[from:min(from+max(limit, 0), len(ids))]
	out := make([]EntityInfo, 0, len(page))
	for _, id := range page {
		n, _ := w.ix.entities.get(id)
		e, _ := w.ix.byID.get(n.id())
		out = append(out, EntityInfo{ID: id, Kind: string(n.object().Kind), Name: n.object().Name,
			Grade: w.ClaimGrade(n.id()), Staged: e != nil && e.Staged, Claim: n.id().String()})
	}
	return out, len(ids)
}

// entityOrder holds the ids of one entities map sorted, of every kind and
// of each kind asked for, made on first use. An index that gets a new
// entities map gets a new entityOrder; worlds staged without an entity
// share their base's, so a page costs the page.
type entityOrder struct {
	mu     sync.Mutex
	byKind map[string][]string // "" for every kind
}

// sorted returns the sorted ids of the entities of kind in m, the map this
// order belongs to.
func (o *entityOrder) sorted(m *entityMap, kind string) []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	if ids, ok := o.byKind[kind]; ok {
		return ids
	}
	ids := make([]string, 0, m.len())
	for id, n := range m.all() {
		if kind == "" || string(n.object().Kind) == kind {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	if o.byKind == nil {
		o.byKind = map[string][]string{}
	}
	o.byKind[kind] = ids
	return ids
}

// QuestionInfo is one question of a world, in its current version.
type QuestionInfo struct {
	Question *objects.Question
	Claim    objects.ID
	Staged   bool
	Answer   string // the selected option, or "" while the question is open
}

// Questions lists the questions of the world by id.
func (w *World) Questions() []QuestionInfo {
	answers := map[string]string{}
	for _, e := range w.ix.answers {
		f := e.Object.(*objects.Fact)
		if w.ClaimGrade(e.ID) == datalog.Certain {
			answers[f.Entity] = f.Value
		}
	}
	out := make([]QuestionInfo, 0, len(w.ix.questions))
	for id, q := range w.ix.questions {
		e, _ := w.ix.byID.get(q.id())
		out = append(out, QuestionInfo{Question: q.object(), Claim: q.id(), Staged: e != nil && e.Staged, Answer: answers[id]})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Question.Ident < out[j].Question.Ident })
	return out
}

// Lookup returns a committed or staged object of the world by id.
func (w *World) Lookup(id objects.ID) (Entry, bool) {
	e, ok := w.ix.byID.get(id)
	if !ok {
		return Entry{}, false
	}
	return *e, true
}

// HasOption reports whether an option id is taken by any question.
func (w *World) HasOption(id string) bool {
	_, ok := w.ix.optionOf[id]
	return ok
}

// AttackPairs lists the attacks, as (attacker, target) decision pairs,
// whose target is a decision some literal of the given paths names (a
// literal "d:<decision>" or "d:<decision>@<claim>"), sorted.
func (w *World) AttackPairs(paths [][]string) [][2]string {
	named := map[string]bool{}
	for _, p := range paths {
		for _, lit := range p {
			if d, ok := strings.CutPrefix(lit, "d:"); ok {
				d, _, _ = strings.Cut(d, "@")
				named[d] = true
			}
		}
	}
	seen := map[[2]string]bool{}
	out := [][2]string{}
	for _, e := range w.ix.attacks {
		a := e.Object.(*objects.Attack)
		pair := [2]string{a.Attacker, a.Target}
		if named[a.Target] && !seen[pair] {
			seen[pair] = true
			out = append(out, pair)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i][0] != out[j][0] {
			return out[i][0] < out[j][0]
		}
		return out[i][1] < out[j][1]
	})
	return out
}

// Ledger lists the standing revisions and attacks about one claim.
func (w *World) Ledger(claim objects.ID) []Entry {
	var out []Entry
	for _, e := range w.ix.standing {
		if e.Object.(*objects.Standing).Claim == claim {
			out = append(out, e)
		}
	}
	for _, e := range w.ix.attacks {
		if e.Object.(*objects.Attack).Claim == claim {
			out = append(out, e)
		}
	}
	return out
}
