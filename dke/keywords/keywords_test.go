// Tests of the keyword table: complete, no word used twice on a surface,
// no collision with names programs commonly use, words that scan as names.

package keywords_test

import (
	"testing"

	"github.com/deloreis/deloreis/dke/keywords"
	"github.com/deloreis/deloreis/dke/syntax"
)

func TestEveryWordOnEverySurface(t *testing.T) {
	for _, e := range keywords.All() {
		for _, l := range keywords.Langs {
			w := keywords.Word(l, e.ID)
			if w == "" {
				t.Errorf("%s has no %s word", e.ID, l)
			}
			if id, ok := keywords.Lookup(l, w); !ok || id != e.ID {
				t.Errorf("%s: Lookup(%s, %q) = %v, %v", e.ID, l, w, id, ok)
			}
			if err := syntax.CheckModuleName(w); err != nil && w[0] != '_' {
				t.Errorf("%s word %q is not an identifier: %v", l, w, err)
			}
		}
	}
}

func TestNoWordTwiceOnASurface(t *testing.T) {
	for _, l := range keywords.Langs {
		seen := map[string]keywords.ID{}
		for _, e := range keywords.All() {
			w := keywords.Word(l, e.ID)
			if prev, ok := seen[w]; ok {
				t.Errorf("%s: %q is both %s and %s", l, w, prev, e.ID)
			}
			seen[w] = e.ID
		}
	}
}

// common lists names programs are expected to use, in both languages:
// loop variables, counters, the fields of results, everyday nouns.
var common = []string{
	"i", "j", "k", "n", "m", "x", "y", "z", "a", "b", "c", "s", "t", "v", "e", "f", "g", "p", "q", "r",
	"id", "name", "value", "count", "total", "sum", "result", "item", "items", "key", "data",
	"kind", "subject", "attribute", "source", "found", "at", "text", "rule", "sources",
	"navn", "verdi", "antall", "totalt", "resultat", "ting", "nøkkel", "kilde", "tekst", "tall",
	"dato", "tid", "alder", "rom", "sted", "person", "liste_", "teller", "indeks", "ord",
	"start", "slutt", "min", "max", "første", "siste", "feil_", "melding",
}

func TestNoCollisionWithCommonNames(t *testing.T) {
	for _, l := range keywords.Langs {
		for _, name := range common {
			if id, ok := keywords.LookupHard(l, name); ok {
				t.Errorf("%s: the common name %q is the reserved word %s", l, name, id)
			}
		}
	}
}

func TestEnglishOnEverySurface(t *testing.T) {
	got := keywords.Fixed()
	if len(got) != 2 || got[0] != "what_needs" || got[1] != "why_not" {
		t.Fatalf("Fixed() = %v, want [what_needs why_not]", got)
	}
	for _, w := range got {
		id, _ := keywords.Lookup(keywords.Eng, w)
		for _, l := range keywords.Langs {
			if keywords.Word(l, id) != w {
				t.Errorf("%s is %q on %s", w, keywords.Word(l, id), l)
			}
		}
	}
}

func TestContractWords(t *testing.T) {
	for eng, nob := range map[string]string{"remember": "husk", "current": "gjeldende", "print": "skriv"} {
		id, ok := keywords.Lookup(keywords.Eng, eng)
		if !ok || keywords.Word(keywords.Nob, id) != nob {
			t.Errorf("%s should be %s on nob, is %s", eng, nob, keywords.Word(keywords.Nob, id))
		}
	}
	if _, ok := keywords.Lookup(keywords.Nob, "value"); ok {
		t.Error("value is a field name and must not be translated")
	}
}

func TestForeign(t *testing.T) {
	id, from, ok := keywords.Foreign(keywords.Nob, "print")
	if !ok || id != keywords.Print || from != keywords.Eng {
		t.Errorf("Foreign(nob, print) = %v %v %v", id, from, ok)
	}
	if _, _, ok := keywords.Foreign(keywords.Nob, "for"); ok {
		t.Error("for is a nob word too")
	}
	if _, _, ok := keywords.Foreign(keywords.Eng, "why_not"); ok {
		t.Error("why_not is English on every surface")
	}
}

func TestParseLang(t *testing.T) {
	for tag, want := range map[string]keywords.Lang{"": keywords.Eng, "eng": keywords.Eng, "nob": keywords.Nob} {
		if l, err := keywords.ParseLang(tag); err != nil || l != want || (tag != "" && l.String() != tag) {
			t.Errorf("ParseLang(%q) = %v, %v", tag, l, err)
		}
	}
	if _, err := keywords.ParseLang("nno"); err == nil {
		t.Error("nno accepted")
	}
}
