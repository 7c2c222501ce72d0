// This file holds the declaration parsers: the first line of every kind
// of declaration, the option and claim continuation lines, atoms and rule
// terms, and the slabs the parsed objects are carved from.

package dli

import (
	"unicode"
	"unicode/utf8"

	"github.com/deloreis/deloreis/objects"
)

// slabSize is how many objects of one type a slab holds.
const slabSize = 32

// carve returns a pointer to a fresh zero T from the slab s, starting a new
// slab when s is full: one allocation serves slabSize declarations.
func carve[T any](s *[]T) *T {
	if len(*s) == cap(*s) {
		*s = make([]T, 0, slabSize)
	}
	var zero T
	*s = append(*s, zero)
	return &(*s)[len(*s)-1]
}

// chunk holds the current slab of each common declaration type.
type chunk struct {
	entities  []objects.Entity
	facts     []objects.Fact
	relations []objects.Relation
	events    []objects.Event
	befores   []objects.Before
	states    []objects.State
}

// head reads the first line of a declaration, up to its provenance or the
// end of the line, and sets d.obj as soon as the kind is known. It
// reports false on an error.
func (p *parser) head(d *declState) bool {
	t := p.tok
	if t.kind != tSymbol {
		p.errExpected("a declaration")
		return false
	}
	switch next := p.peek(); {
	case next.kind == tDot:
		return p.fact(d)
	case next.kind == tLParen && !isAtomKeyword(t.text):
		return p.relation(d)
	}
	switch t.text {
	case string(objects.KindPerson), string(objects.KindPlace), string(objects.KindThing), string(objects.KindEra):
		return p.entity(d)
	case kwRelation:
		p.next()
		return p.relation(d)
	case kwEvent:
		return p.event(d)
	case kwBefore, kwSameAs, kwPredicateSameAs:
		return p.pair(d)
	case kwQuestion, kwHypothesis:
		return p.question(d)
	case kwRule:
		return p.rule(d)
	case kwFunctional, kwInertial:
		return p.predDecl(d)
	case kwState:
		return p.state(d)
	case kwDecision:
		return p.decision(d)
	case kwAttack, kwStanding:
		return p.ledger(d)
	case kwRatify:
		return p.ratify(d)
	case kwDialect, kwWord, kwName, kwDerivation, kwLedger:
		return p.language(d) // language.go
	}
	p.errorAt(t.pos, "expected a declaration (an entity kind, `event`, `before`, `question`, `hypothesis`, `rule`, "+
		"`functional`, `inertial`, `same-as`, `predicate-same-as`, `state`, `decision`, `attack`, `standing`, "+
		"`ratify`, a fact `entity.key = value` or a relation `name(from, to)`), found "+t.describe())
	return false
}

// entity reads `<kind> <id> "<name>"`.
func (p *parser) entity(d *declState) bool {
	x := carve(&p.chunk.entities)
	x.Kind = objects.EntityKind(p.tok.text)
	d.what, d.obj, d.prov = "entity", x, &x.Provenance
	kw := p.tok.text
	p.leaf(p.tok)
	p.next()
	var ok bool
	if x.Ident, ok = p.ident("entity id after `", kw, "`"); !ok {
		return false
	}
	x.Name, ok = p.text("non-empty quoted name after the entity id")
	return ok
}

// factHead reads `<entity>.<key> = <value>`, for facts and states.
func (p *parser) factHead(entity, key, value *string) bool {
	var ok bool
	if *entity, ok = p.ident("entity id"); !ok {
		return false
	}
	if !p.want(tDot, "`.` after the entity id") {
		return false
	}
	if *key, ok = p.ident("key after `.`"); !ok {
		return false
	}
	*key = p.shared(*key)
	if !p.want(tEquals, "`=` after the key") {
		return false
	}
	*value, ok = p.value("value after `=`")
	return ok
}

// fact reads `<entity>.<key> = <value>`.
func (p *parser) fact(d *declState) bool {
	x := carve(&p.chunk.facts)
	d.what, d.obj, d.prov = "fact", x, &x.Provenance
	return p.factHead(&x.Entity, &x.Key, &x.Value)
}

// relation reads `<relation>(<from>, <to>)`.
func (p *parser) relation(d *declState) bool {
	x := carve(&p.chunk.relations)
	d.what, d.obj, d.prov = "relation", x, &x.Provenance
	var ok bool
	if x.Relation, ok = p.ident("relation name"); !ok {
		return false
	}
	x.Relation = p.shared(x.Relation)
	return p.args2(&x.From, &x.To, "relation")
}

// args2 reads `(<a>, <b>)` of two ids; what names the form in messages.
func (p *parser) args2(a, b *string, what string) bool {
	if !p.want(tLParen, "`(` after the ", what, " name") {
		return false
	}
	var ok bool
	if *a, ok = p.ident("first ", what, " argument"); !ok {
		return false
	}
	if !p.want(tComma, "`,` between ", what, " arguments") {
		return false
	}
	if *b, ok = p.ident("second ", what, " argument"); !ok {
		return false
	}
	return p.want(tRParen, "`)` after ", what, " arguments")
}

// event reads `event <id> during <era>`.
func (p *parser) event(d *declState) bool {
	x := carve(&p.chunk.events)
	d.what, d.obj, d.prov = "event", x, &x.Provenance
	p.next()
	var ok bool
	if x.Ident, ok = p.ident("event id after `event`"); !ok {
		return false
	}
	if !p.word(kwDuring, "the event id") {
		return false
	}
	x.Era, ok = p.ident("era id after `during`")
	return ok
}

// pair reads `before(<earlier>, <later>)`, `same-as(<left>, <right>)` or
// `predicate-same-as(<left>, <right>)`.
func (p *parser) pair(d *declState) bool {
	kw := p.tok.text
	d.what = kw
	var a, b *string
	switch kw {
	case kwBefore:
		x := carve(&p.chunk.befores)
		d.obj, d.prov, a, b = x, &x.Provenance, &x.Earlier, &x.Later
	case kwSameAs:
		x := &objects.SameAs{}
		d.obj, d.prov, a, b = x, &x.Provenance, &x.Left, &x.Right
	default:
		x := &objects.PredicateSameAs{}
		d.obj, d.prov, a, b = x, &x.Provenance, &x.Left, &x.Right
	}
	p.next()
	return p.args2(a, b, kw)
}

// question reads `question <id> "<prompt>"` or `hypothesis <id>
// "<statement>"`; a question's options follow on indented lines.
func (p *parser) question(d *declState) bool {
	kw := p.tok.text
	var id, text *string
	what := "non-empty quoted prompt after the question id"
	if kw == kwQuestion {
		x := &objects.Question{}
		d.what, d.obj, d.options, id, text = "question", x, &x.Options, &x.Ident, &x.Prompt
	} else {
		x := &objects.Hypothesis{}
		d.what, d.obj, id, text = "hypothesis", x, &x.Ident, &x.Statement
		what = "non-empty quoted statement after the hypothesis id"
	}
	p.next()
	var ok bool
	if *id, ok = p.ident(kw, " id after `", kw, "`"); !ok {
		return false
	}
	*text, ok = p.text(what)
	return ok
}

// option reads `option <id> "<label>" [implies <pred>(<arg>, …)]`.
func (p *parser) option(d *declState) bool {
	pos := p.tok.pos
	line := p.open(p.tok)
	p.next()
	var o objects.Option
	var ok bool
	if o.Ident, ok = p.ident("option id after `option`"); !ok {
		return false
	}
	if o.Label, ok = p.text("non-empty quoted label after the option id"); !ok {
		return false
	}
	if p.tok.kind == tSymbol && p.tok.text == kwImplies {
		p.next()
		a, ok := p.groundAtom()
		if !ok {
			return false
		}
		o.Implies = a
	}
	p.close(line)
	if d.repeatsOption(o.Ident) {
		p.errorAt(pos, "option `"+shorten(o.Ident)+"` repeats an earlier option of this question")
		return false
	}
	*d.options = append(*d.options, o)
	return true
}

// repeatsOption reports whether a question already has an option id,
// and notes it. Short lists are searched; long ones go through a set, so a
// question with many options is read in linear time.
func (d *declState) repeatsOption(id string) bool {
	opts := *d.options
	if d.optionIDs == nil && len(opts) < 16 {
		for i := range opts {
			if opts[i].Ident == id {
				return true
			}
		}
		return false
	}
	if d.optionIDs == nil {
		d.optionIDs = make(map[string]struct{}, 2*len(opts))
		for i := range opts {
			d.optionIDs[opts[i].Ident] = struct{}{}
		}
	}
	if _, ok := d.optionIDs[id]; ok {
		return true
	}
	d.optionIDs[id] = struct{}{}
	return false
}

// groundAtom reads `<pred>(<value>, …)`, whose arguments are constants.
func (p *parser) groundAtom() (*objects.GroundAtom, bool) {
	a := &objects.GroundAtom{}
	whole := p.open(p.tok)
	var ok bool
	if a.Pred, ok = p.ident("predicate after `implies`"); !ok {
		return nil, false
	}
	if !p.want(tLParen, "`(` after the predicate name") {
		return nil, false
	}
	for p.tok.kind != tRParen {
		if len(a.Args) > 0 && !p.want(tComma, "`,` or `)` after an argument of ", a.Pred) {
			return nil, false
		}
		if p.tok.kind == tVar {
			p.errorAt(p.tok.pos, "an implied atom is ground: it takes constants, not variables")
			return nil, false
		}
		v, ok := p.value("argument of ", a.Pred)
		if !ok {
			return nil, false
		}
		a.Args = append(a.Args, v)
	}
	p.next()
	p.close(whole)
	return a, true
}

// rule reads `rule <name>: <head> :- <literal>, …`.
func (p *parser) rule(d *declState) bool {
	x := &objects.Rule{}
	d.what, d.obj, d.prov = "rule", x, &x.Provenance
	p.next()
	var ok bool
	if x.Name, ok = p.ident("rule name after `rule`"); !ok {
		return false
	}
	if !p.want(tColon, "`:` after the rule name") {
		return false
	}
	if x.Head, ok = p.atom("rule head"); !ok {
		return false
	}
	if !p.want(tImplies, "`:-` after the rule head") {
		return false
	}
	x.Body = make([]objects.Literal, 0, 2)
	for {
		var l objects.Literal
		lit := p.open(p.tok)
		if p.tok.kind == tSymbol && p.tok.text == kwNot && p.peek().kind == tSymbol {
			l.Negated = true
			p.next()
		}
		if l.Atom, ok = p.atom("body literal"); !ok {
			return false
		}
		p.close(lit)
		x.Body = append(x.Body, l)
		if p.tok.kind != tComma {
			return true
		}
		p.next()
	}
}

// atom reads `<pred>(<term>, …)` of a rule.
func (p *parser) atom(what string) (objects.Atom, bool) {
	var a objects.Atom
	whole := p.open(p.tok)
	var ok bool
	if a.Pred, ok = p.ident("predicate of the ", what); !ok {
		return a, false
	}
	if !p.want(tLParen, "`(` after the predicate name") {
		return a, false
	}
	for p.tok.kind != tRParen {
		if len(a.Args) > 0 && !p.want(tComma, "`,` or `)` after an argument of ", a.Pred) {
			return a, false
		}
		t, ok := p.term(a.Pred)
		if !ok {
			return a, false
		}
		a.Args = append(a.Args, t)
	}
	p.next()
	p.close(whole)
	return a, true
}

// term reads a rule argument: `?name` or a symbol starting with an upper
// case letter is a variable; another symbol, or a quoted string, is a
// constant.
func (p *parser) term(pred string) (objects.Term, bool) {
	switch p.tok.kind {
	case tVar:
		if !objects.ValidID(p.tok.text) {
			p.errorAt(p.tok.pos, invalidID(p.tok.text))
			return objects.Term{}, false
		}
		t := objects.Var(p.tok.text)
		p.leaf(p.tok)
		p.next()
		return t, true
	case tSymbol:
		if isVarName(p.tok.text) {
			v, ok := p.ident("variable")
			return objects.Var(v), ok
		}
	}
	v, ok := p.value("argument of ", pred)
	return objects.Const(v), ok
}

// isVarName reports whether a bare symbol in a rule is a variable: its
// first character is an upper case letter.
func isVarName(s string) bool {
	if s == "" {
		return false
	}
	if c := s[0]; c < utf8.RuneSelf {
		return 'A' <= c && c <= 'Z'
	}
	r, _ := utf8.DecodeRuneInString(s)
	return unicode.IsUpper(r)
}

// predDecl reads `functional <pred>` or `inertial <pred>`.
func (p *parser) predDecl(d *declState) bool {
	kw := p.tok.text
	var pred *string
	if kw == kwFunctional {
		x := &objects.Functional{}
		d.obj, d.prov, pred = x, &x.Provenance, &x.Pred
	} else {
		x := &objects.Inertial{}
		d.obj, d.prov, pred = x, &x.Provenance, &x.Pred
	}
	d.what = kw + " declaration"
	p.next()
	var ok bool
	*pred, ok = p.ident("predicate after `", kw, "`")
	return ok
}

// state reads `state <entity>.<key> = <value> [since <a>] [until <b>]`.
func (p *parser) state(d *declState) bool {
	x := carve(&p.chunk.states)
	d.what, d.obj, d.prov = "state", x, &x.Provenance
	p.next()
	if !p.factHead(&x.Entity, &x.Key, &x.Value) {
		return false
	}
	var ok bool
	if p.tok.kind == tSymbol && p.tok.text == kwSince {
		p.next()
		if x.Since, ok = p.ident("anchor after `since`"); !ok {
			return false
		}
	}
	if p.tok.kind == tSymbol && p.tok.text == kwUntil {
		p.next()
		if x.Until, ok = p.ident("anchor after `until`"); !ok {
			return false
		}
	}
	return true
}

// decision reads `decision <id> ["<rationale>"]`; its provenance is
// optional.
func (p *parser) decision(d *declState) bool {
	x := &objects.Decision{}
	d.what, d.obj, d.prov, d.provOpt = "decision", x, &x.Provenance, true
	p.next()
	var ok bool
	if x.Ident, ok = p.ident("decision id after `decision`"); !ok {
		return false
	}
	if p.tok.kind == tString {
		x.Rationale, ok = p.text("non-empty quoted rationale after the decision id")
	}
	return ok
}

// ledger reads `attack <attacker> against <target> on <claim>` or
// `standing <claim> <standing> by <decision>`.
func (p *parser) ledger(d *declState) bool {
	var ok bool
	if p.tok.text == kwAttack {
		x := &objects.Attack{}
		d.what, d.obj = "attack", x
		p.next()
		if x.Attacker, ok = p.ident("attacking decision after `attack`"); !ok || !p.word(kwAgainst, "the attacking decision") {
			return false
		}
		if x.Target, ok = p.ident("attacked decision after `against`"); !ok || !p.word(kwOn, "the attacked decision") {
			return false
		}
		x.Claim, ok = p.objectID("claim object id after `on`")
		return ok
	}
	x := &objects.Standing{}
	d.what, d.obj = "standing", x
	p.next()
	if x.Claim, ok = p.objectID("claim object id after `standing`"); !ok {
		return false
	}
	switch s := objects.StandingValue(p.tok.text); {
	case p.tok.kind == tSymbol && (s == objects.StandingProvisional || s == objects.StandingRatified || s == objects.StandingDefeated):
		x.Standing = s
		p.leaf(p.tok)
		p.next()
	default:
		p.errExpected("`provisional`, `ratified` or `defeated` after the claim id")
		return false
	}
	if !p.word(kwBy, "the standing") {
		return false
	}
	x.Decision, ok = p.ident("decision id after `by`")
	return ok
}

// ratify reads `ratify <decision>`; its claims follow on indented lines.
func (p *parser) ratify(d *declState) bool {
	x := &objects.Ratify{}
	d.what, d.obj, d.claims = "ratify", x, &x.Claims
	p.next()
	var ok bool
	x.Decision, ok = p.ident("decision id after `ratify`")
	return ok
}

// ratifiedClaim reads `claim <object-id>` below ratify.
func (p *parser) ratifiedClaim(d *declState) bool {
	p.next()
	id, ok := p.objectID("claim object id after `claim`")
	if ok {
		*d.claims = append(*d.claims, id)
	}
	return ok
}

// objectID reads an object id: 64 lowercase hex digits.
func (p *parser) objectID(what string) (objects.ID, bool) {
	if p.tok.kind != tSymbol {
		p.errExpected(what)
		return objects.ID{}, false
	}
	id, err := objects.ParseID(p.tok.text)
	if err != nil {
		p.errorAt(p.tok.pos, "`"+shorten(p.tok.text)+"` is not an object id: an object id is 64 lowercase hex digits")
		return objects.ID{}, false
	}
	p.leaf(p.tok)
	p.next()
	return id, true
}
