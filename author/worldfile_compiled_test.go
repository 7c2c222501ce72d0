package author

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/deloreis/deloreis/datalog"
	"github.com/deloreis/deloreis/lorestore"
	"github.com/deloreis/deloreis/objects"
	"github.com/deloreis/deloreis/world"
)

// compiledHarness commits a world with a recursion and a negation, opens
// it once (the compile writes its file) and returns the store's head.
func compiledHarness(t *testing.T) (*harness, lorestore.Hash) {
	t.Helper()
	h := newHarness(t, "camelot")
	X, Y, Z := objects.Var("X"), objects.Var("Y"), objects.Var("Z")
	at := func(pred string, args ...objects.Term) objects.Atom { return objects.Atom{Pred: pred, Args: args} }
	objs := []objects.Object{
		&objects.Rule{Name: "line-base", Head: at("line", X, Y), Body: []objects.Literal{{Atom: at("mentor", X, Y)}}, Provenance: prop0},
		&objects.Rule{Name: "line-step", Head: at("line", X, Z), Body: []objects.Literal{{Atom: at("line", X, Y)}, {Atom: at("mentor", Y, Z)}}, Provenance: prop0},
		&objects.Rule{Name: "alone", Head: at("alone", X), Body: []objects.Literal{{Atom: at("person", X)}, {Atom: at("taught", X), Negated: true}}, Provenance: prop0},
		&objects.Rule{Name: "taught", Head: at("taught", Y), Body: []objects.Literal{{Atom: at("mentor", X, Y)}}, Provenance: prop0},
	}
	for i := range 40 {
		objs = append(objs, &objects.Entity{Kind: objects.KindPerson, Ident: fmt.Sprint("p-", i), Name: fmt.Sprint("P ", i), Provenance: prop0})
		if i%3 != 0 {
			objs = append(objs, &objects.Relation{Relation: "mentor", From: fmt.Sprint("p-", i-1), To: fmt.Sprint("p-", i), Provenance: prop0})
		}
	}
	head := h.commitObjects("main", "camelot", objs...)
	freshGet(t, h.store, head, "camelot")
	h.store.WaitBackground()
	return h, head
}

// TestWorldFileCompiled: a fresh process restores the world from the
// file's compiled section (no lowering, no evaluation) and it reads as a
// compile, also once staged over; a compiled section of another build is
// not used, and the file is written again with this build's; one of this
// build that does not load, or is of another world, is refused and the
// file written again.
func TestWorldFileCompiled(t *testing.T) {
	h, head := compiledHarness(t)
	path := worldFilePath(h.store, head, "camelot")
	if compiledSection(readFile(t, path)) == nil {
		t.Fatal("the file has no compiled section")
	}
	keepBudget(t, 100, 1<<40)
	files, maps := keptCount(), mappingsOf(t, path)
	w, c := freshGet(t, h.store, head, "camelot")
	wantCounts(t, c, 0, 0, 1, 0)
	if c.restored != 1 || !w.Restored() {
		t.Fatalf("the world was not restored from the compiled section (%d restored)", c.restored)
	}
	if c.inPlace != 1 {
		t.Fatalf("the restored world's entries were decoded, not read in place (%d in place)", c.inPlace)
	}
	// Its snapshot was loaded in place: the file stays mapped, and the
	// world is read, staged over and diffed below through the mapping.
	if keptCount() != files+1 || mappingsOf(t, path) != maps+1 {
		t.Fatalf("%d mappings kept (%d before), %d of the file (%d before); want one more of each",
			keptCount(), files, mappingsOf(t, path), maps)
	}
	sameWorld(t, h.store, head, "camelot", w)
	stagedOver(t, h, head, w)

	for _, tc := range unusableCompiledEdits(t) {
		t.Run(tc.name, func(t *testing.T) {
			good := readFile(t, path)
			editFile(t, path, tc.edit)
			files := keptCount()
			w, c := freshGet(t, h.store, head, "camelot")
			wantCounts(t, c, tc.compiles, 0, tc.loads, tc.reject)
			if w.Restored() {
				t.Fatal("the world was restored from a section it must not use")
			}
			// Another build's file is evaluated over its entries in
			// place, and its mapping kept; a refused snapshot of this
			// build is not worth the mapping.
			if tc.inPlace != (keptCount() == files+1) || tc.inPlace != (c.inPlace == 1) {
				t.Fatalf("%d mappings kept (%d before), %d worlds in place; want the entries in place: %v",
					keptCount(), files, c.inPlace, tc.inPlace)
			}
			sameWorld(t, h.store, head, "camelot", w)
			h.store.WaitBackground()
			// Written again, whether from the entries in place or
			// decoded, it is the file this build writes.
			if got := readFile(t, path); !bytes.Equal(got, good) {
				t.Fatalf("the file written again (%d bytes) is not the one this build writes (%d bytes)", len(got), len(good))
			}
			w, c = freshGet(t, h.store, head, "camelot")
			if !w.Restored() || c.restored != 1 {
				t.Fatal("the file written again does not restore")
			}
			if want := files + 1 + btoi(tc.inPlace); keptCount() != want {
				t.Fatalf("%d mappings kept, want %d: the restored world's is not", keptCount(), want)
			}
		})
	}
	// A file of v1's layout is refused by its version.
	editFile(t, path, func(b []byte) []byte { binary.LittleEndian.PutUint32(b[8:], 1); return b })
	_, c = freshGet(t, h.store, head, "camelot")
	wantCounts(t, c, 1, 0, 0, 1)
}

// TestWorldFileForeignNoRoom: without room to keep its mapping, a file
// whose compiled section is another build's is decoded, not read in
// place, and written again byte for byte as this build writes it.
func TestWorldFileForeignNoRoom(t *testing.T) {
	h, head := compiledHarness(t)
	path := worldFilePath(h.store, head, "camelot")
	good := readFile(t, path)
	editFile(t, path, unusableCompiledEdits(t)[0].edit)
	keepBudget(t, 0, 0)
	files := keptCount()
	w, c := freshGet(t, h.store, head, "camelot")
	wantCounts(t, c, 0, 0, 1, 0)
	if c.inPlace != 0 || keptCount() != files {
		t.Fatalf("%d worlds in place, %d mappings kept (%d before), with no room", c.inPlace, keptCount(), files)
	}
	sameWorld(t, h.store, head, "camelot", w)
	h.store.WaitBackground()
	if got := readFile(t, path); !bytes.Equal(got, good) {
		t.Fatalf("the file written again (%d bytes) is not the one this build writes (%d bytes)", len(got), len(good))
	}
}

// compiledEdit is an edit of a world file's compiled section, and the
// counts a fresh get of the edited file wants.
type compiledEdit struct {
	name            string
	edit            func([]byte) []byte
	compiles, loads int
	reject          int
	inPlace         bool // the world is evaluated over the entries in place
}

// unusableCompiledEdits are the edits that leave a compiled section a
// fresh process must not restore from: another build's, one that does not
// load, one of another world.
func unusableCompiledEdits(t *testing.T) []compiledEdit {
	return []compiledEdit{
		{"another build's key", func(b []byte) []byte {
			sec := compiledSection(b)
			sec[0] ^= 1
			return resum(t, b)
		}, 0, 1, 0, true},
		{"a snapshot of this build that does not load", func(b []byte) []byte {
			sec := compiledSection(b)
			copy(sec[32:], "garbage!")
			return resum(t, b)
		}, 0, 1, 1, false}, // the entries are used, the section refused

		{"a snapshot of another world", func(b []byte) []byte {
			sec := compiledSection(b)
			i := bytes.Index(sec, []byte("line-step"))
			sec[i+len("line-")] = 'x'
			return resum(t, b)
		}, 0, 1, 1, false}, // the entries are used, the section refused
	}
}

// stagedOver stages the same objects over w, a world restored from a file,
// and over a compile of head, and checks they read and diff alike.
func stagedOver(t *testing.T, h *harness, head lorestore.Hash, w *world.World) {
	t.Helper()
	want, err := CompileAt(h.store, head, "camelot")
	if err != nil {
		t.Fatal(err)
	}
	extra := []objects.Object{
		&objects.Relation{Relation: "mentor", From: "p-2", To: "p-3", Provenance: prop0},
		&objects.Entity{Kind: objects.KindPerson, Ident: "p-99", Name: "P 99", Provenance: prop0},
	}
	sg, err := w.Stage(extra, nil)
	if err != nil {
		t.Fatal(err)
	}
	sw, err := want.Stage(extra, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []datalog.Atom{
		{Pred: "line", Args: []datalog.Term{datalog.V("X"), datalog.V("Y")}},
		{Pred: "alone", Args: []datalog.Term{datalog.V("X")}},
		{Pred: "taught", Args: []datalog.Term{datalog.V("X")}},
	} {
		g, w := fmt.Sprint(sg.Query(q)), fmt.Sprint(sw.Query(q))
		if g != w || len(sw.Query(q)) == 0 {
			t.Fatalf("staged over the restored world, %s reads %s; over a compile %s", q.Pred, g, w)
		}
	}
	if g, w := fmt.Sprint(sg.Findings()), fmt.Sprint(sw.Findings()); g != w {
		t.Fatalf("staged findings over the restored world %s; over a compile %s", g, w)
	}
	if g, x := fmt.Sprint(w.Diff(sg)), fmt.Sprint(want.Diff(sw)); g != x || x == fmt.Sprint(world.ConsequenceDiff{}) {
		t.Fatalf("the restored world's diff to its staging %s; a compile's %s", g, x)
	}
}

// TestWorldFileKeepBudget: a world is restored from its file whether or
// not the budget of kept mappings has room; with room its snapshot is
// loaded in place and the file stays mapped, without it the snapshot is
// copied and the file unmapped. Either world reads and stages as a
// compile.
func TestWorldFileKeepBudget(t *testing.T) {
	h, head := compiledHarness(t)
	path := worldFilePath(h.store, head, "camelot")
	size := int64(len(readFile(t, path)))
	for _, tc := range []struct {
		name  string
		files int
		bytes int64
		kept  bool
	}{
		{"room", 1, size, true},
		{"no file left", 0, 1 << 40, false},
		{"too few bytes left", 1, size - 1, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			keepBudget(t, tc.files, tc.bytes)
			files, maps := keptCount(), mappingsOf(t, path)
			w, c := freshGet(t, h.store, head, "camelot")
			if !w.Restored() || c.restored != 1 {
				t.Fatal("the world was not restored from its file")
			}
			more := 0
			if tc.kept {
				more = 1
			}
			if keptCount() != files+more || mappingsOf(t, path) != maps+more {
				t.Fatalf("%d mappings kept (%d before), %d of the file (%d before); want %d more of each",
					keptCount(), files, mappingsOf(t, path), maps, more)
			}
			stagedOver(t, h, head, w)
		})
	}
}

// keepBudget leaves room for files more kept mappings of bytes more bytes
// until the test ends.
func keepBudget(t *testing.T, files int, bytes int64) {
	kept.mu.Lock()
	limit, limitBytes := kept.limit, kept.limitBytes
	kept.limit, kept.limitBytes = kept.files+files, kept.bytes+bytes
	kept.mu.Unlock()
	t.Cleanup(func() {
		kept.mu.Lock()
		kept.limit, kept.limitBytes = limit, limitBytes
		kept.mu.Unlock()
	})
}

func keptCount() int {
	n, _ := keptMappings()
	return n
}

// mappingsOf counts the process's mappings of the file now at path.
func mappingsOf(t *testing.T, path string) int {
	t.Helper()
	b, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		t.Skip("no /proc/self/maps")
	}
	n := 0
	for line := range strings.Lines(string(b)) {
		// address perms offset dev inode path; a file renamed over or
		// removed since is named "path (deleted)".
		if f := strings.Fields(line); len(f) == 6 && f[5] == path {
			n++
		}
	}
	return n
}

// TestBuildKey: one clean build has one key wherever its binary sits;
// another commit, toolchain or architecture another; an unstamped or
// modified build is named by its executable, so a rebuild changes it.
func TestBuildKey(t *testing.T) {
	info := func(path, rev, modified, goVersion string, deps ...string) *debug.BuildInfo {
		bi := &debug.BuildInfo{GoVersion: goVersion, Path: path, Main: debug.Module{Path: "github.com/deloreis/deloreis", Version: "(devel)"},
			Settings: []debug.BuildSetting{{Key: "GOARCH", Value: "amd64"}, {Key: "CGO_ENABLED", Value: "0"}}}
		if rev != "" {
			bi.Settings = append(bi.Settings, debug.BuildSetting{Key: "vcs.revision", Value: rev}, debug.BuildSetting{Key: "vcs.modified", Value: modified})
		}
		for _, d := range deps {
			bi.Deps = append(bi.Deps, &debug.Module{Path: d, Version: "v1.0.0"})
		}
		return bi
	}
	dir := t.TempDir()
	write := func(name, content string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(content), 0o755); err != nil {
			t.Fatal(err)
		}
		return path
	}
	exe, copied := write("deloreis", "cli"), write("deloreis-copy", "cli, elsewhere")
	other := write("other", "cli")
	clean := buildKey(info("github.com/deloreis/deloreis/cmd/deloreis", "abc", "false", "go1.26.8", "a"), programFiles(exe))
	if k := buildKey(info("github.com/deloreis/deloreis/cmd/deloreis", "abc", "false", "go1.26.8", "a"), programFiles(copied)); k != clean {
		t.Fatal("one clean build has other keys in two places")
	}
	unstamped := buildKey(nil, programFiles(exe))
	for name, k := range map[string][32]byte{
		"another commit":            buildKey(info("x", "abd", "false", "go1.26.8"), nil),
		"another toolchain":         buildKey(info("x", "abc", "false", "go1.26.9"), nil),
		"a modified tree":           buildKey(info("x", "abc", "true", "go1.26.8"), programFiles(exe)),
		"no stamp":                  unstamped,
		"another program, same ELF": buildKey(nil, programFiles(other)),
	} {
		if k == clean {
			t.Errorf("%s: the same key as the clean build", name)
		}
	}
	if buildKey(nil, programFiles(other)) == unstamped {
		t.Error("another executable has the program's unstamped key")
	}
	write("deloreis", "cli, rebuilt")
	if buildKey(nil, programFiles(exe)) == unstamped {
		t.Error("deloreis rebuilt: its unstamped key did not change")
	}
	if k := buildKey(nil, []string{filepath.Join(dir, "missing")}); k != ([32]byte{}) {
		t.Error("a build with no stamp and no executable to read has a key")
	}
}
