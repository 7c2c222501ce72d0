// The identity oracle: over random small worlds, identity closed at read
// time (DL-0040) reads exactly as the rule-based lowering it replaced,
// kept for tests as Input.legacy — findings, the grade of every queried
// atom, query answers and explanations, also after a decision is attacked.

package world

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/deloreis/deloreis/datalog"
	"github.com/deloreis/deloreis/objects"
)

var oracleSeeds = flag.Uint64("oracle.seeds", 40, "random worlds TestIdentityOracle compares")

// oracleWorld draws a world of up to 40 entities joined by same-as links
// in chains, stars, cycles or at random, with facts, relations, states,
// declarations, predicate identities, rules (negation among them) and
// attacks on identities and facts.
func oracleWorld(r *rand.Rand) (objs []objects.Object, attacks []objects.Object) {
	n := 2 + r.IntN(39)
	ents := make([]string, n)
	for i := range ents {
		ents[i] = fmt.Sprintf("e%02d", i)
	}
	pick := func(xs []string) string { return xs[r.IntN(len(xs))] }
	decs := []string{"d1", "d2", "d3"} // d3 is never recorded
	prov := func() *objects.Provenance {
		switch r.IntN(4) {
		case 0:
			return objects.Proposed("s")
		case 1:
			return objects.Cited(objects.CitedRatified, pick(decs))
		case 2:
			return objects.Cited(objects.CitedProvisional, pick(decs), pick(decs))
		}
		return objects.Cited(objects.CitedRatified, "d1")
	}
	objs = append(objs, decision("d1"), decision("d2"), era("age"),
		&objects.Event{Ident: "ev1", Era: "age", Provenance: prop}, &objects.Event{Ident: "ev2", Era: "age", Provenance: prop})
	for _, e := range ents {
		objs = append(objs, person(e, prov()))
	}
	var claims []objects.Object
	link := func(a, b string) {
		s := &objects.SameAs{Left: a, Right: b, Provenance: prov()}
		objs, claims = append(objs, s), append(claims, s)
	}
	perm := r.Perm(n)
	k := 1 + r.IntN(n)
	switch r.IntN(4) {
	case 0: // a chain
		for i := 1; i < k; i++ {
			link(ents[perm[i-1]], ents[perm[i]])
		}
	case 1: // a star
		for i := 1; i < k; i++ {
			link(ents[perm[0]], ents[perm[i]])
		}
	case 2: // a cycle
		for i := 1; i < k; i++ {
			link(ents[perm[i-1]], ents[perm[i]])
		}
		link(ents[perm[k-1]], ents[perm[0]])
	default:
		for i := 0; i < r.IntN(2*n); i++ {
			link(pick(ents), pick(ents))
		}
	}
	values := append(slices.Clone(ents), "v1", "v2", "ev1")
	for i := 0; i < 2+r.IntN(2*n); i++ {
		f := &objects.Fact{Entity: pick(ents), Key: pick([]string{"p", "q", "s"}), Value: pick(values), Provenance: prov()}
		objs, claims = append(objs, f), append(claims, f)
	}
	for i := 0; i < r.IntN(4); i++ {
		objs = append(objs, &objects.Relation{Relation: "knows", From: pick(ents), To: pick(ents), Provenance: prov()})
	}
	for i := 0; i < r.IntN(4); i++ {
		objs = append(objs, &objects.State{Entity: pick(ents), Key: "t", Value: pick(values), Since: pick([]string{"ev1", "ev2"}), Provenance: prov()})
	}
	if r.IntN(2) == 0 {
		objs = append(objs, &objects.Functional{Pred: pick([]string{"p", "q", "knows"}), Provenance: prov()})
	}
	if r.IntN(2) == 0 {
		objs = append(objs, &objects.Inertial{Pred: "t", Provenance: prov()})
	}
	if r.IntN(3) == 0 {
		objs = append(objs, &objects.PredicateSameAs{Left: pick([]string{"p", "q"}), Right: pick([]string{"q", "seat", "knows"}), Provenance: prov()})
	}
	objs = append(objs, oracleRules(r, prov)...)
	for i := 0; i < 1+r.IntN(3) && len(claims) > 0; i++ {
		id, _ := claims[r.IntN(len(claims))].ID()
		attacks = append(attacks, &objects.Attack{Attacker: pick(decs), Target: pick(decs), Claim: id})
	}
	return objs, attacks
}

// oracleRules are none, some, or rules that read identity-carried
// predicates, one of them under a negation.
func oracleRules(r *rand.Rand, prov func() *objects.Provenance) []objects.Object {
	X, Y, Z := objects.Var("X"), objects.Var("Y"), objects.Var("Z")
	atom := func(p string, ts ...objects.Term) objects.Atom { return objects.Atom{Pred: p, Args: ts} }
	all := []*objects.Rule{
		{Name: "chain", Head: atom("linked", X, Z), Body: []objects.Literal{{Atom: atom("p", X, Y)}, {Atom: atom("q", Y, Z)}}},
		{Name: "unmet", Head: atom("unmet", X, Y), Body: []objects.Literal{{Atom: atom("p", X, Y)}, {Atom: atom("knows", X, Y), Negated: true}}},
		{Name: "named", Head: atom("named", X), Body: []objects.Literal{{Atom: atom("s", X, objects.Const("v1"))}}},
	}
	var out []objects.Object
	for _, rule := range all {
		if r.IntN(3) == 0 {
			rule.Provenance = prov()
			out = append(out, rule)
		}
	}
	return out
}

// oracleDump renders what the oracle compares: findings, the graded atom
// set, the grade of every atom over the world's names, and the answers to
// one query per predicate.
func oracleDump(w *World, preds []string, names []string) string {
	var b strings.Builder
	b.WriteString(dump(w))
	for _, p := range preds {
		ar := w.arity.of(p)
		if ar == 0 || ar > 2 {
			continue
		}
		args := make([]string, ar)
		var walk func(i int)
		walk = func(i int) {
			if i == ar {
				fmt.Fprintf(&b, "A %s%v %s\n", p, args, w.Grade(p, args...))
				return
			}
			for _, n := range names {
				args[i] = n
				walk(i + 1)
			}
		}
		walk(0)
		q := datalog.Atom{Pred: p, Args: []datalog.Term{{Var: "X"}}}
		if ar == 2 {
			q.Args = append(q.Args, datalog.Term{Var: "X"})
		}
		for _, a := range w.Query(q) {
			fmt.Fprintf(&b, "Q %s%v %v %s\n", p, a.Args, a.Bindings, a.Grade)
			if t := a.Support.Eval(w.Valuation()); !a.Support.Truncated() && t != a.Grade.Truth() {
				fmt.Fprintf(&b, "  its support %s evaluates %s\n", a.Support, t)
			}
		}
	}
	return b.String()
}

// whyVerdict renders an explanation: grade and, unless either side cut
// its paths, the paths, the active and blocked ones and the blocking
// defeats.
func whyVerdict(y datalog.Why, paths bool) string {
	s := fmt.Sprintf("%s%v %s", y.Pred, y.Args, y.Grade)
	if paths {
		s += fmt.Sprintf(" paths %v active %v blocked %v defeats %v", y.Paths, y.Active, y.Blocked, y.BlockingDefeats)
	}
	return s
}

// oracleDiff compares the new world with the legacy one, atom by atom,
// and says where they first differ ("" when they read alike).
func oracleDiff(got, want *World) string {
	preds := slices.DeleteFunc(want.model.Preds(), func(p string) bool { return strings.HasPrefix(p, "@") })
	preds = append(preds, "seat", "person")
	names := []string{"v1", "ev1", "nobody"}
	for n := range want.ix.entities.all() {
		names = append(names, n)
	}
	slices.Sort(names)
	g, w := oracleDump(got, preds, names), oracleDump(want, preds, names)
	if g != w {
		return "the world reads differently from the legacy lowering:\n" + firstDiff(g, w)
	}
	atoms := want.grades()
	keys := make([]string, 0, len(atoms))
	for k := range atoms {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for i, k := range keys {
		if len(keys) > 200 && i%(len(keys)/200) != 0 {
			continue // a spread of 200 explanations per world
		}
		a := atoms[k]
		wy, gy := want.Why(a.pred, a.args...), got.Why(a.pred, a.args...)
		paths := !wy.Truncated && !gy.Truncated
		if whyVerdict(gy, paths) != whyVerdict(wy, paths) {
			return fmt.Sprintf("why differs:\n got  %s\n want %s", whyVerdict(gy, paths), whyVerdict(wy, paths))
		}
	}
	return ""
}

// oracleCompare reports a difference as a test error.
func oracleCompare(t *testing.T, label string, got, want *World) bool {
	t.Helper()
	if d := oracleDiff(got, want); d != "" {
		t.Errorf("%s: %s", label, d)
		return false
	}
	return true
}

func firstDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; i < len(al) && i < len(bl); i++ {
		if al[i] != bl[i] {
			return fmt.Sprintf("line %d:\n got  %s\n want %s", i, al[i], bl[i])
		}
	}
	return fmt.Sprintf("lengths %d and %d", len(al), len(bl))
}

// TestIdentityOracle holds the read-time closure to the legacy lowering
// on random worlds, compiled, with an attack staged, and compiled with it.
func TestIdentityOracle(t *testing.T) {
	for seed := uint64(0); seed < *oracleSeeds; seed++ {
		objs, attacks := oracleWorld(rand.New(rand.NewPCG(seed, 11)))
		label := fmt.Sprintf("seed %d", seed)
		got := compileWith(t, objs, false)
		want := compileWith(t, objs, true)
		if !oracleCompare(t, label, got, want) {
			return
		}
		staged, err := got.Stage(attacks, nil)
		if err != nil {
			t.Fatal(err)
		}
		wantAttacked := compileWith(t, append(slices.Clone(objs), attacks...), true)
		if !oracleCompare(t, label+" attacked (staged)", staged, wantAttacked) {
			return
		}
		if !oracleCompare(t, label+" attacked", compileWith(t, append(slices.Clone(objs), attacks...), false), wantAttacked) {
			return
		}
	}
}

func compileWith(t *testing.T, objs []objects.Object, legacy bool) *World {
	t.Helper()
	w, err := Compile(Input{Scope: "camelot", Staged: objs, legacy: legacy})
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// TestIdentityOracleCatchesBrokenConnectivity: the oracle fails when
// links of unknown truth are read as true.
func TestIdentityOracleCatchesBrokenConnectivity(t *testing.T) {
	for seed := uint64(0); seed < *oracleSeeds; seed++ {
		objs, _ := oracleWorld(rand.New(rand.NewPCG(seed, 11)))
		got := compileWith(t, objs, false)
		c := got.closure()
		c.tcls = c.ncls // the mutation: unknown links count as true
		if oracleDiff(got, compileWith(t, objs, true)) != "" {
			return
		}
	}
	t.Fatal("no seed told unknown links from true ones")
}
