// This file holds the simple claims — entity, fact, relation, event, before,
// functional, inertial, same_as, predicate_same_as and state — each a flat
// record of ids, free text and a provenance.
//
// Decode's fast path vouches for these types' validity from the bytes of
// their values (vouch, decode_fast.go): a rule added to one of their
// Validate methods must be added there too.

package objects

// EntityKind is the kind of an entity.
type EntityKind string

// The entity kinds. Events are not entities; they enter as Event.
const (
	KindPerson EntityKind = "person"
	KindPlace  EntityKind = "place"
	KindThing  EntityKind = "thing"
	KindEra    EntityKind = "era"
)

// validEntityKind reports whether k is an entity kind.
func validEntityKind(k EntityKind) bool {
	return k == KindPerson || k == KindPlace || k == KindThing || k == KindEra
}

// Entity introduces an entity of a kind (author.add_entity):
// {"id","kind","name","provenance","type":"entity"}.
type Entity struct {
	Kind       EntityKind // person, place, thing or era
	Ident      string     // JSON "id": the entity id
	Name       string     // free text: how the entity is called
	Provenance *Provenance
}

// Type returns TypeEntity.
func (*Entity) Type() Type { return TypeEntity }

// Validate checks every field of x.
func (x *Entity) Validate() error {
	c := checker{typ: TypeEntity}
	c.id("id", x.Ident)
	c.enum("kind", string(x.Kind), validEntityKind(x.Kind), "person, place, thing, era")
	c.text("name", x.Name, true)
	x.Provenance.check(&c)
	return c.err()
}

// AppendCanonical validates x and appends its canonical JSON to dst.
func (x *Entity) AppendCanonical(dst []byte) ([]byte, error) {
	if err := x.Validate(); err != nil {
		return dst, err
	}
	e := enc{b: dst}
	e.raw(`{"id":`)
	e.str(x.Ident)
	e.raw(`,"kind":`)
	e.str(string(x.Kind))
	e.raw(`,"name":`)
	e.str(x.Name)
	e.raw(`,"provenance":`)
	e.prov(x.Provenance)
	e.raw(`,"type":"entity"}`)
	return e.done(dst)
}

// ID returns the BLAKE3-256 of x's canonical bytes.
func (x *Entity) ID() (ID, error) { return idOf(x) }

// Fact asserts a keyed value on one entity (author.add_fact); it lowers to
// key(entity, value): {"entity","key","provenance","type":"fact","value"}.
type Fact struct {
	Entity     string // the entity id
	Key        string // the key (a predicate name)
	Value      string // free text
	Provenance *Provenance
}

// Type returns TypeFact.
func (*Fact) Type() Type { return TypeFact }

// Validate checks every field of x.
func (x *Fact) Validate() error {
	c := checker{typ: TypeFact}
	c.id("entity", x.Entity)
	c.id("key", x.Key)
	c.text("value", x.Value, true)
	x.Provenance.check(&c)
	return c.err()
}

// AppendCanonical validates x and appends its canonical JSON to dst.
func (x *Fact) AppendCanonical(dst []byte) ([]byte, error) {
	if err := x.Validate(); err != nil {
		return dst, err
	}
	e := enc{b: dst}
	e.raw(`{"entity":`)
	e.str(x.Entity)
	e.raw(`,"key":`)
	e.str(x.Key)
	e.raw(`,"provenance":`)
	e.prov(x.Provenance)
	e.raw(`,"type":"fact","value":`)
	e.str(x.Value)
	e.raw(`}`)
	return e.done(dst)
}

// ID returns the BLAKE3-256 of x's canonical bytes.
func (x *Fact) ID() (ID, error) { return idOf(x) }

// Relation asserts a binary relation between two entities
// (author.add_relation); it lowers to relation(from, to):
// {"from","provenance","relation","to","type":"relation"}.
type Relation struct {
	Relation   string // the relation name
	From       string // entity id
	To         string // entity id
	Provenance *Provenance
}

// Type returns TypeRelation.
func (*Relation) Type() Type { return TypeRelation }

// Validate checks every field of x.
func (x *Relation) Validate() error {
	c := checker{typ: TypeRelation}
	c.id("from", x.From)
	x.Provenance.check(&c)
	c.id("relation", x.Relation)
	c.id("to", x.To)
	return c.err()
}

// AppendCanonical validates x and appends its canonical JSON to dst.
func (x *Relation) AppendCanonical(dst []byte) ([]byte, error) {
	if err := x.Validate(); err != nil {
		return dst, err
	}
	e := enc{b: dst}
	e.raw(`{"from":`)
	e.str(x.From)
	e.raw(`,"provenance":`)
	e.prov(x.Provenance)
	e.raw(`,"relation":`)
	e.str(x.Relation)
	e.raw(`,"to":`)
	e.str(x.To)
	e.raw(`,"type":"relation"}`)
	return e.done(dst)
}

// ID returns the BLAKE3-256 of x's canonical bytes.
func (x *Relation) ID() (ID, error) { return idOf(x) }

// Event introduces a chronology point anchored to an era
// (author.add_event): {"era","id","provenance","type":"event"}.
type Event struct {
	Ident      string // JSON "id": the event id
	Era        string // the era entity id
	Provenance *Provenance
}

// Type returns TypeEvent.
func (*Event) Type() Type { return TypeEvent }

// Validate checks every field of x.
func (x *Event) Validate() error {
	c := checker{typ: TypeEvent}
	c.id("era", x.Era)
	c.id("id", x.Ident)
	x.Provenance.check(&c)
	return c.err()
}

// AppendCanonical validates x and appends its canonical JSON to dst.
func (x *Event) AppendCanonical(dst []byte) ([]byte, error) {
	if err := x.Validate(); err != nil {
		return dst, err
	}
	e := enc{b: dst}
	e.raw(`{"era":`)
	e.str(x.Era)
	e.raw(`,"id":`)
	e.str(x.Ident)
	e.raw(`,"provenance":`)
	e.prov(x.Provenance)
	e.raw(`,"type":"event"}`)
	return e.done(dst)
}

// ID returns the BLAKE3-256 of x's canonical bytes.
func (x *Event) ID() (ID, error) { return idOf(x) }

// Before orders one event before another (author.add_before):
// {"earlier","later","provenance","type":"before"}.
type Before struct {
	Earlier    string // event id
	Later      string // event id
	Provenance *Provenance
}

// Type returns TypeBefore.
func (*Before) Type() Type { return TypeBefore }

// Validate checks every field of x.
func (x *Before) Validate() error {
	c := checker{typ: TypeBefore}
	c.id("earlier", x.Earlier)
	c.id("later", x.Later)
	x.Provenance.check(&c)
	return c.err()
}

// AppendCanonical validates x and appends its canonical JSON to dst.
func (x *Before) AppendCanonical(dst []byte) ([]byte, error) {
	if err := x.Validate(); err != nil {
		return dst, err
	}
	e := enc{b: dst}
	e.raw(`{"earlier":`)
	e.str(x.Earlier)
	e.raw(`,"later":`)
	e.str(x.Later)
	e.raw(`,"provenance":`)
	e.prov(x.Provenance)
	e.raw(`,"type":"before"}`)
	return e.done(dst)
}

// ID returns the BLAKE3-256 of x's canonical bytes.
func (x *Before) ID() (ID, error) { return idOf(x) }

// Functional declares a predicate a functional dependency
// (author.declare_functional): {"pred","provenance","type":"functional"}.
type Functional struct {
	Pred       string // the predicate name
	Provenance *Provenance
}

// Type returns TypeFunctional.
func (*Functional) Type() Type { return TypeFunctional }

// Validate checks every field of x.
func (x *Functional) Validate() error { return checkPredDecl(TypeFunctional, x.Pred, x.Provenance) }

// AppendCanonical validates x and appends its canonical JSON to dst.
func (x *Functional) AppendCanonical(dst []byte) ([]byte, error) {
	return appendPredDecl(dst, TypeFunctional, x.Pred, x.Provenance)
}

// ID returns the BLAKE3-256 of x's canonical bytes.
func (x *Functional) ID() (ID, error) { return idOf(x) }

// Inertial declares a fluent predicate inertial
// (author.declare_inertial): {"pred","provenance","type":"inertial"}.
type Inertial struct {
	Pred       string // the predicate name
	Provenance *Provenance
}

// Type returns TypeInertial.
func (*Inertial) Type() Type { return TypeInertial }

// Validate checks every field of x.
func (x *Inertial) Validate() error { return checkPredDecl(TypeInertial, x.Pred, x.Provenance) }

// AppendCanonical validates x and appends its canonical JSON to dst.
func (x *Inertial) AppendCanonical(dst []byte) ([]byte, error) {
	return appendPredDecl(dst, TypeInertial, x.Pred, x.Provenance)
}

// ID returns the BLAKE3-256 of x's canonical bytes.
func (x *Inertial) ID() (ID, error) { return idOf(x) }

// checkPredDecl validates a functional or inertial declaration.
func checkPredDecl(t Type, pred string, p *Provenance) error {
	c := checker{typ: t}
	c.id("pred", pred)
	p.check(&c)
	return c.err()
}

// appendPredDecl encodes a functional or inertial declaration.
func appendPredDecl(dst []byte, t Type, pred string, p *Provenance) ([]byte, error) {
	if err := checkPredDecl(t, pred, p); err != nil {
		return dst, err
	}
	e := enc{b: dst}
	e.raw(`{"pred":`)
	e.str(pred)
	e.raw(`,"provenance":`)
	e.prov(p)
	e.raw(`,"type":"`)
	e.raw(string(t))
	e.raw(`"}`)
	return e.done(dst)
}

// SameAs asserts that two entity ids name the same bearer
// (author.assert_same_as): {"left","provenance","right","type":"same_as"}.
type SameAs struct {
	Left       string // entity id
	Right      string // entity id
	Provenance *Provenance
}

// Type returns TypeSameAs.
func (*SameAs) Type() Type { return TypeSameAs }

// Validate checks every field of x. Left equal to Right is valid here; the
// world reports it as a self-merge.
func (x *SameAs) Validate() error { return checkPair(TypeSameAs, x.Left, x.Right, x.Provenance) }

// AppendCanonical validates x and appends its canonical JSON to dst.
func (x *SameAs) AppendCanonical(dst []byte) ([]byte, error) {
	return appendPair(dst, TypeSameAs, x.Left, x.Right, x.Provenance)
}

// ID returns the BLAKE3-256 of x's canonical bytes.
func (x *SameAs) ID() (ID, error) { return idOf(x) }

// PredicateSameAs asserts that two predicate names name the same property
// (author.assert_predicate_same_as):
// {"left","provenance","right","type":"predicate_same_as"}.
type PredicateSameAs struct {
	Left       string // predicate name
	Right      string // predicate name
	Provenance *Provenance
}

// Type returns TypePredicateSameAs.
func (*PredicateSameAs) Type() Type { return TypePredicateSameAs }

// Validate checks every field of x.
func (x *PredicateSameAs) Validate() error {
	return checkPair(TypePredicateSameAs, x.Left, x.Right, x.Provenance)
}

// AppendCanonical validates x and appends its canonical JSON to dst.
func (x *PredicateSameAs) AppendCanonical(dst []byte) ([]byte, error) {
	return appendPair(dst, TypePredicateSameAs, x.Left, x.Right, x.Provenance)
}

// ID returns the BLAKE3-256 of x's canonical bytes.
func (x *PredicateSameAs) ID() (ID, error) { return idOf(x) }

// checkPair validates a same_as or predicate_same_as claim.
func checkPair(t Type, left, right string, p *Provenance) error {
	c := checker{typ: t}
	c.id("left", left)
	p.check(&c)
	c.id("right", right)
	return c.err()
}

// appendPair encodes a same_as or predicate_same_as claim.
func appendPair(dst []byte, t Type, left, right string, p *Provenance) ([]byte, error) {
	if err := checkPair(t, left, right, p); err != nil {
		return dst, err
	}
	e := enc{b: dst}
	e.raw(`{"left":`)
	e.str(left)
	e.raw(`,"provenance":`)
	e.prov(p)
	e.raw(`,"right":`)
	e.str(right)
	e.raw(`,"type":"`)
	e.raw(string(t))
	e.raw(`"}`)
	return e.done(dst)
}

// State asserts a fluent value with its anchors (author.add_state):
// {"entity","key","provenance","since"?,"type":"state","until"?,"value"}.
// Since and Until are optional event or instant ids; an inertial value with
// no since anchor is representable, and the world reports it.
type State struct {
	Entity     string // the entity id
	Key        string // the fluent key (a predicate name)
	Value      string // free text
	Since      string // optional: the event or instant the value holds from
	Until      string // optional: the event or instant the value holds until
	Provenance *Provenance
}

// Type returns TypeState.
func (*State) Type() Type { return TypeState }

// Validate checks every field of x.
func (x *State) Validate() error {
	c := checker{typ: TypeState}
	c.id("entity", x.Entity)
	c.id("key", x.Key)
	x.Provenance.check(&c)
	c.optID("since", x.Since)
	c.optID("until", x.Until)
	c.text("value", x.Value, true)
	return c.err()
}

// AppendCanonical validates x and appends its canonical JSON to dst.
func (x *State) AppendCanonical(dst []byte) ([]byte, error) {
	if err := x.Validate(); err != nil {
		return dst, err
	}
	e := enc{b: dst}
	e.raw(`{"entity":`)
	e.str(x.Entity)
	e.raw(`,"key":`)
	e.str(x.Key)
	e.raw(`,"provenance":`)
	e.prov(x.Provenance)
	if x.Since != "" {
		e.raw(`,"since":`)
		e.str(x.Since)
	}
	e.raw(`,"type":"state"`)
	if x.Until != "" {
		e.raw(`,"until":`)
		e.str(x.Until)
	}
	e.raw(`,"value":`)
	e.str(x.Value)
	e.raw(`}`)
	return e.done(dst)
}

// ID returns the BLAKE3-256 of x's canonical bytes.
func (x *State) ID() (ID, error) { return idOf(x) }
