// The expert lane in the world: lowering dialects, words, names,
// derivations and ledger entries, and their checks — the naming oracle
// over every name and word (name.unvetted), the lexicon a name or a
// derivation draws on (language.word-unknown), cycles of derivations
// (language.etymology-cycle) and accounts that cannot balance
// (ledger.overdrawn). Each check is one pass over the lane's entries: its
// cost grows with them, not with the world.

package world

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/deloreis/deloreis/datalog"
	"github.com/deloreis/deloreis/objects"
)

// The predicates the lane lowers to (DL-0152). A dialect lowers to none:
// like a functional declaration it configures a check.
const (
	predLexeme      = "lexeme"       // lexeme(dialect, form, gloss)
	predNamedIn     = "named_in"     // named_in(entity, dialect, name)
	predDerivedFrom = "derived_from" // derived_from(dialect, form, source_dialect, source)
	predLedgerEntry = "ledger_entry" // ledger_entry(entity, account, amount, at)
)

// The lane's check groups: the oracle's verdicts per name and word, the
// lexicon and etymology, and the ledger.
const (
	groupNames    = "names"
	groupLanguage = "language"
	groupLedger   = "ledger"
)

// lowerLanguage lowers one of the lane's claims; any other object lowers
// to nothing here.
func lowerLanguage(e Entry, support func(*objects.Provenance) datalog.Poly, add func(objects.ID, datalog.Poly, string, ...string) error) error {
	switch o := e.Object.(type) {
	case *objects.Word:
		return add(e.ID, support(o.Provenance), predLexeme, o.Dialect, o.Form, o.Gloss)
	case *objects.Name:
		return add(e.ID, support(o.Provenance), predNamedIn, o.Entity, o.Dialect, o.Name)
	case *objects.Derivation:
		return add(e.ID, support(o.Provenance), predDerivedFrom, o.Dialect, o.Form, o.SourceDialect, o.Source)
	case *objects.LedgerEntry:
		return add(e.ID, support(o.Provenance), predLedgerEntry, o.Entity, o.Account, strconv.FormatInt(o.Amount, 10), o.At)
	}
	return nil
}

// isLanguage reports whether o is one of the lane's claims.
func isLanguage(o objects.Object) bool {
	switch o.(type) {
	case *objects.Dialect, *objects.Word, *objects.Name, *objects.Derivation, *objects.LedgerEntry:
		return true
	}
	return false
}

// rerunLanguage re-runs the lane's checks the changed entries (staged,
// or discarded when staged is false) reach. The oracle runs again on every
// name and word only when a dialect moved; otherwise a staged name or word
// is vetted alone and a discarded one takes its verdict with it, so that
// staging a name costs its own oracle run, not every name's. The lexicon
// check (one pass of map work) runs again when a word, a derivation or a
// name built from words changed; the ledger's when an entry did or the
// valuation moved (which entries are certain moves with it).
func (nw *World) rerunLanguage(entries []Entry, staged, revalued bool) {
	lang, dialect, lexical, ledger := false, false, false, false
	for _, e := range entries {
		if _, ent := e.Object.(*objects.Entity); isLanguage(e.Object) || ent {
			lang = true // a staged entity's name is vetted too
		}
		switch x := e.Object.(type) {
		case *objects.Dialect:
			dialect = true
		case *objects.Word, *objects.Derivation:
			lexical = true
		case *objects.Name:
			lexical = lexical || len(x.Words) > 0
		case *objects.LedgerEntry:
			ledger = true
		}
	}
	switch {
	case dialect:
		nw.rerun(groupNames, nw.checkNames)
	case lang && staged:
		dialects := nw.dialectTable()
		for _, e := range entries {
			nw.vetEntry(e, dialects)
		}
	case lang:
		gone := map[string]bool{}
		for _, e := range entries {
			gone[e.ID.String()] = true
		}
		nw.groups[groupNames] = slices.DeleteFunc(slices.Clone(nw.groups[groupNames]), func(f Finding) bool {
			return len(f.Citations) == 1 && gone[f.Citations[0]]
		})
	}
	if lexical {
		nw.rerun(groupLanguage, nw.checkLanguage)
	}
	if ledger || revalued && nw.ix.lang.n > 0 {
		nw.rerun(groupLedger, nw.checkLedger)
	}
}

// Dialect returns the dialect the naming oracle uses for id in this
// world: the scope's own declaration (of several, the one with the
// smallest object id), else the project's configuration.
func (w *World) Dialect(id string) (*objects.Dialect, bool) {
	d, ok := w.dialectTable()[id]
	return d, ok
}

// dialectTable maps every dialect id to the declaration the oracle uses.
func (w *World) dialectTable() map[string]*objects.Dialect {
	out := map[string]*objects.Dialect{}
	for _, d := range w.dialects {
		out[d.Ident] = d
	}
	won := map[string]objects.ID{}
	for e := range each(w.ix.lang) {
		d, ok := e.Object.(*objects.Dialect)
		if !ok {
			continue
		}
		if cur, seen := won[d.Ident]; seen && bytes.Compare(cur[:], e.ID[:]) < 0 {
			continue
		}
		won[d.Ident] = e.ID
		out[d.Ident] = d
	}
	return out
}

// wordKey is a word: its dialect and its form.
type wordKey struct{ dialect, form string }

// checkNames runs the oracle over every name and word, and over the
// names of the staged entities.
func (w *World) checkNames() {
	dialects := w.dialectTable()
	for e := range each(w.ix.lang) {
		w.vetEntry(e, dialects)
	}
	if len(dialects) == 0 {
		return
	}
	for i := w.ix.stagedFrom.entries; i < w.ix.entries.n; i++ {
		if e := w.ix.entries.ptr(i); e.Object.Type() == objects.TypeEntity {
			w.vetEntry(*e, dialects)
		}
	}
}

// vetEntry runs the oracle over a name, a word or a staged entity's name;
// other entries pass.
func (w *World) vetEntry(e Entry, dialects map[string]*objects.Dialect) {
	switch x := e.Object.(type) {
	case *objects.Name:
		w.vet(e, dialects, x.Name, x.Dialect, "name")
	case *objects.Word:
		w.vet(e, dialects, x.Form, x.Dialect, "word")
	case *objects.Entity:
		if e.Staged {
			w.vetEntity(e, x, dialects)
		}
	}
}

// vetEntity runs the oracle over a staged entity's name (DLI §3.1): an
// entity names no dialect, so with dialects in scope its name must pass
// one of them; one that passes none is unvetted, reported against the
// first dialect by id. With no dialect in scope there is no oracle to
// run. Committed entities are not vetted again at every compile, which
// would read every entity of a lazy base (DL-0442).
func (w *World) vetEntity(e Entry, x *objects.Entity, dialects map[string]*objects.Dialect) {
	if len(dialects) == 0 {
		return
	}
	ids := make([]string, 0, len(dialects))
	for id := range dialects {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	var first objects.NameCheck
	for i, id := range ids {
		check := dialects[id].CheckName(x.Name)
		if check.Vetted {
			return
		}
		if i == 0 {
			first = check
		}
	}
	f := newFinding(CodeNameUnvetted, "The entity name %q does not pass the naming oracle of dialect %s: %s.", x.Name, ids[0], first.Problems[0].Message)
	if len(ids) > 1 {
		f = newFinding(CodeNameUnvetted, "The entity name %q passes the naming oracle of none of the dialects in scope (%s); %s says: %s.",
			x.Name, strings.Join(ids, ", "), ids[0], first.Problems[0].Message)
	}
	f.Citations = []string{e.ID.String()}
	f.Repair = &Repair{Kind: "run-check", Op: "dli.name.check", Params: map[string]any{"name": x.Name, "dialect": ids[0]}}
	f.Data = map[string]any{"name": x.Name, "dialect": ids[0], "kind": "entity", "reason": "oracle-rejected", "problems": first.Problems, "dialects": ids}
	w.emit(groupNames, f)
}

// checkLanguage checks the words names and derivations draw on, and that
// derivations do not cycle.
func (w *World) checkLanguage() {
	lexicon := map[wordKey]bool{}
	for e := range each(w.ix.lang) {
		if x, ok := e.Object.(*objects.Word); ok {
			lexicon[wordKey{x.Dialect, x.Form}] = true
		}
	}
	unknownWord := func(e Entry, k wordKey, what string) {
		f := newFinding(CodeWordUnknown, "The %s names the word %q, which the lexicon of dialect %s does not hold. Add it with author.add_word.",
			what, k.form, k.dialect)
		f.Citations = []string{e.ID.String()}
		f.Data = map[string]any{"dialect": k.dialect, "word": k.form}
		w.emit(groupLanguage, f)
	}
	derives := map[wordKey][]wordKey{}
	var derivations []Entry
	for e := range each(w.ix.lang) {
		switch x := e.Object.(type) {
		case *objects.Name:
			for _, form := range x.Words {
				if k := (wordKey{x.Dialect, form}); !lexicon[k] {
					unknownWord(e, k, "name "+strconv.Quote(x.Name))
				}
			}
		case *objects.Derivation:
			from, to := wordKey{x.Dialect, x.Form}, wordKey{x.SourceDialect, x.Source}
			for _, k := range []wordKey{from, to} {
				if !lexicon[k] {
					unknownWord(e, k, "derivation")
				}
			}
			derives[from] = append(derives[from], to)
			derivations = append(derivations, e)
		}
	}
	w.checkEtymology(derives, derivations)
}

// vet runs the oracle on a name or a word form; one that does not pass,
// or whose dialect is neither declared nor configured, is unvetted, with a
// run-check repair that asks the oracle why.
func (w *World) vet(e Entry, dialects map[string]*objects.Dialect, name, dialect, what string) {
	var f Finding
	data := map[string]any{"name": name, "dialect": dialect, "kind": what}
	d, ok := dialects[dialect]
	if !ok {
		f = newFinding(CodeNameUnvetted, "The %s %q is in dialect %s, which neither scope %s declares nor the project configures: no oracle has checked it.",
			what, name, dialect, w.scope)
		data["reason"] = "dialect-unknown"
	} else {
		check := d.CheckName(name)
		if check.Vetted {
			return
		}
		f = newFinding(CodeNameUnvetted, "The %s %q does not pass the naming oracle of dialect %s: %s.", what, name, dialect, check.Problems[0].Message)
		data["reason"] = "oracle-rejected"
		data["problems"] = check.Problems
	}
	f.Citations = []string{e.ID.String()}
	f.Repair = &Repair{Kind: "run-check", Op: "dli.name.check", Params: map[string]any{"name": name, "dialect": dialect}}
	f.Data = data
	w.emit(groupNames, f)
}

// checkEtymology reports each cycle of derivations once, citing the
// derivations on it (an iterative depth-first search: linear).
func (w *World) checkEtymology(derives map[wordKey][]wordKey, derivations []Entry) {
	if len(derives) == 0 {
		return
	}
	nodes := make([]wordKey, 0, len(derives))
	for k := range derives {
		nodes = append(nodes, k)
	}
	less := func(a, b wordKey) bool { return a.dialect < b.dialect || a.dialect == b.dialect && a.form < b.form }
	sort.Slice(nodes, func(i, j int) bool { return less(nodes[i], nodes[j]) })
	for k := range derives {
		sort.Slice(derives[k], func(i, j int) bool { return less(derives[k][i], derives[k][j]) })
	}
	const (
		white = iota
		grey
		black
	)
	color := map[wordKey]int{}
	type frame struct {
		k    wordKey
		next int
	}
	for _, root := range nodes {
		if color[root] != white {
			continue
		}
		stack := []frame{{k: root}}
		color[root] = grey
		for len(stack) > 0 {
			top := &stack[len(stack)-1]
			if top.next == len(derives[top.k]) {
				color[top.k] = black
				stack = stack[:len(stack)-1]
				continue
			}
			to := derives[top.k][top.next]
			top.next++
			switch color[to] {
			case white:
				color[to] = grey
				stack = append(stack, frame{k: to})
			case grey:
				// A back edge: the cycle is the stack from to up.
				var cycle []wordKey
				for i := len(stack) - 1; i >= 0; i-- {
					cycle = append(cycle, stack[i].k)
					if stack[i].k == to {
						break
					}
				}
				w.etymologyCycle(cycle, derivations)
			}
		}
	}
}

// etymologyCycle reports one cycle of words.
func (w *World) etymologyCycle(cycle []wordKey, derivations []Entry) {
	on := map[wordKey]bool{}
	path := ""
	for i := len(cycle) - 1; i >= 0; i-- {
		on[cycle[i]] = true
		path += fmt.Sprintf("%s:%s ← ", cycle[i].dialect, cycle[i].form)
	}
	path += fmt.Sprintf("%s:%s", cycle[len(cycle)-1].dialect, cycle[len(cycle)-1].form)
	var cites []string
	for _, e := range derivations {
		x := e.Object.(*objects.Derivation)
		if on[wordKey{x.Dialect, x.Form}] && on[wordKey{x.SourceDialect, x.Source}] {
			cites = append(cites, e.ID.String())
		}
	}
	sort.Strings(cites)
	f := newFinding(CodeEtymologyCycle, "The derivations close a cycle: %s. A word cannot come from itself; discard one of them.", path)
	f.Citations = cites
	w.emit(groupLanguage, f)
}

// accountKey is one account of one entity.
type accountKey struct{ entity, account string }

// checkLedger reports each account whose entries cannot balance: the
// certain debits outweigh every credit that is not dead. No order of the
// anchors can then keep the closing balance at zero or above (DL-0155).
func (w *World) checkLedger() {
	type tally struct {
		best  int64 // every live credit, the certain debits
		debit int64
		cites []string
	}
	accounts := map[accountKey]*tally{}
	for e := range each(w.ix.lang) {
		x, ok := e.Object.(*objects.LedgerEntry)
		if !ok {
			continue
		}
		k := accountKey{x.Entity, x.Account}
		t := accounts[k]
		if t == nil {
			t = &tally{}
			accounts[k] = t
		}
		g := w.ClaimGrade(e.ID)
		switch {
		case x.Amount > 0 && g != datalog.Dead:
			t.best = satAdd(t.best, x.Amount)
		case x.Amount < 0 && g == datalog.Certain:
			t.best = satAdd(t.best, x.Amount)
			t.debit = satAdd(t.debit, -x.Amount)
			t.cites = append(t.cites, e.ID.String())
		}
	}
	keys := make([]accountKey, 0, len(accounts))
	for k, t := range accounts {
		if t.best < 0 {
			keys = append(keys, k)
		}
	}
	sort.Slice(keys, func(i, j int) bool {
		return keys[i].entity < keys[j].entity || keys[i].entity == keys[j].entity && keys[i].account < keys[j].account
	})
	for _, k := range keys {
		t := accounts[k]
		f := newFinding(CodeLedgerOverdrawn, "Account %s of %s cannot balance: its certain debits come to %d, and every credit that may hold comes to %d; it closes at %d at best.",
			k.account, k.entity, t.debit, satAdd(t.best, t.debit), t.best)
		sort.Strings(t.cites)
		f.Citations = t.cites
		f.Data = map[string]any{"entity": k.entity, "account": k.account, "balance": t.best}
		w.emit(groupLedger, f)
	}
}

// satAdd adds two amounts, saturating instead of overflowing: a sum of
// more than a thousand amounts near the bound must still compare right.
func satAdd(a, b int64) int64 {
	switch s := a + b; {
	case a > 0 && b > 0 && s < 0:
		return math.MaxInt64
	case a < 0 && b < 0 && s >= 0:
		return math.MinInt64
	default:
		return s
	}
}
