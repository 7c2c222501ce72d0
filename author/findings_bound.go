// Bounded answers (DL-0426): a response lists at most MaxFindingsPerCode
// findings of one code; past that, one finding of the code says how many
// more there are. A name lists at most MaxNameWords words.

package author

import (
	"fmt"

	"github.com/deloreis/deloreis/world"
)

// MaxFindingsPerCode is how many findings of one code a response lists
// before it aggregates the rest into one.
const MaxFindingsPerCode = 20

// MaxNameWords is the most words author.add_name accepts in one name.
const MaxNameWords = 256

// boundFindings returns fs with the findings of each code past the first
// MaxFindingsPerCode replaced by one finding of that code, placed after
// the last one listed, whose data.more is how many were left out (and
// data.total how many there are). Severity and grade are the code's, so
// whether the answer blocks materialize does not change. fs itself is not
// changed; when nothing is left out it is returned as is.
func boundFindings(fs []world.Finding) []world.Finding {
	counts := map[string]int{}
	over := false
	for _, f := range fs {
		counts[f.Code]++
		over = over || counts[f.Code] > MaxFindingsPerCode
	}
	if !over {
		return fs
	}
	out := make([]world.Finding, 0, min(len(fs), len(counts)*(MaxFindingsPerCode+1)))
	seen := map[string]int{}
	for _, f := range fs {
		seen[f.Code]++
		n := seen[f.Code]
		switch {
		case n <= MaxFindingsPerCode:
			out = append(out, f)
		case n == MaxFindingsPerCode+1:
			more := counts[f.Code] - MaxFindingsPerCode
			out = append(out, world.Finding{Code: f.Code, Severity: f.Severity, Grade: f.Grade,
				Message:   fmt.Sprintf("%d more %s findings are not listed: a response lists %d findings of one code; %d in all.", more, f.Code, MaxFindingsPerCode, counts[f.Code]),
				Citations: []string{},
				Data:      map[string]any{"more": more, "total": counts[f.Code]}})
		}
	}
	return out
}
