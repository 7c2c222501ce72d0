// The expert lane over stdio: a golden session of `deloreis serve` over a
// project whose deloreis.toml configures the river-speech dialect.

package cli

import (
	"testing"

	"github.com/deloreis/deloreis/objects"
)

// riverSpeechToml is the project file's dialect table.
const riverSpeechToml = `
[[dialect]]
id = "river-speech"
consonants = ["l", "m", "n", "r", "s", "th", "w"]
vowels = ["a", "e", "i", "o"]
shapes = ["CV", "CVC", "V"]
forbid = ["nr", "wl"]
min_syllables = 2
max_syllables = 4
`

// expertProject makes a project declaring the riverlands document and the
// river-speech dialect, whose store holds a person, an era with two
// events, a recorded decision and a certain inertial declaration of
// office. Times and ids are fixed, so a session's responses are too.
func expertProject(t testing.TB) string {
	t.Helper()
	p := objects.Proposed("session-1a0")
	return seedProject(t, seed{scopes: []string{"riverlands"}, toml: riverSpeechToml, storeID: "e4be47e4be47e4be47e4be47e4be47e4",
		scope: "riverlands", summary: "materialize riverlands: the setting", objects: []objects.Object{
			&objects.Entity{Kind: objects.KindPerson, Ident: "mireth", Name: "Mireth", Provenance: p},
			&objects.Entity{Kind: objects.KindEra, Ident: "the-salt-years", Name: "The Salt Years", Provenance: p},
			&objects.Event{Ident: "the-drowning", Era: "the-salt-years", Provenance: p},
			&objects.Event{Ident: "the-reclaiming", Era: "the-salt-years", Provenance: p},
			&objects.Decision{Ident: "dl-keeper", Rationale: "The keeper's rulings."},
			&objects.Inertial{Pred: "office", Provenance: objects.Cited(objects.CitedRatified, "dl-keeper")},
		}})
}

// TestServeExpertSession drives the seven expert tools the extended
// profile serves (add_state aside) and compares every response with the
// golden file.
func TestServeExpertSession(t *testing.T) {
	got := runSession(t, "testdata/serve/expert-session.jsonl", startServer(t, "--project", expertProject(t)))
	golden(t, "serve/expert-session", got)
}
