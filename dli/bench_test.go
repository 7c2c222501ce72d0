// This file holds the benchmarks: parsing and formatting a 100,000
// declaration document of mixed types, reporting declarations per second.

package dli

import (
	"strconv"
	"testing"

	"github.com/deloreis/deloreis/objects"
)

// benchDecls is the size of the benchmark document.
const benchDecls = 100_000

// benchDocument returns a Document of n declarations of mixed types, in
// roughly the proportions of a written world: mostly entities, facts and
// relations, with events, orderings, states, questions, rules and ledger
// records among them.
func benchDocument(n int) *Document {
	doc := &Document{Grammar: Grammar, Scope: "camelot", Decls: make([]Decl, 0, n)}
	prov := objects.Proposed("session-7c9")
	cited := objects.Cited(objects.CitedRatified, "dl-0014", "dl-0046")
	var claim objects.ID
	for i := 0; i < n; i++ {
		s := strconv.Itoa(i)
		var o objects.Object
		switch i % 20 {
		case 0, 1, 2, 3:
			o = &objects.Entity{Kind: objects.KindPerson, Ident: "person-" + s, Name: "Person " + s, Provenance: prov}
		case 4, 5, 6, 7, 8:
			o = &objects.Fact{Entity: "person-" + s, Key: "tongue", Value: "low-saltish", Provenance: prov}
		case 9:
			o = &objects.Fact{Entity: "person-" + s, Key: "epithet", Value: "warden of the weir " + s, Provenance: cited}
		case 10, 11, 12:
			o = &objects.Relation{Relation: "serves", From: "person-" + s, To: "the-warden", Provenance: prov}
		case 13:
			o = &objects.Event{Ident: "event-" + s, Era: "the-salt-years", Provenance: prov}
		case 14:
			o = &objects.Before{Earlier: "event-" + s, Later: "event-" + strconv.Itoa(i+20), Provenance: prov}
		case 15:
			o = &objects.State{Entity: "person-" + s, Key: "mood", Value: "grim", Since: "event-" + s, Provenance: prov}
		case 16:
			o = &objects.Question{Ident: "q-" + s, Prompt: "Where did ward " + s + " stand?", Options: []objects.Option{
				{Ident: "q-" + s + "-a", Label: "The Tidewall"}, {Ident: "q-" + s + "-b", Label: "The Mill"}}}
		case 17:
			o = &objects.Rule{Name: "kin-" + s, Head: objects.Atom{Pred: "kin", Args: []objects.Term{objects.Var("X"), objects.Var("Y")}},
				Body:       []objects.Literal{{Atom: objects.Atom{Pred: "serves", Args: []objects.Term{objects.Var("X"), objects.Var("Y")}}}},
				Provenance: prov}
		case 18:
			o = &objects.Decision{Ident: "dl-" + s, Rationale: "Because the tide rose.", Provenance: &prov}
		default:
			claim[0], claim[1] = byte(i), byte(i>>8)
			o = &objects.Standing{Claim: claim, Standing: objects.StandingRatified, Decision: "dl-" + s}
		}
		doc.Decls = append(doc.Decls, Decl{Object: o})
	}
	return doc
}

func BenchmarkParse(b *testing.B) {
	src := Format(benchDocument(benchDecls))
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		doc, err := Parse("bench.dli", src)
		if err != nil || len(doc.Decls) != benchDecls {
			b.Fatalf("parse: %v", err)
		}
	}
	b.ReportMetric(float64(benchDecls)*float64(b.N)/b.Elapsed().Seconds(), "decls/s")
}

func BenchmarkFormat(b *testing.B) {
	doc := benchDocument(benchDecls)
	b.SetBytes(int64(len(Format(doc))))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		Format(doc)
	}
	b.ReportMetric(float64(benchDecls)*float64(b.N)/b.Elapsed().Seconds(), "decls/s")
}

func BenchmarkRenderDecl(b *testing.B) {
	o := &objects.Entity{Kind: objects.KindPerson, Ident: "galahad", Name: "Galahad", Provenance: objects.Proposed("session-7c9")}
	b.ReportAllocs()
	for b.Loop() {
		RenderDecl(o)
	}
}
