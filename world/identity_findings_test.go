package world

import (
	"reflect"
	"strings"
	"testing"

	"github.com/deloreis/deloreis/objects"
)

// A functional collision or a fluent overlap that a predicate identity
// brings names the identity assertion in its data and the declared names
// in its message (DLI section 3.15).
func TestIdentityFindingsNameTheAssertion(t *testing.T) {
	psame := &objects.PredicateSameAs{Left: "home", Right: "seat", Provenance: cited("d1")}
	pid := idOf(t, psame).String()
	fd := compile(t, decision("d1"), person("galahad", prop), place("logres"), place("corbenic"),
		&objects.Functional{Pred: "home", Provenance: prop}, psame,
		fact("galahad", "home", "logres", cited("d1")), fact("galahad", "seat", "corbenic", cited("d1")))
	ev := &objects.Event{Ident: "oath", Era: "age", Provenance: prop}
	fl := compile(t, decision("d1"), era("age"), ev, person("galahad", prop), place("logres"), place("corbenic"),
		&objects.Inertial{Pred: "home", Provenance: cited("d1")}, psame,
		&objects.State{Entity: "galahad", Key: "home", Value: "logres", Since: "oath", Provenance: cited("d1")},
		&objects.State{Entity: "galahad", Key: "seat", Value: "corbenic", Since: "oath", Provenance: cited("d1")})
	for _, tc := range []struct {
		name string
		w    *World
		code string
	}{{"functional", fd, CodeFDViolation}, {"fluent", fl, CodeFluentContradiction}} {
		t.Run(tc.name, func(t *testing.T) {
			fs := findingsOf(tc.w, tc.code)
			if len(fs) != 1 {
				t.Fatalf("want one %s, got %v", tc.code, tc.w.Findings())
			}
			f := fs[0]
			if !reflect.DeepEqual(f.Data["identity"], []string{pid}) {
				t.Errorf("data.identity = %v, want [%s]", f.Data["identity"], pid)
			}
			if !reflect.DeepEqual(f.Data["same_property"], []string{"home", "seat"}) {
				t.Errorf("data.same_property = %v", f.Data["same_property"])
			}
			if !strings.Contains(f.Message, "home, seat are declared the same property") {
				t.Errorf("message does not name the declared predicates: %s", f.Message)
			}
		})
	}
	// A collision under one name alone names no identity.
	plain := compile(t, decision("d1"), person("galahad", prop), place("logres"), place("corbenic"),
		&objects.Functional{Pred: "home", Provenance: prop},
		fact("galahad", "home", "logres", cited("d1")), fact("galahad", "home", "corbenic", cited("d1")))
	fs := findingsOf(plain, CodeFDViolation)
	if len(fs) != 1 || fs[0].Data["identity"] != nil || strings.Contains(fs[0].Message, "same property") {
		t.Errorf("a collision without identity: %v", fs)
	}
}

// A derived FD break has no claim of its own to cite: it cites the
// functional declaration that makes the predicate functional.
func TestDerivedFDCitesTheDeclaration(t *testing.T) {
	fn := &objects.Functional{Pred: "lord", Provenance: prop}
	rule := &objects.Rule{Name: "holders-are-lords", Provenance: cited("d1"),
		Head: objects.Atom{Pred: "lord", Args: []objects.Term{objects.Var("P"), objects.Var("H")}},
		Body: []objects.Literal{{Atom: objects.Atom{Pred: "holds", Args: []objects.Term{objects.Var("H"), objects.Var("P")}}}}}
	w := compile(t, decision("d1"), fn, rule, place("logres"), person("arthur", prop), person("mordred", prop),
		&objects.Relation{Relation: "holds", From: "arthur", To: "logres", Provenance: cited("d1")},
		&objects.Relation{Relation: "holds", From: "mordred", To: "logres", Provenance: cited("d1")})
	fs := findingsOf(w, CodeDerivedFDViolation)
	if len(fs) != 1 {
		t.Fatalf("want one derived FD break, got %v", w.Findings())
	}
	if want := []string{idOf(t, fn).String()}; !reflect.DeepEqual(fs[0].Citations, want) {
		t.Fatalf("citations %v, want the declaration %v", fs[0].Citations, want)
	}
}
