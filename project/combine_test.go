// Tests of Combine: the lore's declaration with the settings' additions,
// and the contradictions refused.

package project

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/deloreis/deloreis/objects"
)

// combineCase is one TestCombine case: the settings and the lore's
// declaration, and what Combine should make of them.
type combineCase struct {
	name     string
	toml     string // deloreis.toml
	decl     *Declaration
	docs     []string // "scope source-relative-to-dir inlore"
	dialects []string // "id inlore"
	msg      string   // an error mentioning each "|"-separated part
}

// combineCases returns TestCombine's cases: additions, repeats and contradictions.
func combineCases() []combineCase {
	return append(append(combineAdditions(), combineSameNames()...), combineLoreRefusals()...)
}

// combineAdditions returns the cases where the settings add to the lore's
// declaration, or repeat it.
func combineAdditions() []combineCase {
	elv := elvish()
	sameElv := elvish() // the same declaration spelled otherwise: sets in another order
	sameElv.Consonants = []string{"th", "r", "l"}
	return []combineCase{
		{
			name: "nothing",
			decl: nil,
		},
		{
			name: "lore-only",
			decl: &Declaration{Documents: []Document{{Scope: "camelot", Source: "lore/camelot.dli", InLore: true}, {Scope: "avalon", InLore: true}},
				Dialects: []*objects.Dialect{elv}},
			docs:     []string{"avalon - true", "camelot lore/camelot.dli true"},
			dialects: []string{"elvish true"},
		},
		{
			name:     "toml-only",
			toml:     "[[document]]\nscope = \"camelot\"\nsource = \"lore/camelot.dli\"\n" + riverSpeech,
			decl:     &Declaration{},
			docs:     []string{"camelot lore/camelot.dli false"},
			dialects: []string{"river-speech false"},
		},
		{
			name:     "toml-adds",
			toml:     "[[document]]\nscope = \"logres\"\n" + riverSpeech,
			decl:     &Declaration{Documents: []Document{{Scope: "camelot", Source: "lore/camelot.dli", InLore: true}}, Dialects: []*objects.Dialect{elv}},
			docs:     []string{"camelot lore/camelot.dli true", "logres - false"},
			dialects: []string{"elvish true", "river-speech false"},
		},
		{
			name: "toml-repeats-the-lore",
			toml: "[[document]]\nscope = \"camelot\"\nsource = \"lore/./camelot.dli\"\n\n[[document]]\nscope = \"avalon\"\n" +
				"[[dialect]]\nid = \"elvish\"\nconsonants = [\"th\", \"r\", \"l\"]\nvowels = [\"e\", \"a\"]\nshapes = [\"CVC\", \"CV\"]\nforbid = [\"rl\"]\nmin_syllables = 1\nmax_syllables = 3\n",
			decl: &Declaration{Documents: []Document{{Scope: "camelot", Source: "lore/camelot.dli", InLore: true}, {Scope: "avalon", InLore: true}},
				Dialects: []*objects.Dialect{sameElv}},
			docs:     []string{"avalon - true", "camelot lore/camelot.dli true"},
			dialects: []string{"elvish true"},
		},
	}
}

// combineSameNames returns the cases where the settings and the lore both
// declare a scope or a dialect: one side's source fills the other's gap,
// and contradictions are refused.
func combineSameNames() []combineCase {
	otherElv := elvish()
	otherElv.MaxSyllables = 4
	dwarvish := &objects.Dialect{Ident: "dwarvish", Consonants: []string{"k"}, Vowels: []string{"u"}, Shapes: []string{"CVC"},
		MinSyllables: 1, MaxSyllables: 2, Provenance: objects.Proposed(DialectOrigin)}
	return []combineCase{
		{
			name: "other-source",
			toml: "[[document]]\nscope = \"camelot\"\nsource = \"a.dli\"\n",
			decl: &Declaration{Documents: []Document{{Scope: "camelot", Source: "b.dli", InLore: true}}},
			msg:  `deloreis.toml declares scope camelot with source a.dli; the lore declares it with source b.dli: remove the [[document]] with scope = "camelot" from deloreis.toml`,
		},
		{
			// The lore names no file: the folder's own path adds to it.
			name: "toml-source-lore-none",
			toml: "[[document]]\nscope = \"camelot\"\nsource = \"a.dli\"\n",
			decl: &Declaration{Documents: []Document{{Scope: "camelot", InLore: true}}},
			docs: []string{"camelot a.dli true"},
		},
		{
			// The folder names no file: the lore's stands.
			name: "toml-none-lore-source",
			toml: "[[document]]\nscope = \"camelot\"\n",
			decl: &Declaration{Documents: []Document{{Scope: "camelot", Source: "lore/c.dli", InLore: true}}},
			docs: []string{"camelot lore/c.dli true"},
		},
		{
			name: "other-dialect",
			toml: "[[dialect]]\nid = \"elvish\"\nconsonants = [\"th\", \"r\", \"l\"]\nvowels = [\"e\", \"a\"]\nshapes = [\"CVC\", \"CV\"]\nforbid = [\"rl\"]\nmin_syllables = 1\nmax_syllables = 3\n",
			decl: &Declaration{Dialects: []*objects.Dialect{otherElv, dwarvish}},
			msg:  `deloreis.toml declares dialect elvish differently from the lore: remove the [[dialect]] with id = "elvish" from deloreis.toml`,
		},
	}
}

// combineLoreRefusals returns the lore declarations refused on their own.
func combineLoreRefusals() []combineCase {
	elv := elvish()
	return []combineCase{
		{
			name: "lore-source-escapes",
			decl: &Declaration{Documents: []Document{{Scope: "camelot", Source: "../x.dli", InLore: true}}},
			msg:  "leaves the project folder",
		},
		{
			name: "lore-scope-twice",
			decl: &Declaration{Documents: []Document{{Scope: "camelot", InLore: true}, {Scope: "camelot", InLore: true}}},
			msg:  "twice",
		},
		{
			name: "lore-scope-not-an-id",
			decl: &Declaration{Documents: []Document{{Scope: "a/b", InLore: true}}},
			msg:  "not an id",
		},
		{
			name: "lore-dialect-twice",
			decl: &Declaration{Dialects: []*objects.Dialect{elv, elv}},
			msg:  "twice",
		},
	}
}

func TestCombine(t *testing.T) {
	for _, tc := range combineCases() {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			write(t, dir, "branch = \"canon\"\npin = \"abcd1234\"\n"+tc.toml)
			settings, err := Load(dir)
			if err != nil {
				t.Fatal(err)
			}
			before := *settings
			p, err := Combine(settings, tc.decl)
			if !reflect.DeepEqual(*settings, before) {
				t.Fatalf("Combine changed the settings: %+v, was %+v", *settings, before)
			}
			if tc.msg != "" {
				for _, part := range strings.Split(tc.msg, "|") {
					if err == nil || !strings.Contains(err.Error(), part) {
						t.Fatalf("err = %v, want one mentioning %q", err, part)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			checkCombined(t, dir, p, tc)
		})
	}
}

// checkCombined checks the project Combine made from the settings in dir
// against tc's documents and dialects.
func checkCombined(t *testing.T, dir string, p *Project, tc combineCase) {
	t.Helper()
	if p.Dir != dir || p.Store != filepath.Join(dir, ".lore") || p.Branch != "canon" || p.Pin != "abcd1234" {
		t.Fatalf("the settings did not carry over: %+v", p)
	}
	var docs []string
	for _, d := range p.Documents {
		src := "-"
		if d.Source != "" {
			if !filepath.IsAbs(d.Source) {
				t.Fatalf("source %q is not absolute", d.Source)
			}
			rel, err := filepath.Rel(dir, d.Source)
			if err != nil {
				t.Fatal(err)
			}
			src = filepath.ToSlash(rel)
		}
		docs = append(docs, d.Scope+" "+src+" "+map[bool]string{true: "true", false: "false"}[d.InLore])
	}
	if !reflect.DeepEqual(docs, tc.docs) {
		t.Fatalf("documents %q, want %q", docs, tc.docs)
	}
	local := map[string]bool{}
	for _, d := range p.LocalDialects() {
		local[d.Ident] = true
	}
	var dias []string
	for _, d := range p.Dialects {
		dias = append(dias, d.Ident+" "+map[bool]string{true: "true", false: "false"}[!local[d.Ident]])
		if _, ok := p.Dialect(d.Ident); !ok {
			t.Fatalf("Dialect(%s) not found", d.Ident)
		}
	}
	if !reflect.DeepEqual(dias, tc.dialects) {
		t.Fatalf("dialects %q, want %q", dias, tc.dialects)
	}
	var localDocs []string
	for _, d := range p.LocalDocuments() {
		localDocs = append(localDocs, d.Scope)
	}
	for _, d := range docs {
		if strings.HasSuffix(d, " false") && !strings.Contains(strings.Join(localDocs, " "), strings.Fields(d)[0]) {
			t.Fatalf("LocalDocuments %v misses %s", localDocs, d)
		}
	}
}

// TestLoadIsSettingsOnly: a project from Load alone declares nothing in
// the lore: every document and dialect is local.
func TestLoadIsSettingsOnly(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "[[document]]\nscope = \"camelot\"\n"+riverSpeech)
	p, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.LocalDocuments()) != 1 || p.Documents[0].InLore || len(p.LocalDialects()) != 1 {
		t.Fatalf("%+v: local documents %v, dialects %v", p, p.LocalDocuments(), p.LocalDialects())
	}
}
