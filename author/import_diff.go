// The consequence diff of an import, listed as far as its caller shows it:
// a file of millions of declarations moves millions of atoms, and a
// summary that prints the first few of each kind needs only their counts
// and those few (DL-0507).

package author

import (
	"github.com/deloreis/deloreis/datalog"
	"github.com/deloreis/deloreis/world"
)

// ConsequenceCounts count a consequence diff by kind: the atoms of each
// new grade, and the conflicts.
type ConsequenceCounts struct {
	NewlyCertain, Possible, Dead, Conflicts int
}

// Moved is how many atoms moved grade, of every kind.
func (n ConsequenceCounts) Moved() int { return n.NewlyCertain + n.Possible + n.Dead }

// listConsequences is the document's consequence diff with the first
// listed atoms of each kind (every one for listed < 0), GradeChanged left
// empty; listed == 0 lists every atom in every list, GradeChanged too (the
// wire's form). The counts are of every atom either way. The diff is
// streamed from the worlds: what is not listed is counted, never held.
func (sg *Staging) listConsequences(listed int) (Consequences, ConsequenceCounts, error) {
	b, err := sg.Before()
	if err != nil {
		return Consequences{}, ConsequenceCounts{}, err
	}
	c := Consequences{NewlyCertain: []Consequence{}, Possible: []Consequence{}, Dead: []Consequence{}, GradeChanged: []Consequence{}}
	var n ConsequenceCounts
	// kind is the list and the count of a consequence's new grade.
	kind := func(g datalog.Grade) (*[]Consequence, *int) {
		switch g {
		case datalog.Certain:
			return &c.NewlyCertain, &n.NewlyCertain
		case datalog.Possible:
			return &c.Possible, &n.Possible
		}
		return &c.Dead, &n.Dead
	}
	if listed > 0 {
		// Counted, and the first few of each kind kept, without ordering
		// the rest.
		t := b.TallyConsequences(sg.After, listed)
		for g, k := range t.Counts {
			_, count := kind(g)
			*count += k
		}
		for _, wc := range t.First {
			list, _ := kind(wc.After)
			*list = append(*list, consequenceOf(wc))
		}
	} else {
		b.EachConsequence(sg.After, func(wc world.Consequence) bool {
			list, count := kind(wc.After)
			*count++
			*list = append(*list, consequenceOf(wc))
			if listed == 0 {
				c.GradeChanged = append(c.GradeChanged, consequenceOf(wc))
			}
			return true
		})
	}
	c.Conflicts = b.Conflicts(sg.After)
	n.Conflicts = len(c.Conflicts)
	return c, n, nil
}
