// This file holds the round-trip property test: a seeded generator of
// random valid objects of every type (non-ASCII ids and text, quotes,
// backslashes, repeated and unsorted sets) whose canonical bytes must
// decode back to the normalized object, be a fixpoint of jcs.Transform and
// match an independent canonicalization built on encoding/json.

package objects

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/deloreis/deloreis/jcs"
)

// gen makes random valid objects.
type gen struct{ r *rand.Rand }

var (
	idFirst = []rune("abcxyzABCXYZ0189éßÆøλΩжя日本語한글٣")
	idRest  = append(slices.Clone(idFirst), []rune("-_\u0301\u0308\u093f")...)
	textRs  = []rune("abc XYZ 019 \"\\/'<>&{}[]:,.é€𝄞😀\u2028\u00a0\ufeff日本")
)

// pick returns a random element of s.
func pick[T any](g *gen, s []T) T { return s[g.r.IntN(len(s))] }

// id returns a random valid id.
func (g *gen) id() string {
	var b strings.Builder
	b.WriteRune(pick(g, idFirst))
	for n := g.r.IntN(12); n > 0; n-- {
		b.WriteRune(pick(g, idRest))
	}
	return b.String()
}

// text returns random non-empty free text.
func (g *gen) text() string {
	var b strings.Builder
	for n := 1 + g.r.IntN(30); n > 0; n-- {
		b.WriteRune(pick(g, textRs))
	}
	return b.String()
}

// maybe returns s or "" with even odds.
func (g *gen) maybe(s string) string {
	if g.r.IntN(2) == 0 {
		return ""
	}
	return s
}

// prov returns a random provenance; cited sets come unsorted with repeats.
func (g *gen) prov() *Provenance {
	switch g.r.IntN(3) {
	case 0:
		return Proposed(g.id())
	case 1:
		return Hypothetical(g.id())
	}
	ds := make([]string, 1+g.r.IntN(4))
	for i := range ds {
		if i > 0 && g.r.IntN(3) == 0 {
			ds[i] = ds[g.r.IntN(i)]
		} else {
			ds[i] = g.id()
		}
	}
	return Cited(pick(g, []CitedState{CitedProvisional, CitedRatified}), ds...)
}

// objectID returns a random non-zero object ID.
func (g *gen) objectID() ID {
	var id ID
	for i := range id {
		id[i] = byte(g.r.IntN(256))
	}
	id[0] |= 1
	return id
}

// atom returns a random rule atom.
func (g *gen) atom() Atom {
	a := Atom{Pred: g.id()}
	for n := g.r.IntN(4); n > 0; n-- {
		if g.r.IntN(2) == 0 {
			a.Args = append(a.Args, Var(g.id()))
		} else {
			a.Args = append(a.Args, Const(g.text()))
		}
	}
	return a
}

// question returns a random question with unique option ids.
func (g *gen) question() *Question {
	q := &Question{Ident: g.id(), Prompt: g.text()}
	for i := range g.r.IntN(5) {
		o := Option{Ident: fmt.Sprintf("%s%d", g.id(), i), Label: g.text()}
		if g.r.IntN(2) == 0 {
			o.Implies = &GroundAtom{Pred: g.id()}
			for n := g.r.IntN(3); n > 0; n-- {
				o.Implies.Args = append(o.Implies.Args, g.text())
			}
		}
		q.Options = append(q.Options, o)
	}
	return q
}

// object returns a random valid object of type t.
func (g *gen) object(t Type) Object {
	switch t {
	case TypeEntity:
		return &Entity{Kind: pick(g, []EntityKind{KindPerson, KindPlace, KindThing, KindEra}), Ident: g.id(), Name: g.text(), Provenance: g.prov()}
	case TypeFact:
		return &Fact{Entity: g.id(), Key: g.id(), Value: g.text(), Provenance: g.prov()}
	case TypeRelation:
		return &Relation{Relation: g.id(), From: g.id(), To: g.id(), Provenance: g.prov()}
	case TypeEvent:
		return &Event{Ident: g.id(), Era: g.id(), Provenance: g.prov()}
	case TypeBefore:
		return &Before{Earlier: g.id(), Later: g.id(), Provenance: g.prov()}
	case TypeQuestion:
		return g.question()
	case TypeHypothesis:
		return &Hypothesis{Ident: g.id(), Statement: g.text()}
	case TypeRule:
		r := &Rule{Name: g.id(), Head: g.atom(), Provenance: g.prov()}
		for n := 1 + g.r.IntN(3); n > 0; n-- {
			r.Body = append(r.Body, Literal{Atom: g.atom(), Negated: g.r.IntN(2) == 0})
		}
		return r
	case TypeFunctional:
		return &Functional{Pred: g.id(), Provenance: g.prov()}
	case TypeInertial:
		return &Inertial{Pred: g.id(), Provenance: g.prov()}
	case TypeSameAs:
		return &SameAs{Left: g.id(), Right: g.id(), Provenance: g.prov()}
	case TypePredicateSameAs:
		return &PredicateSameAs{Left: g.id(), Right: g.id(), Provenance: g.prov()}
	case TypeState:
		return &State{Entity: g.id(), Key: g.id(), Value: g.text(), Since: g.maybe(g.id()), Until: g.maybe(g.id()), Provenance: g.prov()}
	case TypeDecision:
		d := &Decision{Ident: g.id(), Rationale: g.maybe(g.text())}
		if g.r.IntN(2) == 0 {
			d.Provenance = g.prov()
		}
		return d
	case TypeAttack:
		return &Attack{Attacker: g.id(), Target: g.id(), Claim: g.objectID()}
	case TypeStanding:
		return &Standing{Claim: g.objectID(), Standing: pick(g, []StandingValue{StandingProvisional, StandingRatified, StandingDefeated}), Decision: g.id()}
	case TypeRatify:
		r := &Ratify{Decision: g.id()}
		for n := 1 + g.r.IntN(4); n > 0; n-- {
			r.Claims = append(r.Claims, g.objectID())
		}
		if g.r.IntN(2) == 0 {
			r.Claims = append(r.Claims, r.Claims[0])
		}
		return r
	}
	if o := g.languageObject(t); o != nil {
		return o // language_test.go
	}
	panic("gen: unknown type " + t)
}

// normalize returns a copy of o in the form Decode returns: sets sorted
// without repeats, empty slices nil.
func normalize(o Object) Object {
	v := reflect.New(reflect.TypeOf(o).Elem())
	v.Elem().Set(reflect.ValueOf(o).Elem())
	normalizeValue(v.Elem())
	return v.Interface().(Object)
}

// normalizeValue normalizes v in place, copying every slice it changes.
func normalizeValue(v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer:
		if !v.IsNil() {
			c := reflect.New(v.Type().Elem())
			c.Elem().Set(v.Elem())
			normalizeValue(c.Elem())
			v.Set(c)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			normalizeValue(v.Field(i))
		}
		switch x := v.Addr().Interface().(type) {
		case *Provenance:
			if x.Decisions != nil {
				x.Decisions = normalStrings(x.Decisions)
			}
		case *Ratify:
			x.Claims = normalIDs(x.Claims)
		case *Dialect:
			normalizeDialect(x) // language_test.go
		}
	case reflect.Slice:
		if v.Len() == 0 {
			v.Set(reflect.Zero(v.Type()))
			return
		}
		c := reflect.MakeSlice(v.Type(), v.Len(), v.Len())
		reflect.Copy(c, v)
		for i := range c.Len() {
			normalizeValue(c.Index(i))
		}
		v.Set(c)
	}
}

func TestRoundTrip(t *testing.T) {
	g := &gen{r: rand.New(rand.NewPCG(8785, 3))}
	n := 300
	if testing.Short() {
		n = 30
	}
	for _, typ := range Types() {
		for range n {
			o := g.object(typ)
			checkRoundTrip(t, o)
			if t.Failed() {
				return
			}
		}
	}
}

// checkRoundTrip checks every property of the canonical form of o.
func checkRoundTrip(t *testing.T, o Object) {
	t.Helper()
	b, err := Canonical(o)
	if err != nil {
		t.Fatalf("Canonical(%#v): %v", o, err)
	}
	d, err := Decode(b)
	if err != nil {
		t.Fatalf("Decode(%s): %v", b, err)
	}
	if want := normalize(o); !reflect.DeepEqual(d, want) {
		t.Fatalf("Decode(Canonical(o)) = %#v\nwant %#v", d, want)
	}
	if b2, err := Canonical(d); err != nil || !bytes.Equal(b, b2) {
		t.Fatalf("Canonical(Decode(b)) = %s, %v\nwant %s", b2, err, b)
	}
	if tr, err := jcs.Transform(b); err != nil || !bytes.Equal(tr, b) {
		t.Fatalf("jcs.Transform(b) = %s, %v\nwant %s", tr, err, b)
	}
	if ref := referenceCanonical(t, b); !bytes.Equal(ref, b) {
		t.Fatalf("reference canonical form\n %s\nwant %s", ref, b)
	}
	if id, err := o.ID(); err != nil || id != idFromDigest(jcs.Sum(b)) {
		t.Fatalf("ID = %s, %v; want the BLAKE3-256 of the canonical bytes", id, err)
	}
	// Re-serialized by encoding/json (HTML escapes, \u2028, other spacing),
	// the object still decodes to the same value.
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	other, _ := json.MarshalIndent(v, " ", "\t")
	if d2, err := Decode(other); err != nil || !reflect.DeepEqual(d2, d) {
		t.Fatalf("Decode(%s) = %#v, %v; want %#v", other, d2, err, d)
	}
}

// referenceCanonical canonicalizes data independently of this package and
// of jcs: encoding/json parses, and the writer below sorts keys by UTF-16
// code units and escapes strings as RFC 8785 section 3.2.2.2 says.
func referenceCanonical(t *testing.T, data []byte) []byte {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	writeReference(t, &b, v)
	return b.Bytes()
}

// writeReference writes v canonically.
func writeReference(t *testing.T, b *bytes.Buffer, v any) {
	switch v := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Slice(keys, func(i, j int) bool {
			return slices.Compare(utf16.Encode([]rune(keys[i])), utf16.Encode([]rune(keys[j]))) < 0
		})
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteByte(',')
			}
			writeReferenceString(b, k)
			b.WriteByte(':')
			writeReference(t, b, v[k])
		}
		b.WriteByte('}')
	case []any:
		b.WriteByte('[')
		for i, e := range v {
			if i > 0 {
				b.WriteByte(',')
			}
			writeReference(t, b, e)
		}
		b.WriteByte(']')
	case string:
		writeReferenceString(b, v)
	case bool:
		fmt.Fprint(b, v)
	case nil:
		b.WriteString("null")
	case json.Number:
		// Only integers within ±2^53 occur (ledger amounts, syllable
		// bounds); ECMAScript writes them as plain decimal digits.
		n, err := strconv.ParseInt(string(v), 10, 64)
		if err != nil || n > 1<<53 || n < -(1<<53) {
			t.Fatalf("number %s is not an exact integer", v)
		}
		b.WriteString(strconv.FormatInt(n, 10))
	default:
		t.Fatalf("unexpected value %T in an object", v)
	}
}

// writeReferenceString writes s with the RFC 8785 escapes.
func writeReferenceString(b *bytes.Buffer, s string) {
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			if r < 0x20 {
				fmt.Fprintf(b, `\u%04x`, r)
			} else {
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
}
