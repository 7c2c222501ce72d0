// Package decisionlog reads the project's decision log, docs/decisions.md:
// one "## DL-nnnn — title" entry per ruling. It exists so that tests can
// hold the log to its own rules (numbers unique and ascending, every
// "Superseded by" or "Folded into" pointing at a later entry that exists,
// every number an entry absorbs named once and no longer a heading); it is
// not a general markdown reader.
package decisionlog

import (
	"bufio"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
)

// MaxLines is the most lines docs/decisions.md may have, its index
// included (issue 31): the rulings in force, the history left to git.
const MaxLines = 1500

// Entry is one ruling of the log.
type Entry struct {
	Number int    // nnnn of DL-nnnn
	Title  string // what follows the dash
	Line   int    // where its heading is, from 1
	Body   string // the text up to the next heading

	// ReplacedBy is the entry that supersedes this one or that it was
	// folded into, or 0.
	ReplacedBy int

	// Absorbs lists the numbers of earlier rulings this entry now states,
	// from its "(Absorbs DL-nnnn, DL-nnnn.)" line; their sections are gone.
	Absorbs []int
}

var (
	heading  = regexp.MustCompile(`^## DL-(\d{4}) — (.+)$`)
	replaced = regexp.MustCompile(`\*\*(?:Superseded by|Folded into) DL-(\d{4})`)
	absorbs  = regexp.MustCompile(`^\(Absorbs (DL-\d{4}(?:, DL-\d{4})*)\.\)$`)
	number   = regexp.MustCompile(`DL-(\d{4})`)
)

// Parse reads a decision log. A heading that starts with "## DL" but does
// not have the form "## DL-nnnn — title" is an error, and so is a line that
// starts with "(Absorbs" but is not "(Absorbs DL-nnnn, DL-nnnn.)" or stands
// before the first entry.
func Parse(r io.Reader) ([]Entry, error) {
	var out []Entry
	var body strings.Builder
	flush := func() {
		if len(out) == 0 {
			body.Reset() // the preamble belongs to no entry
			return
		}
		e := &out[len(out)-1]
		e.Body = body.String()
		if m := replaced.FindStringSubmatch(e.Body); m != nil {
			e.ReplacedBy, _ = strconv.Atoi(m[1])
		}
		body.Reset()
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if strings.HasPrefix(line, "## DL") {
			m := heading.FindStringSubmatch(line)
			if m == nil {
				return nil, fmt.Errorf("line %d: malformed heading %q", n, line)
			}
			flush()
			num, _ := strconv.Atoi(m[1])
			out = append(out, Entry{Number: num, Title: m[2], Line: n})
			continue
		}
		if strings.HasPrefix(line, "(Absorbs") {
			m := absorbs.FindStringSubmatch(line)
			if m == nil || len(out) == 0 {
				return nil, fmt.Errorf("line %d: malformed absorbs line %q", n, line)
			}
			e := &out[len(out)-1]
			for _, d := range number.FindAllStringSubmatch(m[1], -1) {
				num, _ := strconv.Atoi(d[1])
				e.Absorbs = append(e.Absorbs, num)
			}
		}
		body.WriteString(line)
		body.WriteByte('\n')
	}
	flush()
	return out, sc.Err()
}
