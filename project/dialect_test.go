// Tests of [[dialect]] tables in deloreis.toml.

package project

import (
	"reflect"
	"strings"
	"testing"
)

const riverSpeech = `
[[dialect]]
id = "river-speech"
consonants = ["w", "l", "m", "n", "r", "s", "th"]
vowels = ["a", "e", "i", "o"]
shapes = ["CV", "CVC", "V"]
forbid = ["nr", "wl"]
min_syllables = 2
max_syllables = 4
`

func TestLoadDialects(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "[[document]]\nscope = \"camelot\"\n"+riverSpeech+"\n[[dialect]]\nid = \"old-salt\"\nconsonants = [\"k\"]\nvowels = [\"a\"]\nshapes = [\"CV\"]\nmin_syllables = 1\nmax_syllables = 1\n")
	p, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Dialects) != 2 {
		t.Fatalf("%d dialects", len(p.Dialects))
	}
	d, ok := p.Dialect("river-speech")
	if !ok || !reflect.DeepEqual(d.Forbid, []string{"nr", "wl"}) || d.MinSyllables != 2 || d.Provenance.Origin != DialectOrigin {
		t.Fatalf("%+v %v", d, ok)
	}
	if got := d.CheckName("Mirwen"); !got.Vetted || !reflect.DeepEqual(got.Syllables, []string{"mir", "wen"}) {
		t.Errorf("oracle: %+v", got)
	}
	if _, ok := p.Dialect("elvish"); ok {
		t.Error("an unconfigured dialect was found")
	}
}

func TestLoadDialectsRefuses(t *testing.T) {
	for _, tc := range []struct{ body, msg string }{
		{strings.Replace(riverSpeech, `"CVC"`, `"CVV"`, 1), "syllable shape"},
		{strings.Replace(riverSpeech, "min_syllables = 2", "min_syllables = 5", 1), "min_syllables"},
		{strings.Replace(riverSpeech, `id = "river-speech"`, `id = "../x"`, 1), "id"},
		{strings.Replace(riverSpeech, `vowels = ["a", "e", "i", "o"]`, `vowels = ["a", "l"]`, 1), "also a vowel"},
		{strings.Replace(riverSpeech, "max_syllables = 4", "max_syllables = 4\nstress = \"first\"", 1), "unknown key"},
		{riverSpeech + riverSpeech, "declared twice"},
		{"[[dialect]]\nid = \"d\"\n", "consonants"},
	} {
		dir := t.TempDir()
		write(t, dir, tc.body)
		if _, err := Load(dir); err == nil || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%q: err = %v, want one mentioning %q", tc.body, err, tc.msg)
		}
	}
}
