// The naming oracle: a dialect's phonology applied to a name. A name is
// case-folded and split into words at spaces and hyphens; each word is
// spelled out in the dialect's graphemes (longest first), must avoid the
// forbidden letter sequences, and must divide into syllables of the
// dialect's shapes, within its syllable bounds. The division takes the
// shortest coda that still lets the rest of the word divide (maximal
// onset), in one pass from the right and one from the left: linear in the
// length of the name.

package objects

import (
	"fmt"
	"sort"
	"strings"
	"unicode"
)

// The oracle's problem codes.
const (
	ProblemNameEmpty     = "name.empty"        // nothing to check, or an empty word between separators
	ProblemLetterUnknown = "letter.unknown"    // a letter no grapheme of the dialect spells
	ProblemClusterForbid = "cluster.forbidden" // a forbidden letter sequence
	ProblemShape         = "syllable.shape"    // the word does not divide into the dialect's shapes
	ProblemTooFew        = "syllables.too-few" // fewer syllables than min_syllables
	ProblemTooMany       = "syllables.too-many"
	ProblemMore          = "problems.more" // the last problem listed, when more were found
)

// The oracle's limits.
const (
	maxCheckedName = MaxTextLen // the longest name the oracle reads, in bytes
	nameSeparators = " -"       // the separators between a name's words
	problemsCap    = 32         // problems listed at most; the rest are counted
)

// NameProblem is one reason the oracle rejects a name: a code, the rune
// offset in the name where it starts, and a message.
type NameProblem struct {
	Code    string `json:"code" desc:"the problem: name.empty, letter.unknown, cluster.forbidden, syllable.shape, syllables.too-few, syllables.too-many, or problems.more (the last one listed when more were found)"`
	At      int    `json:"at" desc:"the rune offset in the name where the problem starts, from 0"`
	Message string `json:"message" desc:"the problem in words"`
}

// NameCheck is the oracle's verdict on a name: vetted when there is no
// problem, the syllables it divided the name into (folded to lower case),
// and the problems, in order of position.
type NameCheck struct {
	Vetted    bool          `json:"vetted"`
	Syllables []string      `json:"syllables"`
	Problems  []NameProblem `json:"problems"`
}

// shapeCV is one syllable shape as onset and coda lengths (in graphemes).
type shapeCV struct{ onset, coda int }

// CheckName runs the oracle of dialect x on name. x must be valid.
func (x *Dialect) CheckName(name string) NameCheck {
	out := NameCheck{Syllables: []string{}, Problems: []NameProblem{}}
	add := func(code string, at int, format string, args ...any) {
		out.Problems = append(out.Problems, NameProblem{Code: code, At: at, Message: fmt.Sprintf(format, args...)})
	}
	if len(name) > maxCheckedName {
		add(ProblemNameEmpty, 0, "the name is %d bytes; the oracle reads names of at most %d", len(name), maxCheckedName)
		return out
	}
	runes := []rune(name)
	for i, r := range runes {
		runes[i] = unicode.ToLower(r) // rune by rune, so offsets stay the name's
	}
	if strings.TrimSpace(name) == "" {
		add(ProblemNameEmpty, 0, "the name is empty")
		return out
	}
	inv := x.inventory()
	start := 0
	for i := 0; i <= len(runes); i++ {
		if i < len(runes) && !strings.ContainsRune(nameSeparators, runes[i]) {
			continue
		}
		if i == start {
			add(ProblemNameEmpty, i, "an empty word at %d: separate words with one space or hyphen", i)
		} else {
			x.checkWord(inv, runes[start:i], start, &out, add)
		}
		start = i + 1
	}
	sort.SliceStable(out.Problems, func(i, j int) bool { return out.Problems[i].At < out.Problems[j].At })
	if len(out.Problems) > problemsCap {
		n := len(out.Problems) - problemsCap + 1
		out.Problems = append(out.Problems[:problemsCap-1], NameProblem{Code: ProblemMore, At: out.Problems[problemsCap-1].At,
			Message: fmt.Sprintf("%d more problems not listed", n)})
	}
	out.Vetted = len(out.Problems) == 0
	return out
}

// inventory is a dialect's graphemes by kind, and its shapes.
type inventory struct {
	vowel  map[string]bool // every grapheme: true for a vowel
	maxLen int             // the longest grapheme, in runes
	shapes []shapeCV
	maxOn  int
	maxCo  int
}

func (x *Dialect) inventory() *inventory {
	inv := &inventory{vowel: map[string]bool{}}
	for _, g := range x.Consonants {
		inv.vowel[g] = false
		inv.maxLen = max(inv.maxLen, len([]rune(g)))
	}
	for _, g := range x.Vowels {
		inv.vowel[g] = true
		inv.maxLen = max(inv.maxLen, len([]rune(g)))
	}
	for _, s := range x.Shapes {
		v := strings.IndexByte(s, 'V')
		sh := shapeCV{onset: v, coda: len(s) - v - 1}
		inv.shapes = append(inv.shapes, sh)
		inv.maxOn, inv.maxCo = max(inv.maxOn, sh.onset), max(inv.maxCo, sh.coda)
	}
	return inv
}

// grapheme is one spelled unit of a word: its text, where it starts (in
// runes, in the whole name) and whether it is a vowel.
type grapheme struct {
	text  string
	at    int
	vowel bool
}

// checkWord checks one word, whose first rune is at offset base.
func (x *Dialect) checkWord(inv *inventory, word []rune, base int, out *NameCheck, add func(string, int, string, ...any)) {
	text := string(word)
	for _, f := range x.Forbid {
		for off := 0; ; {
			i := strings.Index(text[off:], f)
			if i < 0 {
				break
			}
			at := base + len([]rune(text[:off+i]))
			add(ProblemClusterForbid, at, "%q at %d is a sequence dialect %s forbids", f, at, x.Ident)
			off += i + len(f)
		}
	}
	var gs []grapheme
	spelled := true
	for i := 0; i < len(word); {
		n := min(inv.maxLen, len(word)-i)
		for ; n > 0; n-- {
			if _, ok := inv.vowel[string(word[i:i+n])]; ok {
				break
			}
		}
		if n == 0 {
			add(ProblemLetterUnknown, base+i, "%q at %d is not a letter of dialect %s", string(word[i]), base+i, x.Ident)
			spelled = false
			i++
			continue
		}
		g := string(word[i : i+n])
		gs = append(gs, grapheme{text: g, at: base + i, vowel: inv.vowel[g]})
		i += n
	}
	if !spelled {
		return
	}
	syl, stuck := syllabify(inv, gs)
	if syl == nil {
		at := base
		if stuck < len(gs) {
			at = gs[stuck].at
		}
		add(ProblemShape, at, "%q does not divide into syllables of the shapes %s of dialect %s (stuck at %d)",
			text, strings.Join(x.Shapes, ", "), x.Ident, at)
		return
	}
	switch n := len(syl); {
	case n < x.MinSyllables:
		add(ProblemTooFew, base, "%q has %s; dialect %s wants at least %d", text, syllables(n), x.Ident, x.MinSyllables)
	case n > x.MaxSyllables:
		add(ProblemTooMany, base, "%q has %s; dialect %s allows at most %d", text, syllables(n), x.Ident, x.MaxSyllables)
	}
	out.Syllables = append(out.Syllables, syl...)
}

// syllabify divides graphemes into syllables of the dialect's shapes:
// each syllable is onset consonants, one vowel, coda consonants. It
// returns nil and the index of the first grapheme no division gets past
// when there is none.
func syllabify(inv *inventory, gs []grapheme) ([]string, int) {
	n := len(gs)
	// fits reports whether the shape starting at i (onset, one vowel,
	// coda) matches, and where it ends.
	fits := func(i int, sh shapeCV) (int, bool) {
		end := i + sh.onset + 1 + sh.coda
		if end > n {
			return 0, false
		}
		for k := i; k < end; k++ {
			if gs[k].vowel != (k == i+sh.onset) {
				return 0, false
			}
		}
		return end, true
	}
	// rest[i]: gs[i:] divides into syllables (right to left).
	rest := make([]bool, n+1)
	rest[n] = true
	for i := n - 1; i >= 0; i-- {
		for _, sh := range inv.shapes {
			if end, ok := fits(i, sh); ok && rest[end] {
				rest[i] = true
				break
			}
		}
	}
	if !rest[0] {
		// How far a division from the left gets: the report's position.
		reach := make([]bool, n+1)
		reach[0] = true
		far := 0
		for i := 0; i < n; i++ {
			if !reach[i] {
				continue
			}
			far = i
			for _, sh := range inv.shapes {
				if end, ok := fits(i, sh); ok {
					reach[end] = true
				}
			}
		}
		return nil, far
	}
	var out []string
	for i := 0; i < n; {
		best := -1
		for _, sh := range inv.shapes {
			// The shortest syllable that leaves a divisible rest: codas
			// short, onsets long.
			if end, ok := fits(i, sh); ok && rest[end] && (best < 0 || end < best) {
				best = end
			}
		}
		var b strings.Builder
		for k := i; k < best; k++ {
			b.WriteString(gs[k].text)
		}
		out = append(out, b.String())
		i = best
	}
	return out, n
}

// syllables says how many syllables, in words.
func syllables(n int) string {
	if n == 1 {
		return "1 syllable"
	}
	return fmt.Sprintf("%d syllables", n)
}
