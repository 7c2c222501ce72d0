// Tests of merge conflict reporting and of field findings.

package world

import (
	"strings"
	"testing"

	"github.com/deloreis/deloreis/objects"
)

func TestMergeConflicts(t *testing.T) {
	q := &objects.Question{Ident: "where-the-grail-rests", Prompt: "Where?", Options: []objects.Option{
		{Ident: "sarras", Label: "Sarras"}, {Ident: "corbenic", Label: "Corbenic"}}}
	claim := fact("galahad", "father", "lancelot", cited("canon-1"))
	functional := &objects.Functional{Pred: "father", Provenance: prop}
	base := []objects.Object{person("galahad", prop), decision("canon-1"), decision("retcon-2"), q, claim, functional}
	ours := append(append([]objects.Object{}, base...),
		&objects.Standing{Claim: idOf(t, claim), Standing: objects.StandingRatified, Decision: "canon-1"},
		fact("where-the-grail-rests", "answer", "sarras", cited("canon-1")))
	theirs := append(append([]objects.Object{}, base...),
		&objects.Standing{Claim: idOf(t, claim), Standing: objects.StandingDefeated, Decision: "retcon-2"},
		&objects.Attack{Attacker: "retcon-2", Target: "canon-1", Claim: idOf(t, claim)},
		fact("where-the-grail-rests", "answer", "corbenic", cited("canon-1")),
		fact("galahad", "father", "pellinore", cited("canon-1")))
	merged := append(append([]objects.Object{}, ours...), theirs[len(base):]...)
	cs := MergeConflicts(compile(t, base...), compile(t, ours...), compile(t, theirs...), compile(t, merged...))
	kinds := map[string]int{}
	for _, c := range cs {
		kinds[c.Kind]++
	}
	// One claim, two standings (its revisions differ, and it is certain on
	// one side and dead on the other); two options of one question
	// selected. The father facts conflict only in ours ∪ theirs, but the
	// attack kills lancelot there, so no functional conflict arises.
	if kinds[ConflictValuation] != 2 || kinds[ConflictExclusivity] != 1 || kinds[ConflictFunctional] != 0 {
		t.Fatalf("conflicts %+v", cs)
	}
	for _, c := range cs {
		if c.Kind == ConflictExclusivity && !strings.Contains(c.Message, "corbenic, sarras") {
			t.Fatalf("exclusivity message %q", c.Message)
		}
	}
	// Without the attack, the union breaks the functional dependency.
	theirs2 := []objects.Object{fact("galahad", "father", "pellinore", cited("canon-1"))}
	merged2 := append(append([]objects.Object{}, base...), theirs2...)
	cs2 := MergeConflicts(compile(t, base...), compile(t, base...), compile(t, append(append([]objects.Object{}, base...), theirs2...)...), compile(t, merged2...))
	if len(cs2) != 0 {
		// theirs itself already has the violation: not a merge conflict
		t.Fatalf("a violation one side already had is not a merge conflict: %+v", cs2)
	}
	oursF := append(append([]objects.Object{}, base[:len(base)-2]...), claim)
	theirsF := append(append([]objects.Object{}, base[:len(base)-2]...), functional, fact("galahad", "father", "pellinore", cited("canon-1")))
	mergedF := append(append([]objects.Object{}, theirsF...), claim)
	cs3 := MergeConflicts(compile(t, base[:len(base)-2]...), compile(t, oursF...), compile(t, theirsF...), compile(t, mergedF...))
	if len(cs3) != 1 || cs3[0].Kind != ConflictFunctional {
		t.Fatalf("functional conflict expected: %+v", cs3)
	}
}

func TestFieldFindings(t *testing.T) {
	bad := &objects.Fact{Entity: "mireth", Key: "tongue", Value: "low\x07saltish", Provenance: prop}
	fs := FieldFindings(bad.Validate())
	if len(fs) != 1 || fs[0].Code != CodeFieldControlChar || fs[0].Data["field"] != "value" {
		t.Fatalf("findings %+v", fs)
	}
	ok := &objects.Fact{Entity: "mireth", Key: "tongue", Value: "low-saltish", Provenance: prop}
	if fs := FieldFindings(ok.Validate()); len(fs) != 0 {
		t.Fatalf("a valid object gave %+v", fs)
	}
}
