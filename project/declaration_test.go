// Tests of the lore's declaration: encoding documents and dialects,
// reading them back (also through a real lorestore commit), and the files
// and sources refused.

package project

import (
	"reflect"
	"strings"
	"testing"

	"github.com/deloreis/deloreis/lorestore"
	"github.com/deloreis/deloreis/objects"
)

func elvish() *objects.Dialect {
	return &objects.Dialect{Ident: "elvish", Consonants: []string{"l", "th", "r"}, Vowels: []string{"e", "a"}, Shapes: []string{"CV", "CVC"},
		Forbid: []string{"rl"}, MinSyllables: 1, MaxSyllables: 3, Provenance: objects.Proposed(DialectOrigin)}
}

func mustEncodeDoc(t *testing.T, scope, source string) []byte {
	t.Helper()
	data, err := EncodeDocument(scope, source)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func mustEncodeDialect(t *testing.T, d *objects.Dialect) []byte {
	t.Helper()
	data, err := EncodeDialect(d)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestEncodeDocument(t *testing.T) {
	tests := []struct {
		scope, source string
		want          string // "" when refused
		msg           string
	}{
		{"camelot", "", `{"scope":"camelot"}`, ""},
		{"camelot", "lore/camelot.dli", `{"scope":"camelot","source":"lore/camelot.dli"}`, ""},
		{"camelot", "café/ü.dli", `{"scope":"camelot","source":"café/ü.dli"}`, ""},
		{"a.b", "", "", "not an id"},
		{"", "", "", "not an id"},
		{"camelot", "../camelot.dli", "", "leaves the project folder"},
		{"camelot", "lore/../../camelot.dli", "", "leaves the project folder"},
		{"camelot", "/etc/camelot.dli", "", "must be relative"},
		{"camelot", `lore\camelot.dli`, "", "backslash"},
		{"camelot", "lore//camelot.dli", "", "empty segment"},
		{"camelot", "lore/", "", "empty segment"},
		{"camelot", "./camelot.dli", "", "not clean"},
		{"camelot", "a\x00.dli", "", "NUL"},
	}
	for _, tc := range tests {
		got, err := EncodeDocument(tc.scope, tc.source)
		if tc.want == "" {
			if err == nil || !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("EncodeDocument(%q, %q) = %s, %v; want an error mentioning %q", tc.scope, tc.source, got, err, tc.msg)
			}
			continue
		}
		if err != nil || string(got) != tc.want {
			t.Errorf("EncodeDocument(%q, %q) = %s, %v; want %s", tc.scope, tc.source, got, err, tc.want)
		}
	}
}

func TestEncodeDialect(t *testing.T) {
	got := mustEncodeDialect(t, elvish())
	want := `{"consonants":["l","r","th"],"forbid":["rl"],"id":"elvish","max_syllables":3,"min_syllables":1,"shapes":["CV","CVC"],"type":"dialect","vowels":["a","e"]}`
	if string(got) != want {
		t.Fatalf("EncodeDialect = %s\nwant %s", got, want)
	}
	// The provenance is configuration's: another one encodes the same.
	d := elvish()
	d.Provenance = objects.Proposed("somebody")
	if again := mustEncodeDialect(t, d); string(again) != want {
		t.Fatalf("another provenance encodes as %s", again)
	}
	d.Provenance = nil
	if again := mustEncodeDialect(t, d); string(again) != want {
		t.Fatalf("no provenance encodes as %s", again)
	}
	bad := elvish()
	bad.MinSyllables = 9
	for _, x := range []*objects.Dialect{nil, bad} {
		if data, err := EncodeDialect(x); err == nil {
			t.Errorf("EncodeDialect(%+v) = %s, want an error", x, data)
		}
	}
}

func TestReadDeclaration(t *testing.T) {
	doc := func(name string, data string) lorestore.ProjectFile {
		return lorestore.ProjectFile{Section: lorestore.ProjectDocuments, Name: name, Data: []byte(data)}
	}
	dia := func(name string, data string) lorestore.ProjectFile {
		return lorestore.ProjectFile{Section: lorestore.ProjectDialects, Name: name, Data: []byte(data)}
	}
	elv := string(mustEncodeDialect(t, elvish()))
	tests := []struct {
		name  string
		files []lorestore.ProjectFile
		docs  []Document
		dias  []string
		msg   string // an error mentioning it, when set
	}{
		{name: "none"},
		{
			name:  "documents-and-dialect",
			files: []lorestore.ProjectFile{dia("elvish", elv), doc("logres", `{"scope":"logres"}`), doc("camelot", `{"scope":"camelot","source":"lore/camelot.dli"}`)},
			docs:  []Document{{Scope: "camelot", Source: "lore/camelot.dli", InLore: true}, {Scope: "logres", InLore: true}},
			dias:  []string{"elvish"},
		},
		{name: "doc-member-mismatch", files: []lorestore.ProjectFile{doc("camelot", `{"scope":"avalon"}`)}, msg: `declares scope "avalon", not "camelot"`},
		{name: "doc-no-scope", files: []lorestore.ProjectFile{doc("camelot", `{"source":"a.dli"}`)}, msg: `has no "scope" member`},
		{name: "doc-scope-not-string", files: []lorestore.ProjectFile{doc("camelot", `{"scope":1}`)}, msg: `"scope" member is not a string`},
		{name: "doc-source-null", files: []lorestore.ProjectFile{doc("camelot", `{"scope":"camelot","source":null}`)}, msg: `"source" member is not a string`},
		{name: "doc-unknown-member", files: []lorestore.ProjectFile{doc("camelot", `{"forks":[],"scope":"camelot"}`)}, msg: `unknown member "forks"`},
		{name: "doc-not-object", files: []lorestore.ProjectFile{doc("camelot", `["camelot"]`)}, msg: "not a JSON object"},
		{name: "doc-source-escapes", files: []lorestore.ProjectFile{doc("camelot", `{"scope":"camelot","source":"../x.dli"}`)}, msg: "leaves the project folder"},
		{name: "doc-source-absolute", files: []lorestore.ProjectFile{doc("camelot", `{"scope":"camelot","source":"/x.dli"}`)}, msg: "must be relative"},
		{name: "doc-source-backslash", files: []lorestore.ProjectFile{doc("camelot", `{"scope":"camelot","source":"a\\x.dli"}`)}, msg: "backslash"},
		{name: "doc-source-empty", files: []lorestore.ProjectFile{doc("camelot", `{"scope":"camelot","source":""}`)}, msg: "empty path"},
		{name: "doc-twice", files: []lorestore.ProjectFile{doc("camelot", `{"scope":"camelot"}`), doc("camelot", `{"scope":"camelot"}`)}, msg: "given twice"},
		{name: "dialect-member-mismatch", files: []lorestore.ProjectFile{dia("dwarvish", elv)}, msg: `declares dialect "elvish", not "dwarvish"`},
		{name: "dialect-with-provenance", files: []lorestore.ProjectFile{dia("elvish", strings.Replace(elv, `"id"`, `"provenance":{"kind":"proposed","origin":"x"},"id"`, 1))}, msg: "carries no provenance"},
		{name: "dialect-invalid", files: []lorestore.ProjectFile{dia("elvish", strings.Replace(elv, `"min_syllables":1`, `"min_syllables":9`, 1))}, msg: "min_syllables"},
		{name: "dialect-unknown-field", files: []lorestore.ProjectFile{dia("elvish", strings.Replace(elv, `"id"`, `"stress":"first","id"`, 1))}, msg: "not a dialect"},
		{name: "dialect-other-type", files: []lorestore.ProjectFile{dia("elvish", `{"dialect":"elvish","form":"x","gloss":"y","type":"word"}`)}, msg: "not a dialect"},
		{name: "dialect-not-object", files: []lorestore.ProjectFile{dia("elvish", `"elvish"`)}, msg: "not a JSON object"},
		{name: "unknown-section", files: []lorestore.ProjectFile{{Section: "forks", Name: "x", Data: []byte(`{}`)}}, msg: "not a section of project/"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, err := ReadDeclaration(tc.files)
			if tc.msg != "" {
				if err == nil || !strings.Contains(err.Error(), tc.msg) || !strings.Contains(err.Error(), "project/") {
					t.Fatalf("err = %v, want one naming the file and mentioning %q", err, tc.msg)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(d.Documents, tc.docs) {
				t.Fatalf("documents %+v, want %+v", d.Documents, tc.docs)
			}
			var ids []string
			for _, x := range d.Dialects {
				ids = append(ids, x.Ident)
				if !reflect.DeepEqual(x.Provenance, objects.Proposed(DialectOrigin)) {
					t.Fatalf("dialect %s has provenance %+v", x.Ident, x.Provenance)
				}
			}
			if !reflect.DeepEqual(ids, tc.dias) {
				t.Fatalf("dialects %v, want %v", ids, tc.dias)
			}
		})
	}
}

// TestDeclarationThroughTheLore: what the encoders write, committed to a
// real lorestore, reads back as the same declaration.
func TestDeclarationThroughTheLore(t *testing.T) {
	s, err := lorestore.Init(t.TempDir()+"/lore.git", lorestore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	b := lorestore.NewBatch()
	for _, d := range []struct{ scope, source string }{{"camelot", "lore/camelot.dli"}, {"avalon", ""}} {
		if err := b.PutDocument(d.scope, mustEncodeDoc(t, d.scope, d.source)); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.PutProjectDialect("elvish", mustEncodeDialect(t, elvish())); err != nil {
		t.Fatal(err)
	}
	res, err := s.Commit(b, lorestore.NewMessage("declare the project", "init", ""), lorestore.CommitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sn, err := s.SnapshotAt(res.Commit)
	if err != nil {
		t.Fatal(err)
	}
	files, err := sn.ProjectFiles()
	if err != nil {
		t.Fatal(err)
	}
	d, err := ReadDeclaration(files)
	if err != nil {
		t.Fatal(err)
	}
	wantDocs := []Document{{Scope: "avalon", InLore: true}, {Scope: "camelot", Source: "lore/camelot.dli", InLore: true}}
	if !reflect.DeepEqual(d.Documents, wantDocs) {
		t.Fatalf("documents %+v, want %+v", d.Documents, wantDocs)
	}
	got, ok := d.Dialect("elvish")
	want := elvish()
	want.Consonants, want.Vowels = []string{"l", "r", "th"}, []string{"a", "e"} // sets come back sorted
	if !ok || !reflect.DeepEqual(got, want) {
		t.Fatalf("dialect %+v, want %+v", got, want)
	}
	if doc, ok := d.Document("camelot"); !ok || doc.Source != "lore/camelot.dli" {
		t.Fatalf("Document(camelot) = %+v, %v", doc, ok)
	}
	if _, ok := d.Document("logres"); ok {
		t.Fatal("an undeclared document was found")
	}
}

func TestLoreSource(t *testing.T) {
	dir := t.TempDir()
	p := &Project{Dir: dir}
	tests := []struct {
		abs, want string
		ok        bool
	}{
		{"", "", true},
		{dir + "/lore/camelot.dli", "lore/camelot.dli", true},
		{dir + "/camelot.dli", "camelot.dli", true},
		{dir + "/../camelot.dli", "", false},
		{"/elsewhere/camelot.dli", "", false},
		{"lore/camelot.dli", "", false}, // not absolute: not a Project's source
		{dir, "", false},
	}
	for _, tc := range tests {
		got, err := p.LoreSource(tc.abs)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("LoreSource(%q) = %q, %v; want %q (ok %v)", tc.abs, got, err, tc.want, tc.ok)
		}
	}
}
