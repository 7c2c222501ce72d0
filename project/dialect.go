// Dialects in the project file: each [[dialect]] table configures the
// naming oracle for one dialect, in the shape of a dialect declaration
// (objects.Dialect) less its provenance:
//
//	[[dialect]]
//	id = "river-speech"
//	consonants = ["l", "m", "n", "r", "s", "th", "w"]
//	vowels = ["a", "e", "i", "o"]
//	shapes = ["CV", "CVC", "V"]
//	forbid = ["nr", "wl"]          # optional
//	min_syllables = 2
//	max_syllables = 4

package project

import (
	"fmt"

	"github.com/deloreis/deloreis/objects"
)

// DialectOrigin is the origin of the proposed provenance a configured
// dialect carries: configuration, not lore, so it is never stored.
const DialectOrigin = "project-file"

// dialectFile is the TOML shape of one [[dialect]] table.
type dialectFile struct {
	ID           string   `toml:"id"`
	Consonants   []string `toml:"consonants"`
	Vowels       []string `toml:"vowels"`
	Shapes       []string `toml:"shapes"`
	Forbid       []string `toml:"forbid"`
	MinSyllables int      `toml:"min_syllables"`
	MaxSyllables int      `toml:"max_syllables"`
}

// dialects validates the [[dialect]] tables as dialect declarations and
// refuses an id given twice.
func dialects(fs []dialectFile) ([]*objects.Dialect, error) {
	var out []*objects.Dialect
	seen := map[string]bool{}
	for i, f := range fs {
		d := &objects.Dialect{Ident: f.ID, Consonants: f.Consonants, Vowels: f.Vowels, Shapes: f.Shapes, Forbid: f.Forbid,
			MinSyllables: f.MinSyllables, MaxSyllables: f.MaxSyllables, Provenance: objects.Proposed(DialectOrigin)}
		if err := d.Validate(); err != nil {
			return nil, fmt.Errorf("project: dialect %d: %w", i+1, err)
		}
		if seen[d.Ident] {
			return nil, fmt.Errorf("project: dialect %d: id %q is declared twice", i+1, d.Ident)
		}
		seen[d.Ident] = true
		out = append(out, d)
	}
	return out, nil
}

// Dialect returns the configured dialect of an id.
func (p *Project) Dialect(id string) (*objects.Dialect, bool) {
	for _, d := range p.Dialects {
		if d.Ident == id {
			return d, true
		}
	}
	return nil, false
}
