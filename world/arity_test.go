package world

import (
	"testing"

	"github.com/deloreis/deloreis/datalog"

	"github.com/deloreis/deloreis/objects"
)

// TestArityConflictIsAFinding: a fact whose key is an entity kind (person
// has one argument as a kind, two as a key), a relation named like a fact
// key of another arity, or an option implying an atom of another arity
// used to fail the whole compile; it is a finding on the claim that is
// left out, and the world stays readable. Staging and discarding it gives
// what a compile gives.
func TestArityConflictIsAFinding(t *testing.T) {
	cases := []struct {
		name  string
		clash objects.Object
	}{
		{"fact key is a kind", fact("galahad", "person", "yes", prop)},
		{"relation of another arity", &objects.Relation{Relation: "knight", From: "galahad", To: "logres", Provenance: prop}},
		{"implied atom of another arity", &objects.Question{Ident: "q", Prompt: "Q?", Options: []objects.Option{
			{Ident: "o", Label: "O", Implies: &objects.GroundAtom{Pred: "title", Args: []string{"x"}}}}}},
	}
	base := []objects.Object{person("galahad", prop), place("logres"), fact("galahad", "title", "sir", prop),
		&objects.Rule{Name: "knights", Head: objects.Atom{Pred: "knight", Args: []objects.Term{objects.Var("X")}},
			Body: []objects.Literal{{Atom: objects.Atom{Pred: "person", Args: []objects.Term{objects.Var("X")}}}}, Provenance: prop}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := compile(t, append(append([]objects.Object{}, base...), c.clash)...)
			fs := findingsOf(w, CodeArityConflict)
			if len(fs) == 0 {
				t.Fatalf("no arity finding: %v", w.Findings())
			}
			for _, f := range fs {
				if f.Severity != SeverityError || len(f.Citations) == 0 {
					t.Fatalf("finding %v", f)
				}
			}
			if w.Grade("title", "galahad", "sir") == datalog.Dead && w.Grade("person", "galahad") == datalog.Dead {
				t.Fatal("the world lost what did not clash")
			}
			clean := compile(t, base...)
			staged, err := clean.Stage([]objects.Object{c.clash}, nil)
			if err != nil {
				t.Fatalf("staging the clash: %v", err)
			}
			if dump(staged) != dump(w) {
				t.Fatalf("staged:\n%s\ncompiled:\n%s", dump(staged), dump(w))
			}
			back, err := staged.Stage(nil, []objects.ID{idOf(t, c.clash)})
			if err != nil {
				t.Fatal(err)
			}
			if dump(back) != dump(clean) || len(findingsOf(back, CodeArityConflict)) != 0 {
				t.Fatal("discarding the clash does not give the clean world back")
			}
		})
	}
}
