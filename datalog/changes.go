// This file records what an incremental evaluation changed, so that a
// caller comparing two models (a consequence diff of one staged fact over
// a 10M-atom world) reads the atoms that changed, not every atom of both.

package datalog

// modelDelta is what EvalFrom changed: the atoms of the previous model
// whose presence or support differs in the new one, as the applier found
// them while maintaining its strata. It holds tuples, not relations or
// models, so that a chain of staged models keeps no earlier model alive.
type modelDelta struct {
	from  uint64                // the serial of the model evaluated from
	prev  *modelDelta           // that model's own delta, nil when it has none
	rows  map[uint32][][]uint32 // by pred id: the changed atoms' tuples
	whole []uint32              // preds changed in a way not recorded atom by atom
}

// delta collects the applier's changes once every stratum is done. A
// stratum taken over shares its relations; one maintained recorded its
// changes; one evaluated afresh whose change no later stratum asked for is
// noted whole rather than compared here, which would cost every staged
// add a pass over the relation.
func (a *applier) delta() *modelDelta {
	d := &modelDelta{from: a.prev.serial, prev: a.prev.delta}
	if a.partial {
		for _, pred := range a.visited {
			a.deltaOf(d, pred)
		}
		return d // the strata not visited were taken over whole
	}
	for pred := range a.m.rels.all() {
		a.deltaOf(d, uint32(pred))
	}
	for pred := a.m.rels.len(); pred < a.prev.rels.len(); pred++ {
		if a.prev.rel(uint32(pred)) != nil {
			d.whole = append(d.whole, uint32(pred)) // gone from the program
		}
	}
	return d
}

// deltaOf records in d what changed in pred's relation.
func (a *applier) deltaOf(d *modelDelta, pred uint32) {
	cur, old := a.m.rel(pred), a.prevRel(pred)
	c := a.changes[pred]
	switch {
	case cur != old && a.cut(pred):
		// A truncated atom is graded by solving its stratum's region:
		// its grade may move with atoms beside it, not only its own.
		d.whole = append(d.whole, pred)
	case c != nil:
		for _, r := range c.rows {
			var t []uint32
			if r.new >= 0 {
				t = cur.row(uint32(r.new))
			} else {
				t = old.row(uint32(r.old))
			}
			if d.rows == nil {
				d.rows = map[uint32][][]uint32{}
			}
			d.rows[pred] = append(d.rows[pred], append([]uint32(nil), t...))
		}
	case cur != old:
		d.whole = append(d.whole, pred)
	}
}

// cut reports whether pred's stratum in the new model cut supports.
func (a *applier) cut(pred uint32) bool {
	i := a.m.stratOf(pred)
	return i >= 0 && i < a.m.strata.len() && a.m.strata.at(i).mode == modeCut
}

// Changes is what may differ between two models: the atoms whose presence
// or support changed, by predicate, and the predicates any of whose atoms
// may have changed.
type Changes struct {
	Atoms map[string][][]string
	Whole map[string]bool
}

// ChangedSince returns what may differ between since and m when m was
// evaluated from since, directly or through a chain of EvalFrom (the
// models of a staged session); ok is false otherwise (evaluated from
// scratch, restored, or from another model), and then everything may.
func (m *Model) ChangedSince(since *Model) (ch Changes, ok bool) {
	if since == nil {
		return Changes{}, false
	}
	if m == since {
		return Changes{Atoms: map[string][][]string{}, Whole: map[string]bool{}}, true
	}
	var chain []*modelDelta
	for d := m.delta; ; d = d.prev {
		if d == nil {
			return Changes{}, false
		}
		chain = append(chain, d)
		if d.from == since.serial {
			break
		}
	}
	ch = Changes{Atoms: map[string][][]string{}, Whole: map[string]bool{}}
	consts := m.consts.snapshot()
	seen := map[string]bool{}
	for _, d := range chain {
		for _, pred := range d.whole {
			ch.Whole[m.predNames.at(pred)] = true
		}
		for pred, tuples := range d.rows {
			name := m.predNames.at(pred)
			for _, t := range tuples {
				args := make([]string, len(t))
				for i, c := range t {
					args[i] = consts.at(c)
				}
				key := changeKey(name, args)
				if !seen[key] {
					seen[key] = true
					ch.Atoms[name] = append(ch.Atoms[name], args)
				}
			}
		}
	}
	return ch, true
}

// changeKey renders an atom as a map key.
func changeKey(pred string, args []string) string {
	n := len(pred) + 2
	for _, a := range args {
		n += len(a) + 1
	}
	b := make([]byte, 0, n)
	b = append(b, pred...)
	b = append(b, '(')
	for _, a := range args {
		b = append(b, a...)
		b = append(b, 0)
	}
	b = append(b, ')')
	return string(b)
}

// Has reports whether pred(args) is an atom of the model.
func (m *Model) Has(pred string, args ...string) bool {
	_, _, ok := m.lookupAtom(pred, args)
	return ok
}
