package world

import (
	"slices"
	"testing"

	"github.com/deloreis/deloreis/objects"
)

func TestSupportPaths(t *testing.T) {
	one := fact("galahad", "title", "sir", cited("canon-1"))
	two := fact("galahad", "title", "sir", cited("canon-2", "canon-3"))
	ev := &objects.Event{Ident: "the-quest", Era: "the-age", Provenance: cited("canon-1")}
	link := &objects.SameAs{Left: "galahad", Right: "the-white-knight", Provenance: cited("canon-2")}
	oneID := idOf(t, one)
	attack := &objects.Attack{Attacker: "veto", Target: "canon-1", Claim: oneID}
	w := compile(t, person("galahad", prop), person("the-white-knight", prop), &objects.Entity{Kind: objects.KindEra, Ident: "the-age", Name: "The Age", Provenance: prop},
		decision("canon-1"), decision("canon-2"), decision("canon-3"), decision("veto"), one, two, ev, link, attack)

	if got := w.ClaimAtoms(idOf(t, ev)); len(got) != 2 || got[0].Pred != "event" || got[1].Pred != "during" || !slices.Equal(got[1].Args, []string{"the-quest", "the-age"}) {
		t.Fatalf("event atoms %v", got)
	}
	// Both claims of the atom contribute a path; the attacked decision is claim-scoped.
	paths, truncated := w.SupportPaths(oneID)
	if truncated || len(paths) != 2 {
		t.Fatalf("paths %v", paths)
	}
	var named [][]string
	for _, p := range paths {
		named = append(named, PathDecisions(p))
	}
	slices.SortFunc(named, slices.Compare)
	if !slices.Equal(named[0], []string{"canon-1"}) || !slices.Equal(named[1], []string{"canon-2", "canon-3"}) {
		t.Fatalf("decisions of the paths %v (paths %v)", named, paths)
	}
	// A link lowers to no atom here: its own support is its path.
	if lp, _ := w.SupportPaths(idOf(t, link)); len(lp) != 1 || !slices.Equal(PathDecisions(lp[0]), []string{"canon-2"}) {
		t.Fatalf("link paths %v", lp)
	}
	if g := w.AttackGraph(oneID); len(g) != 1 || g[0] != [2]string{"veto", "canon-1"} {
		t.Fatalf("attack graph %v", g)
	}
	if _, _, ok := w.Decision("veto"); !ok || !slices.Equal(w.DecisionIDs(), []string{"canon-1", "canon-2", "canon-3", "veto"}) {
		t.Fatalf("decisions %v", w.DecisionIDs())
	}
	if len(w.Attacks()) != 1 || len(w.LedgerRecords()) != 1 {
		t.Fatalf("attacks %v ledger %v", w.Attacks(), w.LedgerRecords())
	}
	if w.ClaimAtoms(idOf(t, decision("nope"))) != nil {
		t.Fatal("an unknown id lowers to atoms")
	}
}
