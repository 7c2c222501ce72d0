package main

import (
	"bufio"
	"fmt"
	"io"
)

// The generated world: one scope, n lore objects of which a tenth are
// persons and the rest facts over ten keys (each person lacks one key, so
// the negations have something to find), and 18 rules with a recursive
// closure and four negations. Every relation a rule derives is linear in
// n: the recursion runs over mentor cycles of four persons and the one
// join fans out by a constant, so a size's cost is the store's, not a
// blow-up of the program.
const (
	scopeName = "big"
	keysPer   = 9 // facts per person: one of the ten keys is left out, in turn
	origin    = "bench-scale"
)

// keys are the fact keys; a person p gets all but keys[p%10].
var keys = [10]string{"home", "title", "liege", "sword", "steed", "oath", "kin", "rival", "mentor", "fame"}

// rules are the 18 rules, in .dli: lineage is the recursion, errant,
// forsworn, homeless and legend the negations.
var rules = [...]string{
	"rule lineage-base: lineage(X, Y) :- mentor(X, Y)",
	"rule lineage-step: lineage(X, Z) :- lineage(X, Y), mentor(Y, Z)",
	"rule vassal: vassal(X, Y) :- liege(X, Y)",
	"rule knight: knight(X) :- title(X, v1)",
	"rule armed: armed(X) :- sword(X, Y)",
	"rule mounted: mounted(X) :- steed(X, Y)",
	"rule errant: errant(X) :- armed(X), mounted(X), not vassal(X, p-0)",
	"rule sworn: sworn(X) :- oath(X, Y)",
	"rule forsworn: forsworn(X) :- person(X), not sworn(X)",
	"rule kin-of: kinship(X, Y) :- kin(X, Y)",
	"rule kin-back: kinship(Y, X) :- kin(X, Y)",
	"rule famous: famous(X) :- fame(X, v1)",
	"rule housed: housed(X) :- home(X, Y)",
	"rule homeless: homeless(X) :- person(X), not housed(X)",
	"rule court: court(X, Z) :- vassal(X, Y), home(Y, Z)",
	"rule hero: hero(X) :- famous(X), knight(X)",
	"rule legend: legend(X) :- hero(X), not forsworn(X)",
	"rule student: student(Y) :- mentor(X, Y)",
}

// persons is how many persons a world of n objects has.
func persons(n int) int { return max(1, n/(keysPer+1)) }

// value is person p's value for key k: references to other persons for
// the keys rules join over, small symbol domains for the rest.
func value(p, np int, k string) string {
	switch k {
	case "home":
		return fmt.Sprintf("place-%d", p%1000)
	case "title":
		return fmt.Sprintf("v%d", p%5)
	case "fame":
		return fmt.Sprintf("v%d", p%3)
	case "liege": // lords of four: p-0, p-4, …
		return fmt.Sprintf("p-%d", p-p%4)
	case "kin": // pairs
		return fmt.Sprintf("p-%d", min(p^1, np-1))
	case "rival":
		return fmt.Sprintf("p-%d", (p+np/2)%np)
	case "mentor": // a cycle of four, cut where a person lacks the key
		next := p - p%4 + (p+1)%4
		if next >= np {
			next = p - p%4
		}
		return fmt.Sprintf("p-%d", next)
	}
	return fmt.Sprintf("s-%d", p%50)
}

// writeWorld writes the world of n objects as one .dli document and
// returns how many declarations it wrote (persons, facts and the rules).
func writeWorld(out io.Writer, n int) (int, error) {
	w := bufio.NewWriterSize(out, 1<<20)
	np := persons(n)
	decls := 0
	line := func(format string, args ...any) {
		fmt.Fprintf(w, format, args...)
		decls++
	}
	fmt.Fprintf(w, "scope %s\n\n", scopeName)
	for _, r := range rules {
		line("%s\n  proposed %s\n", r, origin)
	}
	for p := 0; p < np; p++ {
		line("person p-%d \"Person %d\" proposed %s\n", p, p, origin)
		for j := 1; j <= keysPer; j++ {
			k := keys[(p+j)%len(keys)]
			line("p-%d.%s = %s proposed %s\n", p, k, value(p, np, k), origin)
		}
	}
	if err := w.Flush(); err != nil {
		return 0, err
	}
	return decls, nil
}
