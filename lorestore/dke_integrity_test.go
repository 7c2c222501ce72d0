// Integrity of the dke/ namespace at the boundary: a DKE file real git
// put on a branch is verified before a merge, pull or clone makes it
// reachable from a lore branch, and Fsck reports it.

package lorestore

import (
	"strings"
	"testing"

	"github.com/deloreis/deloreis/objects"
)

// dkeBadEdits are the members of the class "DKE content a lore branch
// must not hold", each as an edit of a store whose default DKE store
// holds Sensor claims 0..3 and the module inventory.
func dkeBadEdits(t *testing.T) map[string]map[string][]byte {
	t.Helper()
	canon := func(data []byte) ([]byte, string) {
		c, err := canonicalEnvelope("", data, "kind", "Sensor")
		if err != nil {
			t.Fatal(err)
		}
		return c, objects.ID(sumID(c)).String()
	}
	c9, id9 := canon(claimJSON("Sensor", 9))
	_, id1 := canon(claimJSON("Sensor", 1))
	hashed := func(data []byte) string { return objects.ID(sumID(data)).String() }
	nonCanon := append([]byte(" "), c9...)
	notObject := []byte(`[{"kind":"Sensor"}]`)
	room := []byte(strings.Replace(string(c9), `"Sensor"`, `"Room"`, 1))
	at := func(kind, id string) string { return "dke/default/claims/" + kind + "/" + id[:2] + "/" + id + ".json" }
	mod := func(name, source string) []byte {
		c, err := canonicalEnvelope("", moduleJSON(name, source), "name", name)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	return map[string]map[string][]byte{
		"claim-rewritten":      {at("Sensor", id1): []byte(`{"kind":"Sensor","value":"forged"}`)},
		"claim-not-its-id":     {"dke/default/claims/Sensor/ab/" + strings.Repeat("ab", 32) + ".json": c9},
		"claim-wrong-shard":    {"dke/default/claims/Sensor/zz/" + id9 + ".json": c9},
		"claim-other-shard":    {"dke/default/claims/Sensor/" + otherShard(id9) + "/" + id9 + ".json": c9},
		"claim-wrong-kind":     {at("Room", id9): c9},
		"claim-kind-field":     {at("Sensor", hashed(room)): room},
		"claim-not-canonical":  {at("Sensor", hashed(nonCanon)): nonCanon},
		"claim-not-object":     {at("Sensor", hashed(notObject)): notObject},
		"claim-bad-kind-name":  {"dke/default/claims/Sen sor/" + id9[:2] + "/" + id9 + ".json": c9},
		"claim-name-not-id":    {"dke/default/claims/Sensor/" + id9[:2] + "/readme.json": c9},
		"claim-too-deep":       {"dke/default/claims/Sensor/" + id9[:2] + "/x/" + id9 + ".json": c9},
		"claim-executable":     {"100755:" + at("Sensor", id9): c9},
		"module-name-mismatch": {"dke/default/modules/inventory.json": mod("other", "")},
		"module-bad-name":      {"dke/default/modules/a-b.json": mod("a-b", "")},
		"module-not-json":      {"dke/default/modules/inventory.json": []byte("def f():\n")},
		"module-not-canonical": {"dke/default/modules/inventory.json": moduleJSON("inventory", "")},
		"module-no-suffix":     {"dke/default/modules/inventory": mod("inventory", "")},
		"module-too-deep":      {"dke/default/modules/x/inventory.json": mod("inventory", "")},
		"bad-store-id":         {"dke/a.b/modules/m.json": mod("m", "")},
		"unknown-dke-section":  {"dke/default/rules/m.json": mod("m", "")},
		"stray-dke-file":       {"dke/README": []byte("hello\n")},
		"header-other-store":   {"dke/default/store.json": []byte(`{"store":"other"}`)},
		"header-not-canonical": {"dke/default/store.json": []byte(`{ "store": "default" }`)},
		"header-is-a-folder":   {"dke/default/store.json/x.json": mod("x", "")},
		"store-is-a-file":      {"dke/other": []byte("{}")},
	}
}

func otherShard(id string) string {
	if id[:2] == "00" {
		return "01"
	}
	return "00"
}

// dkeCorruptSide builds a store whose main holds the base DKE content and
// a branch side rewritten by real git with edits (then a good commit on
// top, when the store can build on it); diverge moves main too.
func dkeCorruptSide(t *testing.T, edits map[string][]byte, diverge bool) (*Store, string) {
	t.Helper()
	s, dir := newStore(t)
	b := NewBatch()
	for i := 0; i < 4; i++ {
		_, err := b.PutDKEClaim("default", "Sensor", claimJSON("Sensor", i))
		must(t, err)
	}
	must(t, b.PutModule("default", "inventory", moduleJSON("inventory", "v1")))
	commitBatch(t, s, b, "base")
	if _, err := s.CreateBranch("side", ""); err != nil {
		t.Fatal(err)
	}
	side := func(n int) error {
		b := NewBatch()
		if _, err := b.PutDKEClaim("default", "Sensor", claimJSON("Sensor", n)); err != nil {
			return err
		}
		_, err := s.Commit(b, NewMessage("side work", "dke.run", ""), CommitOptions{Branch: "side"})
		return err
	}
	must(t, side(5))
	rewriteBranch(t, dir, "side", edits)
	_ = side(6) // the edit may break the layout so the store cannot build on it
	if diverge {
		b := NewBatch()
		must(t, b.PutModule("default", "other", moduleJSON("other", "")))
		commitBatch(t, s, b, "main work")
	}
	return s, dir
}

func TestDKECorruptContentNeverReachesABranch(t *testing.T) {
	wantFolderKeptOff(t, "dke", dkeBadEdits(t), dkeCorruptSide)
}

// TestGoodDKEContentStillMerges: a valid claim and module written by real
// git merge like the store's own, and a removal by real git is taken.
func TestGoodDKEContentStillMerges(t *testing.T) {
	c9, err := canonicalEnvelope("", claimJSON("Sensor", 9), "kind", "Sensor")
	must(t, err)
	id9 := objects.ID(sumID(c9))
	m, err := canonicalEnvelope("", moduleJSON("inventory", "v2"), "name", "inventory")
	must(t, err)
	c1, err := canonicalEnvelope("", claimJSON("Sensor", 1), "kind", "Sensor")
	must(t, err)
	id1 := objects.ID(sumID(c1))
	s, dir := dkeCorruptSide(t, map[string][]byte{
		dkeClaimFile("Sensor", id9):          c9,
		"dke/default/modules/inventory.json": m,
		dkeClaimFile("Sensor", id1):          nil, // removed
	}, true)
	res, err := s.Merge("side", MergeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sn, err := s.SnapshotAt(res.Commit)
	must(t, err)
	ids, err := sn.DKEClaimIDs("default", "Sensor")
	must(t, err)
	// claims 0, 2, 3 of base, 5 and 6 of side, 9 by real git; 1 removed.
	if len(ids) != 6 {
		t.Fatalf("merged main holds %d claims, want 6", len(ids))
	}
	if _, err := sn.DKEClaim("default", "Sensor", id1); err == nil {
		t.Fatal("the claim real git removed is back")
	}
	if got, err := sn.Module("default", "inventory"); err != nil || string(got) != string(m) {
		t.Fatalf("module after merge: %s %v", got, err)
	}
	if ps, err := s.Fsck(); err != nil || len(ps) != 0 {
		t.Fatalf("fsck: %v %v", ps, err)
	}
	s.WaitBackground()
	fsckClean(t, dir)
}
