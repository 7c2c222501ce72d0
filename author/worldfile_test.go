package author

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/deloreis/deloreis/lorestore"
	"github.com/deloreis/deloreis/objects"
	"github.com/deloreis/deloreis/world"
	"github.com/zeebo/xxh3"
)

// freshGet opens (commit, scope) through a new, empty world cache over
// the store, as a fresh process would, once every file writer is done.
func freshGet(t *testing.T, s *lorestore.Store, commit lorestore.Hash, scope string) (*world.World, *worldCache) {
	t.Helper()
	s.WaitBackground()
	c := newWorldCache(4)
	w, err := c.get(s, commit, scope)
	if err != nil {
		t.Fatal(err)
	}
	return w, c
}

// wantCounts holds a cache's counters: compiles, derivations, file loads,
// files refused.
func wantCounts(t *testing.T, c *worldCache, compiles, derives, loads, rejects int) {
	t.Helper()
	l, r, _ := c.fileCounts()
	if c.compileCount() != compiles || c.deriveCount() != derives || l != loads || r != rejects {
		t.Fatalf("%d compiles, %d derivations, %d loads, %d refused; want %d, %d, %d, %d (last refusal: %v)",
			c.compileCount(), c.deriveCount(), l, r, compiles, derives, loads, rejects, c.lastReject)
	}
}

// TestWorldFileFreshProcessLoads: a second Service over a second opening
// of the same store (a fresh process) opens the commit the first compiled
// from its world file, with no compile, and the world reads as a compile.
func TestWorldFileFreshProcessLoads(t *testing.T) {
	h := newHarness(t, "camelot")
	h.commitObjects("main", "camelot",
		&objects.Entity{Kind: objects.KindPerson, Ident: "galahad", Name: "Galahad", Provenance: prop0},
		&objects.Fact{Entity: "galahad", Key: "seat", Value: "perilous", Provenance: prop0})
	head, _ := h.headWorld()
	if h.svc.cache.compileCount() != 1 {
		t.Fatalf("first open: %d compiles", h.svc.cache.compileCount())
	}
	h.store.WaitBackground()
	if _, err := os.Stat(worldFilePath(h.store, head, "camelot")); err != nil {
		t.Fatalf("no world file after a compile: %v", err)
	}
	s2, err := lorestore.Open(h.store.Dir(), lorestore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s2.Close() })
	svc, err := New(Config{Store: s2, Documents: []string{"camelot"}})
	if err != nil {
		t.Fatal(err)
	}
	ws, err := svc.OpenOn("camelot", "", "")
	if err != nil {
		t.Fatal(err)
	}
	wantCounts(t, svc.cache, 0, 0, 1, 0)
	sameWorld(t, s2, head, "camelot", ws.world)
}

// TestWorldFileRandomChains: over random histories (materializes plain
// and under a decision, defeats, commits made elsewhere, branches and
// their merges), every head a workspace opens has a world file once its
// writer is done, and the world a fresh cache loads from it is a compile's
// (discards and rules too).
func TestWorldFileRandomChains(t *testing.T) {
	seen := map[int]bool{}
	for seed := range uint64(3) {
		r := rand.New(rand.NewPCG(seed, 13))
		h, ws, fact := defeatWorld(t)
		for step := range 10 {
			op := r.IntN(7)
			seen[op] = true
			switch op {
			case 5: // two facts staged, one discarded
				for _, v := range []string{"kept", "dropped"} {
					h.ok("author.add_fact", map[string]any{"workspace": ws, "entity": "mireth", "key": "mood",
						"value": fmt.Sprint(v, step), "provenance": cited("provisional", "d-1")})
				}
				drop := claimID(t, &objects.Fact{Entity: "mireth", Key: "mood", Value: fmt.Sprint("dropped", step), Provenance: objects.Cited(objects.CitedProvisional, "d-1")})
				h.ok("author.discard", map[string]any{"workspace": ws, "decl": drop})
				h.ok("author.materialize", map[string]any{"workspace": ws})
			case 6: // a rule over the facts, committed elsewhere
				X, Y := objects.Var("X"), objects.Var("Y")
				name := fmt.Sprint("moody-", step)
				h.commitObjects("main", "camelot", &objects.Rule{Name: name, Provenance: prop0,
					Head: objects.Atom{Pred: name, Args: []objects.Term{X}},
					Body: []objects.Literal{{Atom: objects.Atom{Pred: "mood", Args: []objects.Term{X, Y}}}}})
			case 0:
				h.ok("author.add_fact", map[string]any{"workspace": ws, "entity": "mireth", "key": fmt.Sprint("k", r.IntN(3)),
					"value": fmt.Sprint("v", step), "provenance": cited("provisional", "d-1")})
				h.ok("author.materialize", map[string]any{"workspace": ws})
			case 1:
				h.ok("author.add_entity", map[string]any{"workspace": ws, "kind": "person", "id": fmt.Sprint("x", step), "name": "X", "provenance": prop()})
				h.ok("author.materialize", map[string]any{"workspace": ws, "decision": "d-1"})
			case 2:
				h.ok("author.defeat", map[string]any{"workspace": ws, "claim_id": fact, "decision": fmt.Sprint("d-", step+2), "defeated_decision": "d-1"})
			case 3:
				h.commitObjects("main", "camelot", &objects.Fact{Entity: "mireth", Key: "seen", Value: fmt.Sprint("w", step), Provenance: prop0})
			case 4:
				side := fmt.Sprint("side-", step)
				if _, err := h.store.CreateBranch(side, h.head("main").String()); err != nil {
					t.Fatal(err)
				}
				h.commitObjects(side, "camelot", &objects.Entity{Kind: objects.KindPerson, Ident: fmt.Sprint("s", step), Name: "S", Provenance: prop0})
				h.commitObjects("main", "camelot", &objects.Fact{Entity: "mireth", Key: "seen", Value: fmt.Sprint("m", step), Provenance: prop0})
				if _, err := h.store.Merge(side, lorestore.MergeOptions{}); err != nil {
					t.Fatal(err)
				}
			}
			head, _ := h.headWorld()
			w, c := freshGet(t, h.store, head, "camelot")
			wantCounts(t, c, 0, 0, 1, 0)
			sameWorld(t, h.store, head, "camelot", w)
			fileNamesItsObjects(t, h.store, head, "camelot")
		}
	}
	if len(seen) != 7 {
		t.Fatalf("the seeds drew only the steps %v", seen)
	}
}

// fileNamesItsObjects decodes the file of (commit, scope) and holds every
// entry to its id (BLAKE3 of the decoded object's canonical bytes) and the
// set of ids to the scope's at commit: the codec neither changes an
// object nor drops or adds one.
func fileNamesItsObjects(t *testing.T, s *lorestore.Store, commit lorestore.Hash, scope string) {
	t.Helper()
	hd, ok := newWorldCache(1).wantHeader(s, commit, scope)
	if !ok {
		t.Fatal("no header")
	}
	got, _, err := decodeWorldFile(readFile(t, worldFilePath(s, commit, scope)), hd)
	if err != nil {
		t.Fatal(err)
	}
	sn, err := s.SnapshotAt(commit)
	if err != nil {
		t.Fatal(err)
	}
	want, err := LoadScope(sn, scope)
	if err != nil {
		t.Fatal(err)
	}
	ids := map[objects.ID]bool{}
	for _, e := range want {
		ids[e.ID] = true
	}
	for _, e := range got {
		id, err := e.Object.ID()
		if err != nil || id != e.ID || !ids[id] {
			t.Fatalf("entry %s decodes to %T %s (%v), in the scope: %v", e.ID, e.Object, id, err, ids[id])
		}
	}
	if len(got) != len(want) {
		t.Fatalf("%d entries, the scope holds %d", len(got), len(want))
	}
}

// corruptions are ways a world file goes wrong; each gets the store, the
// commit and scope of the file at path and changes or replaces it.
var corruptions = []struct {
	name string
	do   func(t *testing.T, h *harness, path string, other map[string]string)
	// inPlace says the corruption is seen only by an open that reads
	// the entries in place: a decoding open does not read the index.
	inPlace bool
}{
	{"flipped body byte", func(t *testing.T, h *harness, path string, _ map[string]string) {
		editFile(t, path, func(b []byte) []byte { b[len(b)-40] ^= 0x20; return b })
	}, false},
	{"truncated", func(t *testing.T, h *harness, path string, _ map[string]string) {
		editFile(t, path, func(b []byte) []byte { return b[:len(b)*2/3] })
	}, false},
	{"empty", func(t *testing.T, h *harness, path string, _ map[string]string) {
		editFile(t, path, func([]byte) []byte { return nil })
	}, false},
	{"garbage", func(t *testing.T, h *harness, path string, _ map[string]string) {
		editFile(t, path, func(b []byte) []byte {
			r := rand.New(rand.NewPCG(1, 2))
			for i := range b {
				b[i] = byte(r.Uint32())
			}
			return b
		})
	}, false},
	{"another commit", func(t *testing.T, h *harness, path string, o map[string]string) { copyFile(t, o["parent"], path) }, false},
	{"another scope", func(t *testing.T, h *harness, path string, o map[string]string) { copyFile(t, o["scope"], path) }, false},
	{"foreign store", func(t *testing.T, h *harness, path string, o map[string]string) { copyFile(t, o["foreign"], path) }, false},
	{"another tree hash", func(t *testing.T, h *harness, path string, _ map[string]string) {
		editFile(t, path, func(b []byte) []byte { b[16+32+20] ^= 1; return b })
	}, false},
	{"another world format", func(t *testing.T, h *harness, path string, _ map[string]string) {
		editFile(t, path, func(b []byte) []byte { b[16] ^= 1; return b })
	}, false},
	{"another format version", func(t *testing.T, h *harness, path string, _ map[string]string) {
		editFile(t, path, func(b []byte) []byte { binary.LittleEndian.PutUint32(b[8:], wfVersion+1); return b })
	}, false},
	{"another dialects hash", func(t *testing.T, h *harness, path string, _ map[string]string) {
		editFile(t, path, func(b []byte) []byte { b[16+32+20+20] ^= 1; return b })
	}, false},
	{"checksummed canonical bytes that do not decode", func(t *testing.T, h *harness, path string, _ map[string]string) {
		editFile(t, path, func(b []byte) []byte {
			i := bytes.Index(b, []byte(`{"`))
			b[i] = '['
			return resum(t, b)
		})
	}, false},
	{"checksummed record of an unknown tag", func(t *testing.T, h *harness, path string, _ map[string]string) {
		editFile(t, path, func(b []byte) []byte {
			b[bodyAt(b)+16+8+32] = 9
			return resum(t, b)
		})
	}, false},
	{"checksummed index of another ident", func(t *testing.T, h *harness, path string, _ map[string]string) {
		editFile(t, path, func(b []byte) []byte {
			ix := indexSection(b)
			i := bytes.LastIndex(ix, []byte("galahad"))
			ix[i] = 'G' // still sorted, and where it was: only the sum tells
			return resum(t, b)
		})
	}, true},
	{"checksummed index of another offset", func(t *testing.T, h *harness, path string, _ map[string]string) {
		editFile(t, path, func(b []byte) []byte {
			ix := indexSection(b)
			ix[16+4*8+4]++ // the second entry's offset: after the section header, the index header and the part's count
			return resum(t, b)
		})
	}, true},
	{"checksummed record cut short", func(t *testing.T, h *harness, path string, _ map[string]string) {
		editFile(t, path, func(b []byte) []byte {
			at := bodyAt(b) + 16 + 8 + 33 // the first record's first string
			b[at] = 0x7e                  // a literal of 63 bytes where a short one was
			return resum(t, b)
		})
	}, false},
}

// TestWorldFileCorruption: every corruption is detected, the file is not
// used (the world is compiled and reads as a compile), and the file is
// rewritten so that the next fresh open loads it; by an open that decodes
// the entries (no mapping may be kept) and by one that reads them in
// place.
func TestWorldFileCorruption(t *testing.T) {
	h := newHarness(t, "camelot", "avalon")
	for _, scope := range []string{"camelot", "avalon"} {
		h.commitObjects("main", scope, &objects.Decision{Ident: "d-1"},
			&objects.Entity{Kind: objects.KindPerson, Ident: "galahad", Name: "Galahad", Provenance: prop0})
	}
	parent := h.head("main")
	h.commitObjects("main", "camelot", &objects.Fact{Entity: "galahad", Key: "seat", Value: "perilous", Provenance: prop0})
	head := h.head("main")
	for _, c := range []lorestore.Hash{parent, head} {
		for _, scope := range []string{"camelot", "avalon"} {
			freshGet(t, h.store, c, scope)
		}
	}
	foreign := newHarness(t, "camelot")
	foreign.commitObjects("main", "camelot", &objects.Entity{Kind: objects.KindPerson, Ident: "mordred", Name: "Mordred", Provenance: prop0})
	freshGet(t, foreign.store, foreign.head("main"), "camelot")
	foreign.store.WaitBackground()
	h.store.WaitBackground()
	// The sources of the copies are set aside, and the parent's file
	// removed: the rebuild is then a compile (with it, a derivation from
	// it: TestWorldFileFromAncestor).
	stash := t.TempDir()
	others := map[string]string{}
	for k, p := range map[string]string{
		"parent":  worldFilePath(h.store, parent, "camelot"),
		"scope":   worldFilePath(h.store, head, "avalon"),
		"foreign": worldFilePath(foreign.store, foreign.head("main"), "camelot"),
	} {
		others[k] = filepath.Join(stash, k)
		copyFile(t, p, others[k])
	}
	if err := os.Remove(worldFilePath(h.store, parent, "camelot")); err != nil {
		t.Fatal(err)
	}
	path := worldFilePath(h.store, head, "camelot")
	for _, tc := range corruptions {
		for _, inPlace := range []bool{false, true} {
			if tc.inPlace && !inPlace {
				continue
			}
			t.Run(fmt.Sprintf("%s, in place %v", tc.name, inPlace), func(t *testing.T) {
				corruptOnce(t, h, head, path, others, tc.do, inPlace)
			})
		}
	}
}

// corruptOnce opens head's world from its file (in place or not), does
// the corruption, and holds the open after it to a compile.
func corruptOnce(t *testing.T, h *harness, head lorestore.Hash, path string, others map[string]string,
	do func(*testing.T, *harness, string, map[string]string), inPlace bool) {
	if inPlace {
		keepBudget(t, 100, 1<<40)
	} else {
		keepBudget(t, 0, 0)
	}
	{
		{
			_, c := freshGet(t, h.store, head, "camelot")
			wantCounts(t, c, 0, 0, 1, 0)
			if (c.inPlace == 1) != inPlace {
				t.Fatalf("%d opens in place", c.inPlace)
			}
			good := readFile(t, path)
			do(t, h, path, others)
			if bytes.Equal(readFile(t, path), good) {
				t.Fatal("the corruption changed nothing")
			}
			w, c := freshGet(t, h.store, head, "camelot")
			wantCounts(t, c, 1, 0, 0, 1)
			sameWorld(t, h.store, head, "camelot", w)
			h.store.WaitBackground()
			// The entries are the commit's and their section is the same
			// bytes; the compiled section is the world's evaluation, which
			// a compile and a derivation reach by other paths (rows in
			// another order, say): the rebuilt file must have one.
			got := readFile(t, path)
			if !bytes.Equal(entriesSection(got), entriesSection(good)) {
				t.Fatal("the rebuilt world's file holds other entries than the one first written")
			}
			if (compiledSection(got) == nil) != (compiledSection(good) == nil) {
				t.Fatal("the rebuilt world's file has a compiled section where the first had none, or none where it had one")
			}
		}
	}
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func editFile(t *testing.T, path string, edit func([]byte) []byte) {
	t.Helper()
	replaceFile(t, path, edit(readFile(t, path)))
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	replaceFile(t, to, readFile(t, from))
}

// replaceFile writes a file whole under another name and renames it over
// path, as the writers of world files do: a world restored in place from
// the old file (DL-0394) keeps reading the old bytes, where a write in
// place would change or truncate them under it.
func replaceFile(t *testing.T, path string, b []byte) {
	t.Helper()
	tmp := path + ".edit"
	if err := os.WriteFile(tmp, b, 0o666); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

// bodyAt is the offset of a file's body.
func bodyAt(b []byte) int {
	at := wfFixed + 2 + int(binary.LittleEndian.Uint16(b[wfFixed:]))
	return at + pad8(at)
}

// entriesSection returns a file's entries section, header to padding.
func entriesSection(b []byte) []byte {
	at := bodyAt(b)
	n := int(binary.LittleEndian.Uint64(b[at+8:]))
	return b[at : at+16+n+pad8(n)]
}

// indexSection returns a file's index section, header to padding.
func indexSection(b []byte) []byte {
	at := bodyAt(b) + len(entriesSection(b))
	n := int(binary.LittleEndian.Uint64(b[at+8:]))
	return b[at : at+16+n+pad8(n)]
}

// compiledSection returns a file's compiled section's payload, nil when
// it has none.
func compiledSection(b []byte) []byte {
	at := bodyAt(b) + len(entriesSection(b)) + len(indexSection(b))
	if at+16 > len(b) || binary.LittleEndian.Uint32(b[at:]) != wfSectionCompiled {
		return nil
	}
	n := int(binary.LittleEndian.Uint64(b[at+8:]))
	return b[at+16 : at+16+n]
}

// resum recomputes a file's body checksum after its body was edited.
func resum(t *testing.T, b []byte) []byte {
	t.Helper()
	sum := xxh3.Hash128(b[bodyAt(b):]).Bytes()
	copy(b[wfFixed-wfSumSize:], sum[:])
	return b
}

// TestWorldFileFromAncestor: a fresh process opening a head with no file
// (or a refused one) derives its world from a first parent's file, and
// writes the head's.
func TestWorldFileFromAncestor(t *testing.T) {
	h := newHarness(t, "camelot")
	first := h.commitObjects("main", "camelot", &objects.Entity{Kind: objects.KindPerson, Ident: "galahad", Name: "Galahad", Provenance: prop0})
	freshGet(t, h.store, first, "camelot")
	for i := range 3 {
		h.commitObjects("main", "camelot", &objects.Fact{Entity: "galahad", Key: "seen", Value: fmt.Sprint("place-", i), Provenance: prop0})
	}
	head := h.head("main")
	for _, corrupt := range []bool{false, true} {
		if corrupt {
			editFile(t, worldFilePath(h.store, head, "camelot"), func(b []byte) []byte { return b[:100] })
		}
		w, c := freshGet(t, h.store, head, "camelot")
		rejects := 0
		if corrupt {
			rejects = 1
		}
		wantCounts(t, c, 0, 1, 1, rejects)
		sameWorld(t, h.store, head, "camelot", w)
		h.store.WaitBackground()
		fileNamesItsObjects(t, h.store, head, "camelot")
	}
}

// TestWorldFileNotPushed: the world files live in the git dir beside, not
// in, the object database: git fsck --strict is clean, and neither a clone
// nor a push carries them.
func TestWorldFileNotPushed(t *testing.T) {
	h := newHarness(t, "camelot")
	h.commitObjects("main", "camelot", &objects.Entity{Kind: objects.KindPerson, Ident: "galahad", Name: "Galahad", Provenance: prop0})
	head, _ := h.headWorld()
	h.store.WaitBackground()
	if _, err := os.Stat(worldFilePath(h.store, head, "camelot")); err != nil {
		t.Fatal(err)
	}
	h.git("fsck", "--strict", "--no-dangling")
	dir := t.TempDir()
	clone, remote := filepath.Join(dir, "clone.git"), filepath.Join(dir, "remote.git")
	for _, args := range [][]string{
		{"clone", "--bare", "--no-local", h.store.Dir(), clone},
		{"clone", "--bare", h.store.Dir(), filepath.Join(dir, "local.git")},
		{"init", "--bare", remote},
		{"--git-dir", h.store.Dir(), "push", remote, "main"},
	} {
		cmd := exec.Command("git", args...)
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	for _, d := range []string{clone, filepath.Join(dir, "local.git"), remote} {
		if _, err := os.Stat(filepath.Join(d, worldsDir)); !os.IsNotExist(err) {
			t.Fatalf("%s holds the world files (%v)", d, err)
		}
	}
}

// fileFixture commits n facts to a fresh store's scope camelot and
// returns the harness, the commit, its compiled world, the header its
// world file must carry and the file's path.
func fileFixture(t *testing.T, n int) (*harness, lorestore.Hash, *world.World, wfHeader, string) {
	t.Helper()
	h := newHarness(t, "camelot")
	var objs []objects.Object
	for i := range n {
		objs = append(objs, &objects.Fact{Entity: "galahad", Key: "seen", Value: fmt.Sprint("place-", i), Provenance: prop0})
	}
	head := h.commitObjects("main", "camelot", objs...)
	w, err := CompileAt(h.store, head, "camelot")
	if err != nil {
		t.Fatal(err)
	}
	hd, ok := newWorldCache(4).wantHeader(h.store, head, "camelot")
	if !ok {
		t.Fatal("no header")
	}
	return h, head, w, hd, worldFilePath(h.store, head, "camelot")
}

// TestWorldFileConcurrentWriters: writers of one file racing each other
// and readers never leave or show a torn file: every read finds no file
// or one that verifies.
func TestWorldFileConcurrentWriters(t *testing.T) {
	h, head, w, hd, path := fileFixture(t, 200)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var problems []string
	for i := range 8 {
		wg.Go(func() {
			if err := writeWorldFile(&writeJob{path: path, hd: hd, entries: w.Objects(), built: builtWorld(w)}); err != nil {
				mu.Lock()
				problems = append(problems, err.Error())
				mu.Unlock()
			}
		})
		wg.Go(func() {
			for range 5 + i {
				data, err := os.ReadFile(path)
				if err != nil {
					continue
				}
				if _, _, err := decodeWorldFile(data, hd); err != nil {
					mu.Lock()
					problems = append(problems, err.Error())
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	if len(problems) > 0 {
		t.Fatalf("%d problems, first: %s", len(problems), problems[0])
	}
	got, c := freshGet(t, h.store, head, "camelot")
	wantCounts(t, c, 0, 0, 1, 0)
	sameWorld(t, h.store, head, "camelot", got)
	if left, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".*")); len(left) > 0 {
		t.Fatalf("temp files left: %v", left)
	}
}

// TestWorldFileEviction: past keepPerScope files of a scope, the oldest
// go; other scopes' files are left alone.
func TestWorldFileEviction(t *testing.T) {
	h := newHarness(t, "camelot", "avalon")
	avalon := h.commitObjects("main", "avalon", &objects.Entity{Kind: objects.KindPerson, Ident: "nimue", Name: "Nimue", Provenance: prop0})
	freshGet(t, h.store, avalon, "avalon")
	var heads []lorestore.Hash
	for i := range keepPerScope + 3 {
		heads = append(heads, h.commitObjects("main", "camelot", &objects.Entity{Kind: objects.KindPerson, Ident: fmt.Sprint("p", i), Name: "P", Provenance: prop0}))
		freshGet(t, h.store, heads[i], "camelot")
		h.store.WaitBackground()
	}
	for i, c := range heads {
		_, err := os.Stat(worldFilePath(h.store, c, "camelot"))
		if kept := i >= len(heads)-keepPerScope; kept != (err == nil) {
			t.Fatalf("file %d of %d: kept %v, stat %v", i, len(heads), kept, err)
		}
	}
	if _, err := os.Stat(worldFilePath(h.store, avalon, "avalon")); err != nil {
		t.Fatalf("the other scope's file went: %v", err)
	}
}

// TestWorldFileStager: deloreis check and import stage over the store
// through a Stager: a second stager (a second command) loads the file the
// first one's compile wrote.
func TestWorldFileStager(t *testing.T) {
	h := newHarness(t, "camelot")
	head := h.commitObjects("main", "camelot", &objects.Entity{Kind: objects.KindPerson, Ident: "galahad", Name: "Galahad", Provenance: prop0})
	doc := []objects.Object{&objects.Fact{Entity: "galahad", Key: "seat", Value: "perilous", Provenance: prop0}}
	var afters []string
	for i := range 2 {
		st, err := NewStager(h.store, "main")
		if err != nil {
			t.Fatal(err)
		}
		sg, err := st.Stage("camelot", doc)
		if err != nil {
			t.Fatal(err)
		}
		h.store.WaitBackground()
		if i == 0 {
			wantCounts(t, st.cache, 1, 0, 0, 0)
		} else {
			wantCounts(t, st.cache, 0, 0, 1, 0)
		}
		afters = append(afters, fmt.Sprint(sg.After.Findings(), sg.After.Entities()))
		before, err := sg.Before()
		if err != nil {
			t.Fatal(err)
		}
		sameWorld(t, h.store, head, "camelot", before)
	}
	if afters[0] != afters[1] {
		t.Fatalf("staged over a loaded world:\n%s\nover a compiled one:\n%s", afters[1], afters[0])
	}
}

// TestWorldFileWrittenBeside: a file written beside its compile has its
// whole body on disk before the compile's outcome arrives, is named only
// on success, and leaves nothing behind when the compile failed.
func TestWorldFileWrittenBeside(t *testing.T) {
	h, head, w, hd, path := fileFixture(t, 300)
	if err := os.MkdirAll(filepath.Dir(path), 0o777); err != nil {
		t.Fatal(err)
	}
	// The size a whole file has, from a scratch encoding.
	scratch, err := os.CreateTemp(t.TempDir(), "scratch")
	if err != nil {
		t.Fatal(err)
	}
	if err := encodeWorldFile(scratch, hd, w.Objects(), nil, nil); err != nil {
		t.Fatal(err)
	}
	info, _ := scratch.Stat()
	scratch.Close()
	temps := func() []string {
		left, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".*"))
		return left
	}
	for _, outcome := range []error{nil, errors.New("compile failed")} {
		os.Remove(path)
		ready := make(chan error, 1)
		done := make(chan error, 1)
		built := func() (*world.World, error) { return w, <-ready }
		go func() { done <- writeWorldFile(&writeJob{path: path, hd: hd, entries: w.Objects(), built: built}) }()
		whole := false
		for deadline := time.Now().Add(20 * time.Second); !whole && time.Now().Before(deadline); time.Sleep(time.Millisecond) {
			if left := temps(); len(left) == 1 {
				if fi, err := os.Stat(left[0]); err == nil && fi.Size() == info.Size() {
					whole = true
				}
			}
		}
		select {
		case err := <-done:
			t.Fatalf("the writer ended before the compile's outcome: %v", err)
		default:
		}
		if !whole {
			t.Fatalf("no whole body of %d bytes on disk before the outcome (temp files %v)", info.Size(), temps())
		}
		if _, err := os.Stat(path); err == nil {
			t.Fatal("the file is named before the compile's outcome")
		}
		ready <- outcome
		if err := <-done; err != outcome {
			t.Fatalf("writer: %v, want %v", err, outcome)
		}
		_, statErr := os.Stat(path)
		if (statErr == nil) != (outcome == nil) || len(temps()) > 0 {
			t.Fatalf("after outcome %v: file %v, temp files %v", outcome, statErr, temps())
		}
	}
	// A fresh cache compiles from the store and writes the file beside:
	// one write, and a fresh process then loads it.
	os.Remove(path)
	_, c := freshGet(t, h.store, head, "camelot")
	h.store.WaitBackground()
	if _, _, written := c.fileCounts(); written != 1 {
		t.Fatalf("%d files written by one compile", written)
	}
	got, c2 := freshGet(t, h.store, head, "camelot")
	wantCounts(t, c2, 0, 0, 1, 0)
	sameWorld(t, h.store, head, "camelot", got)
}
