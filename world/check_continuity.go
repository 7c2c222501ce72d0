// The check battery, part two: the chronology (before-cycles), functional
// dependencies over the authored and the saturated layer, and fluents with
// inertia.

package world

import (
	"sort"
	"strings"

	"github.com/deloreis/deloreis/datalog"
	"github.com/deloreis/deloreis/objects"
)

// checkChronology reports every cycle among the order facts that are not
// dead, authored or derived.
func (w *World) checkChronology() {
	g := map[string][]string{}
	for _, f := range w.model.Facts(predBefore) {
		if len(f.Args) == 2 && gradeOf(f.Support.Eval(w.val)) != datalog.Dead {
			g[f.Args[0]] = append(g[f.Args[0]], f.Args[1])
		}
	}
	for _, scc := range cycles(g) {
		path := cyclePath(g, scc)
		f := newFinding(CodeBeforeCycle, "The declared order closes a cycle: %s.", strings.Join(append(path, path[0]), " → "))
		in := map[string]bool{}
		for _, ev := range scc {
			in[ev] = true
		}
		for e := range each(w.ix.befores) {
			b := e.Object.(*objects.Before)
			if in[b.Earlier] && in[b.Later] {
				f.Citations = append(f.Citations, e.ID.String())
			}
		}
		f.Data = map[string]any{"events": scc}
		w.emit(groupChronology, f)
	}
}

// cycles returns the strongly connected components of g that hold a cycle
// (more than one node, or a self-loop), each sorted, in order.
func cycles(g map[string][]string) [][]string {
	nodes := make([]string, 0, len(g))
	for n := range g {
		nodes = append(nodes, n)
	}
	sort.Strings(nodes)
	index, low := map[string]int{}, map[string]int{}
	onStack := map[string]bool{}
	var stack []string
	var out [][]string
	next := 0
	var visit func(v string)
	visit = func(v string) {
		index[v], low[v] = next, next
		next++
		stack = append(stack, v)
		onStack[v] = true
		for _, u := range g[v] {
			if _, seen := index[u]; !seen {
				visit(u)
				low[v] = min(low[v], low[u])
			} else if onStack[u] {
				low[v] = min(low[v], index[u])
			}
		}
		if low[v] != index[v] {
			return
		}
		var scc []string
		for {
			u := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			onStack[u] = false
			scc = append(scc, u)
			if u == v {
				break
			}
		}
		if len(scc) > 1 || selfLoop(g, v) {
			sort.Strings(scc)
			out = append(out, scc)
		}
	}
	for _, n := range nodes {
		if _, seen := index[n]; !seen {
			visit(n)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i][0] < out[j][0] })
	return out
}

// cyclePath walks one cycle through the smallest event of an SCC, taking
// the smallest next event that leads back, so the path is deterministic.
func cyclePath(g map[string][]string, scc []string) []string {
	in := map[string]bool{}
	for _, v := range scc {
		in[v] = true
	}
	start := scc[0]
	// Breadth-first from start's successors back to start, within the SCC.
	prev := map[string]string{}
	queue := []string{}
	succ := func(v string) []string {
		var out []string
		for _, u := range g[v] {
			if in[u] {
				out = append(out, u)
			}
		}
		sort.Strings(out)
		return out
	}
	for _, u := range succ(start) {
		if u == start {
			return []string{start}
		}
		if _, seen := prev[u]; !seen {
			prev[u] = start
			queue = append(queue, u)
		}
	}
	for len(queue) > 0 {
		v := queue[0]
		queue = queue[1:]
		for _, u := range succ(v) {
			if u == start {
				path := []string{v}
				for p := prev[v]; p != start; p = prev[p] {
					path = append(path, p)
				}
				path = append(path, start)
				for i, j := 0, len(path)-1; i < j; i, j = i+1, j-1 {
					path[i], path[j] = path[j], path[i]
				}
				return path
			}
			if _, seen := prev[u]; !seen {
				prev[u] = v
				queue = append(queue, u)
			}
		}
	}
	return scc
}

func selfLoop(g map[string][]string, v string) bool {
	for _, u := range g[v] {
		if u == v {
			return true
		}
	}
	return false
}

// policy is the set of predicate components a declaration kind covers:
// a component is covered when any member is declared. Functional
// declarations are structural (any standing counts); inertial ones are
// gated by their provenance (only certain ones count).
func (w *World) policy(group string, decls []Entry, gated bool) map[string]bool {
	reps := w.predicateReps()
	declared := map[string][]string{} // rep → members declared
	for _, e := range decls {
		if gated && w.ClaimGrade(e.ID) != datalog.Certain {
			continue
		}
		pred := declPred(e.Object)
		declared[repOf(reps, pred)] = append(declared[repOf(reps, pred)], pred)
	}
	out := map[string]bool{}
	for rep := range declared {
		out[rep] = true
	}
	w.reportPromotions(group, declared, decls)
	return out
}

func declPred(o objects.Object) string {
	switch x := o.(type) {
	case *objects.Functional:
		return x.Pred
	case *objects.Inertial:
		return x.Pred
	}
	return ""
}

// reportPromotions warns where a predicate identity makes one member's
// declaration cover others that are not declared themselves.
func (w *World) reportPromotions(group string, declared map[string][]string, decls []Entry) {
	if len(decls) == 0 {
		return
	}
	kind := decls[0].Object.Type()
	for _, c := range w.predicateComponents(true) {
		ds := dedupe(declared[c.rep])
		if len(ds) == 0 || len(ds) == len(c.members) {
			continue
		}
		f := newFinding(CodePolicyPromoted, "The %s declaration of %s now covers %s, declared the same property.",
			kind, strings.Join(ds, ", "), strings.Join(c.members, ", "))
		f.Citations = c.claims
		f.Data = map[string]any{"policy": string(kind), "declared": ds, "component": c.members, "identity": c.claims}
		w.emit(group, f)
	}
}

// fdKey is one subject of one functional component.
type fdKey struct{ pred, subject string }

// checkFunctional reports two distinct certain values for one subject of a
// functional predicate: among authored claims (with certain identities
// applied) as continuity.fd-violation, and otherwise in the saturated world
// as continuity.derived-fd-violation.
func (w *World) checkFunctional() {
	functional := w.policy(groupFunctional, w.ix.functional, false)
	if len(functional) == 0 {
		return
	}
	preds, ents := w.predicateReps(), w.entityReps()
	props := w.properties()
	authored := map[fdKey]map[string][]string{}
	for a := range w.binaryAuthored() {
		rep := repOf(preds, a.pred)
		if !functional[rep] || w.ClaimGrade(a.claim) != datalog.Certain {
			continue
		}
		k := fdKey{rep, ents.find(a.subj)}
		if authored[k] == nil {
			authored[k] = map[string][]string{}
		}
		v := ents.find(a.val)
		authored[k][v] = append(authored[k][v], a.claim.String())
	}
	for _, k := range sortedKeys(authored) {
		if len(authored[k]) > 1 {
			w.fdFinding(CodeFDViolation, k, authored[k], props)
		}
	}
	derived := map[fdKey]map[string][]string{}
	for _, pred := range w.model.Preds() {
		rep := repOf(preds, pred)
		if !functional[rep] {
			continue
		}
		for _, f := range w.model.Facts(pred) {
			if len(f.Args) != 2 || gradeOf(f.Support.Eval(w.val)) != datalog.Certain {
				continue
			}
			k := fdKey{rep, ents.find(f.Args[0])}
			if derived[k] == nil {
				derived[k] = map[string][]string{}
			}
			derived[k][ents.find(f.Args[1])] = nil
		}
	}
	declaredBy := map[string][]string{} // rep → the functional declarations covering it
	for _, e := range w.ix.functional {
		rep := repOf(preds, declPred(e.Object))
		declaredBy[rep] = append(declaredBy[rep], e.ID.String())
	}
	for _, k := range sortedKeys(derived) {
		if len(derived[k]) > 1 && len(authored[k]) <= 1 {
			// A derived value has no claim of its own: cite the declarations
			// that make the predicate functional.
			for v := range derived[k] {
				derived[k][v] = declaredBy[k.pred]
			}
			w.fdFinding(CodeDerivedFDViolation, k, derived[k], props)
		}
	}
}

func (w *World) fdFinding(code string, k fdKey, values map[string][]string, props properties) {
	vs := make([]string, 0, len(values))
	var cites []string
	for v, cs := range values {
		vs = append(vs, v)
		cites = append(cites, cs...)
	}
	sort.Strings(vs)
	f := newFinding(code, "%s is functional, but %s holds %d certain values: %s.%s", k.pred, k.subject, len(vs), strings.Join(vs, ", "), props.tail(k.pred))
	f.Citations = dedupe(append([]string{}, cites...))
	f.Data = map[string]any{"predicate": k.pred, "subject": k.subject, "values": vs}
	props.name(f.Data, k.pred)
	w.emit(groupFunctional, f)
}

// properties indexes the certain predicate identity components of more
// than one member by representative, for findings that name them.
type properties map[string]component

func (w *World) properties() properties {
	out := properties{}
	for _, c := range w.predicateComponents(true) {
		if len(c.members) > 1 {
			out[c.rep] = c
		}
	}
	return out
}

// tail is the message tail naming the predicates a certain identity joins
// under rep ("" when rep stands alone): a finding about the representative
// speaks of the names the caller declared.
func (p properties) tail(rep string) string {
	if c, ok := p[rep]; ok {
		return " (" + strings.Join(c.members, ", ") + " are declared the same property.)"
	}
	return ""
}

// name adds to a finding's data the members of rep's identity component
// and the identity claims that join them (DLI section 3.15: the finding
// names the identity assertion).
func (p properties) name(data map[string]any, rep string) {
	if c, ok := p[rep]; ok {
		data["same_property"] = c.members
		data["identity"] = c.claims
	}
}

func sortedKeys[V any](m map[fdKey]V) []fdKey {
	ks := make([]fdKey, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Slice(ks, func(i, j int) bool {
		if ks[i].pred != ks[j].pred {
			return ks[i].pred < ks[j].pred
		}
		return ks[i].subject < ks[j].subject
	})
	return ks
}
