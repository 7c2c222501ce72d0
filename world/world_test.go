// Hand-computed tests of the world: grades from provenance and attacks,
// identity through the support polynomials, and one case per finding code.

package world

import (
	"iter"
	"math/rand/v2"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/deloreis/deloreis/datalog"
	"github.com/deloreis/deloreis/objects"
)

var (
	prop = objects.Proposed("session-7c9")
)

func cited(ds ...string) *objects.Provenance { return objects.Cited(objects.CitedRatified, ds...) }

func person(id string, p *objects.Provenance) *objects.Entity {
	return &objects.Entity{Kind: objects.KindPerson, Ident: id, Name: id, Provenance: p}
}

func place(id string) *objects.Entity {
	return &objects.Entity{Kind: objects.KindPlace, Ident: id, Name: id, Provenance: prop}
}

func era(id string) *objects.Entity {
	return &objects.Entity{Kind: objects.KindEra, Ident: id, Name: id, Provenance: prop}
}

func fact(e, k, v string, p *objects.Provenance) *objects.Fact {
	return &objects.Fact{Entity: e, Key: k, Value: v, Provenance: p}
}

func decision(id string) *objects.Decision { return &objects.Decision{Ident: id} }

func idOf(t *testing.T, o objects.Object) objects.ID {
	t.Helper()
	id, err := o.ID()
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// compile stages every object over an empty base.
func compile(t *testing.T, objs ...objects.Object) *World {
	t.Helper()
	w, err := Compile(Input{Scope: "camelot", Staged: objs})
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func codes(w *World) []string {
	var cs []string
	for _, f := range w.Findings() {
		cs = append(cs, f.Code)
	}
	sort.Strings(cs)
	return cs
}

func findingsOf(w *World, code string) []Finding {
	var out []Finding
	for _, f := range w.Findings() {
		if f.Code == code {
			out = append(out, f)
		}
	}
	return out
}

func TestGradesFromProvenance(t *testing.T) {
	w := compile(t,
		person("galahad", prop), person("lancelot", cited("canon-1")), decision("canon-1"),
		fact("galahad", "father", "lancelot", cited("canon-1")),
		fact("galahad", "epithet", "the pure knight", prop),
		fact("galahad", "sword", "none", cited("canon-9")),
	)
	cases := []struct {
		pred string
		args []string
		want datalog.Grade
	}{
		{"person", []string{"galahad"}, datalog.Possible},
		{"person", []string{"lancelot"}, datalog.Certain},
		{"father", []string{"galahad", "lancelot"}, datalog.Certain},
		{"epithet", []string{"galahad", "the pure knight"}, datalog.Possible},
		{"sword", []string{"galahad", "none"}, datalog.Possible}, // cites an unknown decision
		{"father", []string{"galahad", "pellinore"}, datalog.Dead},
	}
	for _, c := range cases {
		if got := w.Grade(c.pred, c.args...); got != c.want {
			t.Errorf("%s(%s) = %s, want %s", c.pred, strings.Join(c.args, ", "), got, c.want)
		}
	}
	if got := codes(w); strings.Join(got, ",") != CodeCitationUnknownDecision {
		t.Fatalf("findings %v", got)
	}
}

// TestDefeatByAttack: a claim-scoped attack makes the cited decision out
// for that claim only; a counter-attack makes it undecided; the attacked
// claim reads dead, then possible, and the other claim citing the same
// decision stays certain throughout.
func TestDefeatByAttack(t *testing.T) {
	target := fact("galahad", "father", "lancelot", cited("canon-1"))
	other := fact("galahad", "epithet", "pure", cited("canon-1"))
	base := []objects.Object{person("galahad", prop), decision("canon-1"), decision("retcon-2"), target, other}
	attack := &objects.Attack{Attacker: "retcon-2", Target: "canon-1", Claim: idOf(t, target)}
	counter := &objects.Attack{Attacker: "canon-1", Target: "retcon-2", Claim: idOf(t, target)}
	steps := []struct {
		objs          []objects.Object
		target, other datalog.Grade
	}{
		{base, datalog.Certain, datalog.Certain},
		{append(append([]objects.Object{}, base...), attack), datalog.Dead, datalog.Certain},
		{append(append([]objects.Object{}, base...), attack, counter), datalog.Possible, datalog.Certain},
	}
	for i, s := range steps {
		w := compile(t, s.objs...)
		if g := w.Grade("father", "galahad", "lancelot"); g != s.target {
			t.Errorf("step %d: attacked claim %s, want %s", i, g, s.target)
		}
		if g := w.Grade("epithet", "galahad", "pure"); g != s.other {
			t.Errorf("step %d: other claim %s, want %s", i, g, s.other)
		}
	}
}

// TestIdentityUnmergesOnDefeat: facts cross a certain same-as; attacking
// the decision it cites un-merges on the next read.
func TestIdentityUnmergesOnDefeat(t *testing.T) {
	same := &objects.SameAs{Left: "lancelot", Right: "du-lac", Provenance: cited("canon-1")}
	objs := []objects.Object{
		person("lancelot", prop), person("du-lac", prop), decision("canon-1"), decision("retcon-2"),
		fact("lancelot", "home", "joyous-gard", cited("canon-1")), same,
	}
	w := compile(t, objs...)
	if g := w.Grade("home", "du-lac", "joyous-gard"); g != datalog.Certain {
		t.Fatalf("merged fact %s, want certain", g)
	}
	why := w.Why("home", "du-lac", "joyous-gard")
	if len(why.Active) != 1 {
		t.Fatalf("why: %+v", why)
	}
	w2 := compile(t, append(objs, &objects.Attack{Attacker: "retcon-2", Target: "canon-1", Claim: idOf(t, same)})...)
	if g := w2.Grade("home", "du-lac", "joyous-gard"); g != datalog.Dead {
		t.Fatalf("after defeating the identity: %s, want dead", g)
	}
	if g := w2.Grade("home", "lancelot", "joyous-gard"); g != datalog.Certain {
		t.Fatalf("the source fact stays: %s", g)
	}
}

func TestFindings(t *testing.T) {
	functional := &objects.Functional{Pred: "father", Provenance: prop}
	inertial := &objects.Inertial{Pred: "allegiance", Provenance: cited("canon-1")}
	ev := func(id string) *objects.Event { return &objects.Event{Ident: id, Era: "grail-years", Provenance: prop} }
	before := func(a, b string) *objects.Before {
		return &objects.Before{Earlier: a, Later: b, Provenance: cited("canon-1")}
	}
	state := func(v, since string) *objects.State {
		return &objects.State{Entity: "galahad", Key: "allegiance", Value: v, Since: since, Provenance: cited("canon-1")}
	}
	rule := func(name string, head objects.Atom, body ...objects.Literal) *objects.Rule {
		return &objects.Rule{Name: name, Head: head, Body: body, Provenance: cited("canon-1")}
	}
	atom := func(p string, args ...objects.Term) objects.Atom { return objects.Atom{Pred: p, Args: args} }
	X, Y := objects.Var("X"), objects.Var("Y")
	common := []objects.Object{person("galahad", prop), decision("canon-1"), era("grail-years")}
	cases := []struct {
		code string
		objs []objects.Object
		msg  string
	}{
		{CodeBeforeCycle, []objects.Object{ev("a"), ev("b"), ev("c"), before("a", "b"), before("b", "c"), before("c", "a")}, "a → b → c → a."},
		{CodeFDViolation, []objects.Object{functional, person("lancelot", prop),
			fact("galahad", "father", "lancelot", cited("canon-1")), fact("galahad", "father", "pellinore", cited("canon-1"))}, "father is functional, but galahad holds 2 certain values: lancelot, pellinore."},
		{CodeDerivedFDViolation, []objects.Object{functional, fact("galahad", "father", "lancelot", cited("canon-1")),
			fact("galahad", "sire", "pellinore", cited("canon-1")),
			rule("sire-is-father", atom("father", X, Y), objects.Literal{Atom: atom("sire", X, Y)})}, "galahad holds 2 certain values: lancelot, pellinore"},
		{CodeFluentOrderUndeclared, []objects.Object{inertial, ev("oath"), ev("exile"), state("camelot", "oath"), state("carbonek", "exile")}, "order of oath and exile is not declared"},
		{CodeFluentContradiction, []objects.Object{inertial, ev("oath"), state("camelot", "oath"), state("carbonek", "oath")}, "holds both camelot and carbonek at once"},
		{CodeInertiaUnanchored, []objects.Object{inertial, state("camelot", "")}, "has no since anchor"},
		{CodeEntityUnknown, []objects.Object{person("mireth", prop), person("the-warder", prop), person("the-ward", prop),
			&objects.Relation{Relation: "serves", From: "mireth", To: "the-warden", Provenance: prop}}, `No entity "the-warden" is in scope.`},
		{CodeCitationUnknownDecision, []objects.Object{fact("galahad", "title", "sir", cited("canon-404"))}, `cites decision "canon-404"`},
		{CodeSelfMerge, []objects.Object{&objects.SameAs{Left: "galahad", Right: "galahad", Provenance: prop}}, "the same as itself"},
		{CodeTemporalUnsupported, []objects.Object{ev("a"), &objects.SameAs{Left: "galahad", Right: "a", Provenance: prop}}, "chronology spine"},
		{CodeSortMismatch, []objects.Object{place("logres"), &objects.SameAs{Left: "galahad", Right: "logres", Provenance: prop}}, "galahad is a person and logres a place"},
		{CodeNotAnEra, []objects.Object{&objects.Event{Ident: "the-quest", Era: "galahad", Provenance: prop}}, "which is a person, not an era"},
		{CodePolicyPromoted, []objects.Object{functional, fact("galahad", "sire", "pellinore", cited("canon-1")),
			&objects.PredicateSameAs{Left: "father", Right: "sire", Provenance: cited("canon-1")}}, "now covers father, sire"},
		{CodeArityMismatch, []objects.Object{fact("galahad", "father", "lancelot", prop),
			rule("r", atom("sire", X), objects.Literal{Atom: atom("person", X)}),
			&objects.PredicateSameAs{Left: "father", Right: "sire", Provenance: prop}}, "used with 1 and 2 arguments"},
		{CodeRuleDuplicate, []objects.Object{rule("r", atom("knight", X), objects.Literal{Atom: atom("person", X)}),
			rule("r", atom("squire", X), objects.Literal{Atom: atom("person", X)})}, `A rule named "r"`},
		{CodeRuleUnboundVariable, []objects.Object{rule("r", atom("knight", X, Y), objects.Literal{Atom: atom("person", X)})}, "Rule r is left out"},
		{CodeRuleUnstratifiable, []objects.Object{
			rule("r1", atom("knight", X), objects.Literal{Atom: atom("person", X)}, objects.Literal{Atom: atom("squire", X), Negated: true}),
			rule("r2", atom("squire", X), objects.Literal{Atom: atom("person", X)}, objects.Literal{Atom: atom("knight", X), Negated: true})}, "left out"},
	}
	for _, c := range cases {
		t.Run(c.code, func(t *testing.T) {
			w := compile(t, append(append([]objects.Object{}, common...), c.objs...)...)
			fs := findingsOf(w, c.code)
			if len(fs) == 0 {
				t.Fatalf("no %s finding; got %v", c.code, codes(w))
			}
			if !strings.Contains(fs[0].Message, c.msg) {
				t.Fatalf("message %q does not say %q", fs[0].Message, c.msg)
			}
			info, _ := Info(c.code)
			if fs[0].Severity != info.Severity || fs[0].Grade != info.Grade {
				t.Fatalf("severity/grade %s/%s, catalogue says %s/%s", fs[0].Severity, fs[0].Grade, info.Severity, info.Grade)
			}
		})
	}
}

func TestEntityUnknownCandidates(t *testing.T) {
	w := compile(t, person("mireth", prop), person("the-warder", prop), person("the-ward", prop),
		&objects.Relation{Relation: "serves", From: "mireth", To: "the-warden", Provenance: prop})
	fs := findingsOf(w, CodeEntityUnknown)
	if len(fs) != 1 || fs[0].Repair == nil || strings.Join(fs[0].Repair.Candidates, ",") != "the-warder,the-ward" {
		t.Fatalf("repair %+v", fs)
	}
	if fs[0].Severity != SeverityError || fs[0].Grade != Checked {
		t.Fatalf("severity %s grade %s", fs[0].Severity, fs[0].Grade)
	}
}

func TestFluentRepairSettles(t *testing.T) {
	inertial := &objects.Inertial{Pred: "allegiance", Provenance: cited("canon-1")}
	ev := func(id string) *objects.Event { return &objects.Event{Ident: id, Era: "grail-years", Provenance: prop} }
	st := func(v, since string) *objects.State {
		return &objects.State{Entity: "galahad", Key: "allegiance", Value: v, Since: since, Provenance: cited("canon-1")}
	}
	objs := []objects.Object{person("galahad", prop), decision("canon-1"), era("grail-years"), inertial,
		ev("oath"), ev("exile"), st("camelot", "oath"), st("carbonek", "exile")}
	w := compile(t, objs...)
	fs := findingsOf(w, CodeFluentOrderUndeclared)
	if len(fs) != 1 || fs[0].Repair == nil || fs[0].Repair.Kind != "add-before" {
		t.Fatalf("findings %+v", fs)
	}
	p := fs[0].Repair.Params
	settle := &objects.Before{Earlier: p["earlier"].(string), Later: p["later"].(string), Provenance: cited("canon-1")}
	w2 := compile(t, append(objs, settle)...)
	if len(findingsOf(w2, CodeFluentOrderUndeclared)) != 0 || len(findingsOf(w2, CodeFluentContradiction)) != 0 {
		t.Fatalf("the settling before-fact did not settle: %v", codes(w2))
	}
}

func TestDiffAndConflicts(t *testing.T) {
	rule := &objects.Rule{Name: "heir", Head: objects.Atom{Pred: "heir", Args: []objects.Term{objects.Var("X"), objects.Var("Y")}},
		Body:       []objects.Literal{{Atom: objects.Atom{Pred: "father", Args: []objects.Term{objects.Var("Y"), objects.Var("X")}}}},
		Provenance: cited("canon-1")}
	base := []objects.Object{person("galahad", prop), person("lancelot", prop), decision("canon-1"), rule}
	before := compile(t, base...)
	after := compile(t, append(base, fact("galahad", "father", "lancelot", cited("canon-1")))...)
	d := before.Diff(after)
	var certain []string
	for _, c := range d.NewlyCertain {
		certain = append(certain, c.Pred+"("+strings.Join(c.Args, ",")+")")
	}
	if strings.Join(certain, " ") != "father(galahad,lancelot) heir(lancelot,galahad)" {
		t.Fatalf("newly certain %v", certain)
	}
	if len(d.Dead) != 0 || len(d.Conflicts) != 0 || len(d.GradeChanged) != 2 {
		t.Fatalf("diff %+v", d)
	}
}

func datalogPossible() datalog.Grade { return datalog.Possible }

func datalogCertain() datalog.Grade { return datalog.Certain }

// TestCompileOwned checks that a compile handed its input (Owned) builds
// the same world as one that copies it, whatever the input's order and
// repeats.
func TestCompileOwned(t *testing.T) {
	objs := bigWorld(t)[:20_000]
	es := entriesOf(t, objs)
	es = append(es, es[:100]...) // repeats are kept once
	rand.New(rand.NewPCG(7, 7)).Shuffle(len(es), func(i, j int) { es[i], es[j] = es[j], es[i] })
	copied, err := Compile(Input{Scope: "s", Base: es})
	if err != nil {
		t.Fatal(err)
	}
	owned, err := Compile(Input{Scope: "s", Base: slices.Clone(es), Owned: true})
	if err != nil {
		t.Fatal(err)
	}
	ids := func(w *World) []objects.ID {
		var out []objects.ID
		for e := range w.Objects() {
			out = append(out, e.ID)
		}
		return out
	}
	distinct := map[objects.ID]bool{}
	for _, e := range es {
		distinct[e.ID] = true
	}
	if a, b := ids(copied), ids(owned); !slices.Equal(a, b) || len(a) != len(distinct) {
		t.Fatalf("owned compile holds %d objects, copied %d, want %d and the same", len(b), len(a), len(distinct))
	}
	if a, b := copied.Findings(), owned.Findings(); !reflect.DeepEqual(a, b) {
		t.Errorf("owned compile has %d findings, copied %d", len(b), len(a))
	}
}

// TestStratumBudget: the exact-evaluation budget of a stratum is the
// datalog default for a small world and grows, in powers of two, to at
// least twice the objects of a large one; a compile uses it.
func TestStratumBudget(t *testing.T) {
	def := datalog.DefaultBounds().MaxStratumMonomials
	tests := []struct{ n, want int }{
		{0, def}, {1, def}, {def / 2, def}, {def/2 + 1, 2 * def}, {600_000, 2 * def}, {10_000_000, 32 * def},
	}
	for _, tt := range tests {
		if got := stratumBudget(tt.n); got != tt.want {
			t.Errorf("stratumBudget(%d) = %d, want %d", tt.n, got, tt.want)
		}
	}
	w, err := Compile(Input{Scope: "s", Base: entriesOf(t, bigWorld(t)[:5000])})
	if err != nil {
		t.Fatal(err)
	}
	if got := w.prog.Bounds().MaxStratumMonomials; got != def {
		t.Errorf("a compile of 5,000 objects evaluates under a budget of %d, want %d", got, def)
	}
}

// TestCompileIndexed: the Indexed hook is called once, with the world's
// entries in the world's order (staged ones too), and the sequence it was
// given still reads them after Compile returns.
func TestCompileIndexed(t *testing.T) {
	objs := bigWorld(t)[:5_000]
	es := entriesOf(t, objs[:4_000])
	var calls int
	var seen iter.Seq[Entry]
	w, err := Compile(Input{Scope: "s", Base: es, Staged: objs[4_000:], Indexed: func(entries iter.Seq[Entry]) {
		calls++
		seen = entries
	}})
	if err != nil {
		t.Fatal(err)
	}
	var got, want []Entry
	for e := range seen {
		got = append(got, e)
	}
	for e := range w.Objects() {
		want = append(want, e)
	}
	if calls != 1 || len(want) < 4_000 || !slices.EqualFunc(got, want, func(a, b Entry) bool { return a.ID == b.ID && a.Staged == b.Staged }) {
		t.Fatalf("%d calls; the hook's sequence has %d entries, the world %d", calls, len(got), len(want))
	}
}
