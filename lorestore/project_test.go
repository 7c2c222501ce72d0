// Tests of the project/ namespace: the project's declaration put, read,
// changed and removed across commits, refused when malformed (by a batch,
// and by every path that moves a branch when real git wrote it), carried
// by clone and fetch, and merged as the union of both sides.

package lorestore

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/deloreis/deloreis/internal/testenv"
	"github.com/deloreis/deloreis/objects"
)

// docJSON is a document declaration (not canonical: key order and spacing
// are the store's to fix).
func docJSON(scope, source string) []byte {
	if source == "" {
		return []byte(fmt.Sprintf(`{ "scope": %q }`, scope))
	}
	return []byte(fmt.Sprintf(`{ "source": %q, "scope": %q }`, source, scope))
}

// dialectJSON is a project-level dialect with id.
func dialectJSON(id string) []byte {
	return []byte(fmt.Sprintf(`{"vowels":["a","e"],"type":"dialect","shapes":["CV"],"min_syllables":1,"max_syllables":3,"id":%q,"consonants":["k","l"]}`, id))
}

func canonDoc(t testing.TB, scope, source string) []byte {
	t.Helper()
	c, err := canonicalEnvelope("", docJSON(scope, source), "scope", scope)
	must(t, err)
	return c
}

func canonDialect(t testing.TB, id string) []byte {
	t.Helper()
	c, err := canonicalEnvelope("", dialectJSON(id), "id", id)
	must(t, err)
	return c
}

func projectFiles(t testing.TB, s *Store, commit Hash) []ProjectFile {
	t.Helper()
	sn, err := s.SnapshotAt(commit)
	must(t, err)
	fs, err := sn.ProjectFiles()
	must(t, err)
	return fs
}

// declared renders a snapshot's declaration as "section/name=bytes".
func declared(t testing.TB, s *Store, commit Hash) []string {
	t.Helper()
	var out []string
	for _, f := range projectFiles(t, s, commit) {
		out = append(out, f.Section+"/"+f.Name+"="+string(f.Data))
	}
	return out
}

func TestProjectCanonicalBytes(t *testing.T) {
	tests := []struct {
		name, section, id string
		in                []byte
		want              string
	}{
		{"document", ProjectDocuments, "camelot", []byte("{\n  \"source\": \"lore/camelot.dli\",\n  \"scope\": \"camelot\"\n}\n"),
			`{"scope":"camelot","source":"lore/camelot.dli"}`},
		{"document-escapes", ProjectDocuments, "x", []byte(`{"source":"caf\u00e9/\u0078.dli","scope":"x"}`), `{"scope":"x","source":"café/x.dli"}`},
		{"dialect", ProjectDialects, "elvish", dialectJSON("elvish"),
			`{"consonants":["k","l"],"id":"elvish","max_syllables":3,"min_syllables":1,"shapes":["CV"],"type":"dialect","vowels":["a","e"]}`},
		{"dialect-numbers", ProjectDialects, "d", []byte(`{"id":"d","n":1.0E1}`), `{"id":"d","n":10}`},
	}
	for _, tc := range tests {
		for _, bm := range batchMakers {
			t.Run(tc.name+"/"+bm.name, func(t *testing.T) {
				s, dir := newStore(t)
				b := bm.make(s)
				if tc.section == ProjectDocuments {
					must(t, b.PutDocument(tc.id, tc.in))
				} else {
					must(t, b.PutProjectDialect(tc.id, tc.in))
				}
				res := commitBatch(t, s, b, "declare")
				fs := projectFiles(t, s, res.Commit)
				if len(fs) != 1 || fs[0].Section != tc.section || fs[0].Name != tc.id || string(fs[0].Data) != tc.want {
					t.Fatalf("read back %+v, want %s/%s = %s", fs, tc.section, tc.id, tc.want)
				}
				// Real git reads the same bytes at the same path.
				got := git(t, dir, "--git-dir", dir, "show", "main:project/"+tc.section+"/"+tc.id+".json")
				if got != tc.want {
					t.Fatalf("git show: %q, want %q", got, tc.want)
				}
			})
		}
	}
}

// projectStep is one commit of TestProjectRoundTrip: its edit, and what
// the store reads back after it.
type projectStep struct {
	name    string
	edit    func(b *Batch) error
	want    []string        // the declaration after the commit
	changes []ProjectChange // what ProjectChanges reports
	facts   int             // scope changes the commit also makes
}

// projectRoundTripSteps are TestProjectRoundTrip's commits in order:
// declare, replace and remove beside facts, later call wins, remove all.
func projectRoundTripSteps(t testing.TB) []projectStep {
	t.Helper()
	return []projectStep{
		{
			name: "declare",
			edit: func(b *Batch) error {
				return errors.Join(
					b.PutDocument("camelot", docJSON("camelot", "lore/camelot.dli")),
					b.PutDocument("a-b", docJSON("a-b", "")),
					b.PutDocument("a", docJSON("a", "")),
					b.PutProjectDialect("elvish", dialectJSON("elvish")))
			},
			want: []string{
				"dialects/elvish=" + string(canonDialect(t, "elvish")),
				"documents/a=" + string(canonDoc(t, "a", "")),
				"documents/a-b=" + string(canonDoc(t, "a-b", "")),
				"documents/camelot=" + string(canonDoc(t, "camelot", "lore/camelot.dli")),
			},
			changes: []ProjectChange{
				{Section: ProjectDialects, Name: "elvish"},
				{Section: ProjectDocuments, Name: "a"},
				{Section: ProjectDocuments, Name: "a-b"},
				{Section: ProjectDocuments, Name: "camelot"},
			},
		},
		{
			name: "replace-remove-and-facts",
			edit: func(b *Batch) error {
				if _, err := b.Put("camelot", fact(1)); err != nil {
					return err
				}
				return errors.Join(
					b.PutDocument("camelot", docJSON("camelot", "lore/other.dli")),
					b.RemoveDocument("a"),
					b.Remove("project/documents/a-b.json"),
					b.RemoveProjectDialect("never-declared"))
			},
			want: []string{
				"dialects/elvish=" + string(canonDialect(t, "elvish")),
				"documents/camelot=" + string(canonDoc(t, "camelot", "lore/other.dli")),
			},
			changes: []ProjectChange{
				{Section: ProjectDocuments, Name: "a", Removed: true},
				{Section: ProjectDocuments, Name: "a-b", Removed: true},
				{Section: ProjectDocuments, Name: "camelot", Replaced: true},
			},
			facts: 1,
		},
		{
			name: "later-call-wins",
			edit: func(b *Batch) error {
				return errors.Join(
					b.RemoveProjectDialect("elvish"),
					b.PutProjectDialect("elvish", dialectJSON("elvish")),
					b.PutDocument("avalon", docJSON("avalon", "")),
					b.RemoveDocument("avalon"),
					b.PutDocument("logres", docJSON("logres", "")))
			},
			want: []string{
				"dialects/elvish=" + string(canonDialect(t, "elvish")),
				"documents/camelot=" + string(canonDoc(t, "camelot", "lore/other.dli")),
				"documents/logres=" + string(canonDoc(t, "logres", "")),
			},
			changes: []ProjectChange{{Section: ProjectDocuments, Name: "logres"}},
		},
		{
			name: "remove-all",
			edit: func(b *Batch) error {
				return errors.Join(b.RemoveDocument("camelot"), b.RemoveDocument("logres"), b.RemoveProjectDialect("elvish"))
			},
			changes: []ProjectChange{
				{Section: ProjectDialects, Name: "elvish", Removed: true},
				{Section: ProjectDocuments, Name: "camelot", Removed: true},
				{Section: ProjectDocuments, Name: "logres", Removed: true},
			},
		},
	}
}

// checkProjectStep checks the commit st made: the declaration and the
// ProjectChanges it reports, and scope and DKE diffs holding only st.facts.
func checkProjectStep(t testing.TB, s *Store, commit Hash, st projectStep) {
	t.Helper()
	if got := declared(t, s, commit); !reflect.DeepEqual(got, st.want) {
		t.Fatalf("%s: declaration\n%q\nwant\n%q", st.name, got, st.want)
	}
	pc, err := s.ProjectChanges(commit)
	must(t, err)
	if !reflect.DeepEqual(pc, st.changes) {
		t.Fatalf("%s: ProjectChanges %+v, want %+v", st.name, pc, st.changes)
	}
	// The scope diff, the show stream and the DKE diff see
	// only their own namespaces.
	cs, err := s.Changes(commit)
	must(t, err)
	shown := 0
	must(t, ShowChanges(s, commit, true, func(Change, objects.Object) (bool, error) { return true, nil },
		func(Change, bool) error { shown++; return nil }))
	dc, err := s.DKEChanges(commit)
	must(t, err)
	if len(cs) != st.facts || shown != st.facts || len(dc) != 0 {
		t.Fatalf("%s: Changes %v, shown %d, DKEChanges %v; want %d scope changes only", st.name, cs, shown, dc, st.facts)
	}
}

// TestProjectRoundTrip: puts, replacements and removals across commits,
// read back by ProjectFiles and reported by ProjectChanges, while the
// scope and DKE diffs of those commits stay as they were.
func TestProjectRoundTrip(t *testing.T) {
	for _, bm := range batchMakers {
		t.Run(bm.name, func(t *testing.T) {
			s, _ := newStore(t)
			for _, st := range projectRoundTripSteps(t) {
				b := bm.make(s)
				must(t, st.edit(b))
				res := commitBatch(t, s, b, st.name)
				checkProjectStep(t, s, res.Commit, st)
			}
			if ps, err := s.Fsck(); err != nil || len(ps) != 0 {
				t.Fatalf("fsck: %v %v", ps, err)
			}
		})
	}
}

// TestProjectBadPutsChangeNothing: each refused call leaves the batch as
// it was, and a commit of it writes nothing.
func TestProjectBadPutsChangeNothing(t *testing.T) {
	badUTF8 := []byte(`{"scope":"camelot","source":"` + "\xff" + `"}`)
	tests := []struct {
		name string
		call func(b *Batch) error
		want any // a pointer to the error type expected
	}{
		{"doc-scope-slash", func(b *Batch) error { return b.PutDocument("a/b", docJSON("a/b", "")) }, new(*ScopeError)},
		{"doc-scope-dotdot", func(b *Batch) error { return b.PutDocument("..", docJSON("..", "")) }, new(*ScopeError)},
		{"doc-scope-dot", func(b *Batch) error { return b.PutDocument("a.b", docJSON("a.b", "")) }, new(*ScopeError)},
		{"doc-scope-empty", func(b *Batch) error { return b.PutDocument("", docJSON("", "")) }, new(*ScopeError)},
		{"doc-scope-long", func(b *Batch) error { n := strings.Repeat("a", 129); return b.PutDocument(n, docJSON(n, "")) }, new(*ScopeError)},
		{"remove-doc-bad", func(b *Batch) error { return b.RemoveDocument("a b") }, new(*ScopeError)},
		{"dialect-id-slash", func(b *Batch) error { return b.PutProjectDialect("x/y", dialectJSON("x/y")) }, new(*NameError)},
		{"dialect-id-control", func(b *Batch) error { return b.PutProjectDialect("e\x01", dialectJSON("e\x01")) }, new(*NameError)},
		{"remove-dialect-bad", func(b *Batch) error { return b.RemoveProjectDialect(".") }, new(*NameError)},
		{"doc-member-mismatch", func(b *Batch) error { return b.PutDocument("camelot", docJSON("avalon", "")) }, new(*DataError)},
		{"doc-no-member", func(b *Batch) error { return b.PutDocument("camelot", []byte(`{"source":"x.dli"}`)) }, new(*DataError)},
		{"doc-member-not-string", func(b *Batch) error { return b.PutDocument("camelot", []byte(`{"scope":["camelot"]}`)) }, new(*DataError)},
		{"doc-id-member", func(b *Batch) error { return b.PutDocument("camelot", []byte(`{"id":"camelot"}`)) }, new(*DataError)},
		{"doc-array", func(b *Batch) error { return b.PutDocument("camelot", []byte(`[{"scope":"camelot"}]`)) }, new(*DataError)},
		{"doc-string", func(b *Batch) error { return b.PutDocument("camelot", []byte(`"camelot"`)) }, new(*DataError)},
		{"doc-null", func(b *Batch) error { return b.PutDocument("camelot", []byte(`null`)) }, new(*DataError)},
		{"doc-not-json", func(b *Batch) error { return b.PutDocument("camelot", []byte("scope = \"camelot\"\n")) }, new(*DataError)},
		{"doc-two-values", func(b *Batch) error { return b.PutDocument("camelot", []byte(`{"scope":"camelot"} {}`)) }, new(*DataError)},
		{"doc-duplicate-key", func(b *Batch) error { return b.PutDocument("camelot", []byte(`{"scope":"camelot","scope":"camelot"}`)) }, new(*DataError)},
		{"doc-lone-surrogate", func(b *Batch) error { return b.PutDocument("camelot", []byte(`{"scope":"camelot","source":"\ud800"}`)) }, new(*DataError)},
		{"doc-huge-number", func(b *Batch) error { return b.PutDocument("camelot", []byte(`{"scope":"camelot","n":1e400}`)) }, new(*DataError)},
		{"doc-bad-utf8", func(b *Batch) error { return b.PutDocument("camelot", badUTF8) }, new(*DataError)},
		{"dialect-member-mismatch", func(b *Batch) error { return b.PutProjectDialect("elvish", dialectJSON("dwarvish")) }, new(*DataError)},
		{"dialect-scope-member", func(b *Batch) error { return b.PutProjectDialect("elvish", docJSON("elvish", "")) }, new(*DataError)},
		{"dialect-empty", func(b *Batch) error { return b.PutProjectDialect("elvish", nil) }, new(*DataError)},
		{"remove-path-unknown-section", func(b *Batch) error { return b.Remove("project/forks/x.json") }, new(*NameError)},
		{"remove-path-bad-name", func(b *Batch) error { return b.Remove("project/documents/a.b.json") }, new(*NameError)},
		{"remove-path-no-suffix", func(b *Batch) error { return b.Remove("project/documents/camelot") }, new(*NameError)},
		{"remove-path-too-deep", func(b *Batch) error { return b.Remove("project/documents/x/camelot.json") }, new(*NameError)},
		{"remove-path-section", func(b *Batch) error { return b.Remove("project/documents") }, new(*NameError)},
	}
	for _, tc := range tests {
		for _, bm := range batchMakers {
			t.Run(tc.name+"/"+bm.name, func(t *testing.T) {
				s, dir := newStore(t)
				before := dirState(t, dir)
				b := bm.make(s)
				err := tc.call(b)
				if err == nil || !errors.As(err, tc.want) {
					t.Fatalf("got %v (%T), want %T", err, err, reflect.ValueOf(tc.want).Elem().Interface())
				}
				if strings.Contains(err.Error(), "\n") {
					t.Fatalf("error is not one line: %q", err)
				}
				if b.Len() != 0 {
					t.Fatalf("a refused call left %d changes in the batch", b.Len())
				}
				res, err := s.Commit(b, NewMessage("nothing", "dke.run", ""), CommitOptions{})
				if err != nil || !res.Empty {
					t.Fatalf("commit of the untouched batch: %+v %v", res, err)
				}
				s.WaitBackground()
				sameState(t, before, dirState(t, dir))
			})
		}
	}
}

// projectBadEdits are the members of the class "project/ content a lore
// branch must not hold", each as an edit real git makes of a branch.
func projectBadEdits(t *testing.T) map[string]map[string][]byte {
	t.Helper()
	doc := canonDoc(t, "camelot", "")
	dia := canonDialect(t, "elvish")
	return map[string]map[string][]byte{
		"doc-member-mismatch":     {"project/documents/camelot.json": canonDoc(t, "avalon", "")},
		"doc-no-member":           {"project/documents/camelot.json": []byte(`{"source":"x.dli"}`)},
		"doc-member-not-string":   {"project/documents/camelot.json": []byte(`{"scope":1}`)},
		"doc-not-canonical":       {"project/documents/camelot.json": docJSON("camelot", "")},
		"doc-trailing-newline":    {"project/documents/camelot.json": append(append([]byte{}, doc...), '\n')},
		"doc-not-object":          {"project/documents/camelot.json": []byte(`["camelot"]`)},
		"doc-not-json":            {"project/documents/camelot.json": []byte("scope = camelot\n")},
		"doc-bad-name":            {"project/documents/a.b.json": []byte(`{"scope":"a.b"}`)},
		"doc-no-suffix":           {"project/documents/camelot": doc},
		"doc-other-suffix":        {"project/documents/camelot.toml": doc},
		"doc-too-deep":            {"project/documents/x/camelot.json": doc},
		"doc-executable":          {"100755:project/documents/camelot.json": doc},
		"doc-symlink":             {"120000:project/documents/camelot.json": []byte("../../lore.json")},
		"dialect-member-mismatch": {"project/dialects/elvish.json": canonDialect(t, "dwarvish")},
		"dialect-scope-member":    {"project/dialects/elvish.json": []byte(`{"scope":"elvish"}`)},
		"dialect-not-canonical":   {"project/dialects/elvish.json": dialectJSON("elvish")},
		"dialect-in-documents":    {"project/documents/elvish.json": dia},
		"unknown-section":         {"project/forks/x.json": []byte(`{"id":"x"}`)},
		"stray-file":              {"project/README": []byte("hello\n")},
		"stray-json":              {"project/deloreis.json": []byte(`{}`)},
		"section-is-a-file":       {"project/documents": doc},
		"project-is-a-file":       {"project": doc},
	}
}

// projectCorruptSide builds a store whose main holds a scope and a
// declaration and a branch side rewritten by real git with edits (then a
// good commit on top, when the store can build on it); diverge moves
// main too.
func projectCorruptSide(t *testing.T, edits map[string][]byte, diverge bool) (*Store, string) {
	t.Helper()
	s, dir := newStore(t)
	commitFacts(t, s, "camelot", 0, 3)
	if _, err := s.CreateBranch("side", ""); err != nil {
		t.Fatal(err)
	}
	side := func(n int) error {
		b := NewBatch()
		if _, err := b.Put("camelot", fact(n)); err != nil {
			return err
		}
		_, err := s.Commit(b, NewMessage("side work", "materialize", "camelot"), CommitOptions{Branch: "side"})
		return err
	}
	must(t, side(5))
	rewriteBranch(t, dir, "side", edits)
	_ = side(6) // the edit may break the layout so the store cannot build on it
	if diverge {
		b := NewBatch()
		must(t, b.PutDocument("logres", docJSON("logres", "")))
		commitBatch(t, s, b, "main work")
	}
	return s, dir
}

func TestProjectCorruptContentNeverReachesABranch(t *testing.T) {
	wantFolderKeptOff(t, "project", projectBadEdits(t), projectCorruptSide)
}

// TestProjectRefusalsSayWhy: the reasons a branch is refused name what is
// wrong in words a person can act on.
func TestProjectRefusalsSayWhy(t *testing.T) {
	tests := []struct {
		edit string
		want string
	}{
		{"unknown-section", `"forks" is not a section of project/ (only documents/ and dialects/ are allowed)`},
		{"stray-file", `"README" is not a section of project/`},
		{"doc-bad-name", `"a.b.json" is not a file <id>.json of project/documents`},
		{"doc-member-mismatch", `its "scope" member is "avalon", not "camelot" as its path says`},
		{"dialect-scope-member", `has no "id" member`},
		{"doc-not-canonical", "not canonical JSON (RFC 8785)"},
		{"doc-not-object", "not a JSON object"},
		{"doc-too-deep", "the layout has no folders in project/documents, only files <id>.json"},
		{"section-is-a-file", "a file where the layout has a folder"},
		{"doc-executable", "not a regular file"},
	}
	edits := projectBadEdits(t)
	for _, tc := range tests {
		t.Run(tc.edit, func(t *testing.T) {
			s, _ := projectCorruptSide(t, edits[tc.edit], false)
			_, err := s.Merge("side", MergeOptions{})
			wantRefused(t, err)
			if !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("refusal %q does not say %q", err, tc.want)
			}
		})
	}
}

// TestGoodProjectContentStillMerges: a valid declaration written by real
// git merges like the store's own, and a removal by real git is taken.
func TestGoodProjectContentStillMerges(t *testing.T) {
	s, dir := newStore(t)
	b := NewBatch()
	must(t, b.PutDocument("camelot", docJSON("camelot", "")))
	must(t, b.PutDocument("avalon", docJSON("avalon", "")))
	commitBatch(t, s, b, "declare")
	if _, err := s.CreateBranch("side", ""); err != nil {
		t.Fatal(err)
	}
	rewriteBranch(t, dir, "side", map[string][]byte{
		"project/documents/camelot.json": canonDoc(t, "camelot", "lore/camelot.dli"),
		"project/dialects/elvish.json":   canonDialect(t, "elvish"),
		"project/documents/avalon.json":  nil, // removed
	})
	commitFacts(t, s, "camelot", 0, 2) // main moves on
	res, err := s.Merge("side", MergeOptions{})
	must(t, err)
	want := []string{
		"dialects/elvish=" + string(canonDialect(t, "elvish")),
		"documents/camelot=" + string(canonDoc(t, "camelot", "lore/camelot.dli")),
	}
	if got := declared(t, s, res.Commit); !reflect.DeepEqual(got, want) {
		t.Fatalf("merged declaration %q, want %q", got, want)
	}
	if ps, err := s.Fsck(); err != nil || len(ps) != 0 {
		t.Fatalf("fsck: %v %v", ps, err)
	}
	s.WaitBackground()
	fsckClean(t, dir)
}

// TestProjectMerge: the union merge over the base takes a declaration from
// either side, keeps both sides' different declarations, and refuses one
// file both sides changed differently, moving nothing.
func TestProjectMerge(t *testing.T) {
	type side func(b *Batch) error
	put := func(scope, source string) side {
		return func(b *Batch) error { return b.PutDocument(scope, docJSON(scope, source)) }
	}
	remove := func(scope string) side { return func(b *Batch) error { return b.RemoveDocument(scope) } }
	none := side(nil)
	tests := []struct {
		name         string
		main, branch side
		want         []string // the merged documents, "scope=source"
		conflict     string   // the path a refused merge names
	}{
		{"branch-declares", none, put("avalon", ""), []string{"avalon=", "camelot=lore/camelot.dli"}, ""},
		{"main-declares", put("avalon", ""), none, []string{"avalon=", "camelot=lore/camelot.dli"}, ""},
		{"both-declare-different", put("avalon", ""), put("logres", "lore/logres.dli"), []string{"avalon=", "camelot=lore/camelot.dli", "logres=lore/logres.dli"}, ""},
		{"both-declare-same", put("avalon", "a.dli"), put("avalon", "a.dli"), []string{"avalon=a.dli", "camelot=lore/camelot.dli"}, ""},
		{"branch-changes", none, put("camelot", "other.dli"), []string{"camelot=other.dli"}, ""},
		{"branch-removes", none, remove("camelot"), nil, ""},
		{"both-change-differently", put("camelot", "a.dli"), put("camelot", "b.dli"), nil, "project/documents/camelot.json"},
		{"both-add-differently", put("avalon", "a.dli"), put("avalon", "b.dli"), nil, "project/documents/avalon.json"},
		{"change-and-remove", put("camelot", "a.dli"), remove("camelot"), nil, "project/documents/camelot.json"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, dir := newStore(t)
			b := NewBatch()
			must(t, put("camelot", "lore/camelot.dli")(b))
			commitBatch(t, s, b, "declare camelot")
			if _, err := s.CreateBranch("side", ""); err != nil {
				t.Fatal(err)
			}
			write := func(branch string, edit side, n int) {
				b := NewBatch()
				if _, err := b.Put("camelot", fact(n)); err != nil { // both sides move
					t.Fatal(err)
				}
				if edit != nil {
					must(t, edit(b))
				}
				if _, err := s.Commit(b, NewMessage("work on "+branch, "materialize", ""), CommitOptions{Branch: branch}); err != nil {
					t.Fatal(err)
				}
			}
			write("main", tc.main, 1)
			write("side", tc.branch, 2)
			before := testenv.Branches(t, dir)
			res, err := s.Merge("side", MergeOptions{})
			if tc.conflict != "" {
				var me *MergeError
				if !errors.As(err, &me) || me.Path != tc.conflict || !strings.Contains(me.Reason, "both sides changed this declaration differently") {
					t.Fatalf("merge: %v, want a *MergeError at %s", err, tc.conflict)
				}
				testenv.SameBranches(t, "the conflicting merge", before, testenv.Branches(t, dir))
				return
			}
			must(t, err)
			var got []string
			for _, f := range projectFiles(t, s, res.Commit) {
				var src string
				if i := strings.Index(string(f.Data), `"source":"`); i >= 0 {
					src = strings.SplitN(string(f.Data[i+len(`"source":"`):]), `"`, 2)[0]
				}
				got = append(got, f.Name+"="+src)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("merged documents %q, want %q", got, tc.want)
			}
			if ids := allIDs(t, s, "main"); len(ids) != 2 {
				t.Fatalf("merged main holds %d objects, want both sides' 2", len(ids))
			}
		})
	}
}

// TestProjectTravelsWithTheLore: a clone of a store holds its declaration,
// and a fetch brings a declaration made since; every copy passes git fsck.
func TestProjectTravelsWithTheLore(t *testing.T) {
	base := t.TempDir()
	remote := bareRemote(t, base, "r.git")
	url := "file://" + remote
	a, adir := newStore(t)
	b := NewBatch()
	must(t, b.PutDocument("camelot", docJSON("camelot", "lore/camelot.dli")))
	must(t, b.PutProjectDialect("elvish", dialectJSON("elvish")))
	if _, err := b.Put("camelot", fact(1)); err != nil {
		t.Fatal(err)
	}
	first := commitBatch(t, a, b, "declare camelot").Commit
	if _, err := a.Push(context.Background(), url, PushOptions{}); err != nil {
		t.Fatal(err)
	}
	c, err := Clone(context.Background(), url, filepath.Join(base, "c.git"), CloneOptions{Store: Options{Now: fixedClock()}})
	must(t, err)
	t.Cleanup(func() { c.Close() })
	head, err := c.Resolve("main")
	must(t, err)
	if head != first || !reflect.DeepEqual(declared(t, c, head), declared(t, a, first)) {
		t.Fatalf("the clone declares %q, want %q", declared(t, c, head), declared(t, a, first))
	}

	b = NewBatch()
	must(t, b.PutDocument("avalon", docJSON("avalon", "")))
	second := commitBatch(t, a, b, "declare avalon").Commit
	if _, err := a.Push(context.Background(), url, PushOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Fetch(context.Background(), "origin", FetchOptions{}); err != nil {
		t.Fatal(err)
	}
	res, err := c.Merge("origin/main", MergeOptions{FastForward: true})
	must(t, err)
	if !res.FastForward || res.Commit != second {
		t.Fatalf("pull: %+v", res)
	}
	got := declared(t, c, res.Commit)
	if len(got) != 3 || !reflect.DeepEqual(got, declared(t, a, second)) {
		t.Fatalf("after fetch the clone declares %q, want %q", got, declared(t, a, second))
	}
	pc, err := c.ProjectChanges(res.Commit)
	must(t, err)
	if !reflect.DeepEqual(pc, []ProjectChange{{Section: ProjectDocuments, Name: "avalon"}}) {
		t.Fatalf("ProjectChanges of the fetched commit: %+v", pc)
	}
	for _, s := range []*Store{a, c} {
		if ps, err := s.Fsck(); err != nil || len(ps) != 0 {
			t.Fatalf("fsck %s: %v %v", s.Dir(), ps, err)
		}
		s.WaitBackground()
		fsckClean(t, s.Dir())
	}
	fsckClean(t, remote)
	fsckClean(t, adir)
	// Real git reads the declaration of the remote as the store wrote it.
	if got := git(t, remote, "--git-dir", remote, "ls-tree", "-r", "--name-only", "main", "project"); got != "project/dialects/elvish.json\nproject/documents/avalon.json\nproject/documents/camelot.json\n" {
		t.Fatalf("git ls-tree: %q", got)
	}
}
