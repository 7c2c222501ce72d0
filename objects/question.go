// This file holds the question (open debt with its options), the ground atom
// an option implies, and the hypothesis (a fork-local hyp variable). None of
// them carries provenance: a question and a hypothesis assert nothing.

package objects

import "strconv"

// GroundAtom is a predicate applied to constants: {"args":[…],"pred":<id>}.
// Args may be empty (a proposition); each arg is non-empty free text, in the
// given order.
type GroundAtom struct {
	Pred string
	Args []string
}

// Option is one answer to a question: {"id","implies"?,"label"}.
type Option struct {
	Ident   string      // JSON "id": unique within the question
	Label   string      // free text
	Implies *GroundAtom // optional: the claim this option supports
}

// Question files an open question as tracked debt (author.open_question,
// author.add_option): {"id","options":[…],"prompt","type":"question"}.
// Options keep their given order and may be empty: a question is opened
// first and its options are added later.
type Question struct {
	Ident   string // JSON "id": the question id
	Prompt  string // free text
	Options []Option
}

// Type returns TypeQuestion.
func (*Question) Type() Type { return TypeQuestion }

// Validate checks every field of x, and that option ids do not repeat.
func (x *Question) Validate() error {
	c := checker{typ: TypeQuestion}
	c.id("id", x.Ident)
	for i := range x.Options {
		x.Options[i].check(&c, i)
	}
	checkOptionIDs(&c, x.Options)
	c.text("prompt", x.Prompt, true)
	return c.err()
}

// check validates option i of a question.
func (o *Option) check(c *checker, i int) {
	c.idAt(o.Ident, func() string { return optionPath(i, "id") })
	if o.Implies != nil {
		a := o.Implies
		for j, arg := range a.Args {
			c.textAt(arg, func() string { return indexPath(optionPath(i, "implies.args"), j) })
		}
		c.idAt(a.Pred, func() string { return optionPath(i, "implies.pred") })
	}
	c.textAt(o.Label, func() string { return optionPath(i, "label") })
}

// optionPath returns options[i].field.
func optionPath(i int, field string) string {
	return "options[" + strconv.Itoa(i) + "]." + field
}

// checkOptionIDs reports every option id that repeats an earlier one.
// Short lists are compared pairwise; long ones through a map.
func checkOptionIDs(c *checker, opts []Option) {
	var first map[string]int
	if len(opts) > 16 {
		first = make(map[string]int, len(opts))
	}
	for i := range opts {
		id := opts[i].Ident
		if id == "" {
			continue
		}
		j := -1
		if first != nil {
			if k, ok := first[id]; ok {
				j = k
			} else {
				first[id] = i
			}
		} else {
			for k := 0; k < i && j < 0; k++ {
				if opts[k].Ident == id {
					j = k
				}
			}
		}
		if j >= 0 {
			path := optionPath(i, "id")
			c.add(path, CodeDuplicate, path+" "+quoteShort(id)+" repeats "+optionPath(j, "id"))
		}
	}
}

// AppendCanonical validates x and appends its canonical JSON to dst.
func (x *Question) AppendCanonical(dst []byte) ([]byte, error) {
	if err := x.Validate(); err != nil {
		return dst, err
	}
	e := enc{b: dst}
	e.raw(`{"id":`)
	e.str(x.Ident)
	e.raw(`,"options":[`)
	for i := range x.Options {
		o := &x.Options[i]
		if i > 0 {
			e.raw(`,`)
		}
		e.raw(`{"id":`)
		e.str(o.Ident)
		if o.Implies != nil {
			e.raw(`,"implies":{"args":`)
			e.strs(o.Implies.Args)
			e.raw(`,"pred":`)
			e.str(o.Implies.Pred)
			e.raw(`}`)
		}
		e.raw(`,"label":`)
		e.str(o.Label)
		e.raw(`}`)
	}
	e.raw(`],"prompt":`)
	e.str(x.Prompt)
	e.raw(`,"type":"question"}`)
	return e.done(dst)
}

// ID returns the BLAKE3-256 of x's canonical bytes.
func (x *Question) ID() (ID, error) { return idOf(x) }

// Hypothesis mints a fork-local hyp variable (author.add_hypothesis):
// {"id","statement","type":"hypothesis"}. It never enters canon.
type Hypothesis struct {
	Ident     string // JSON "id": the hyp variable
	Statement string // free text: the claim the variable names; required
}

// Type returns TypeHypothesis.
func (*Hypothesis) Type() Type { return TypeHypothesis }

// Validate checks every field of x.
func (x *Hypothesis) Validate() error {
	c := checker{typ: TypeHypothesis}
	c.id("id", x.Ident)
	c.text("statement", x.Statement, true)
	return c.err()
}

// AppendCanonical validates x and appends its canonical JSON to dst.
func (x *Hypothesis) AppendCanonical(dst []byte) ([]byte, error) {
	if err := x.Validate(); err != nil {
		return dst, err
	}
	e := enc{b: dst}
	e.raw(`{"id":`)
	e.str(x.Ident)
	e.raw(`,"statement":`)
	e.str(x.Statement)
	e.raw(`,"type":"hypothesis"}`)
	return e.done(dst)
}

// ID returns the BLAKE3-256 of x's canonical bytes.
func (x *Hypothesis) ID() (ID, error) { return idOf(x) }
