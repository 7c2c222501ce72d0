// The transcript's own words and the runtime's messages, on each surface.
// The keyword table (dke/keywords) holds the language's reserved words; the
// words here are the response's, which §8.1 also puts in the asked tag.

package eval

import (
	"fmt"

	"github.com/deloreis/deloreis/dke/keywords"
)

type wordID uint8

const (
	wOK wordID = iota
	wFailed
	wClaimOne
	wClaimMany
	wWritten
	wRemoved
	wLineOne
	wLineMany
	wPrinted
	wFrom
	wMissing
	wNeeds
	wClaim
	numWords
)

var words = [numWords][2]string{
	wOK:        {"OK program", "OK program"},
	wFailed:    {"error: program failed", "feil: programmet feilet"},
	wClaimOne:  {"claim", "påstand"},
	wClaimMany: {"claims", "påstander"},
	wWritten:   {"written", "skrevet"},
	wRemoved:   {"removed", "fjernet"},
	wLineOne:   {"line", "linje"},
	wLineMany:  {"lines", "linjer"},
	wPrinted:   {"printed", "skrevet ut"},
	wFrom:      {"from", "fra"},
	wMissing:   {"no value", "ingen verdi"},
	wNeeds:     {"needs", "trenger"},
	wClaim:     {"claim", "påstand"},
}

func word(l keywords.Lang, w wordID) string {
	if l == keywords.Nob {
		return words[w][1]
	}
	return words[w][0]
}

// count renders "n claims" or "n lines" with the right number.
func count(l keywords.Lang, n int, one, many wordID) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, word(l, one))
	}
	return fmt.Sprintf("%d %s", n, word(l, many))
}

type msgID uint8

const (
	mMissing msgID = iota
	mConversion
	mDivZero
	mOverflow
	mIndex
	mBudget
	mConflict
	mNotData
	mNoScript
	mStore
	numMsgs
)

// messages are format strings; %[1]s… are the error's arguments.
var messages = [numMsgs][2]string{
	mMissing:    {"%s has no value", "%s har ingen verdi"},
	mConversion: {"cannot convert %s to %s", "kan ikke konvertere %s til %s"},
	mDivZero:    {"division by zero", "divisjon med null"},
	mOverflow:   {"integer overflow in %s", "heltallsoverflyt i %s"},
	mIndex:      {"index %s out of range for length %s", "indeks %s utenfor området for lengde %s"},
	mBudget:     {"step budget exceeded: the run took more than %s steps", "stegbudsjettet er brukt opp: kjøringen tok mer enn %s steg"},
	mConflict:   {"the branch cannot commit: %s", "grenen kan ikke bekreftes: %s"},
	mNotData:    {"%s is not a value a claim can hold", "%s er ikke en verdi en påstand kan holde"},
	mNoScript:   {"no script %s in the store", "ingen skript %s i lageret"},
	mStore:      {"the store refused the write: %s", "lageret avviste skrivingen: %s"},
}

func message(l keywords.Lang, m msgID, args []string) string {
	f := messages[m][0]
	if l == keywords.Nob {
		f = messages[m][1]
	}
	as := make([]any, len(args))
	for i, a := range args {
		as[i] = a
	}
	return fmt.Sprintf(f, as...)
}
