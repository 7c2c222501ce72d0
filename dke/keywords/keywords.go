// The keyword table itself, the languages, and look-ups in both directions.

package keywords

import (
	"fmt"
	"sort"
	"sync"
)

// Lang is a keyword surface: the words a program uses for the language's
// reserved words. The zero value is not a language; use ParseLang.
type Lang uint8

// The keyword surfaces.
const (
	Eng Lang = iota + 1 // English: the Python-looking default
	Nob                 // Norwegian Bokmål
)

// Langs lists every surface, in a stable order.
var Langs = []Lang{Eng, Nob}

// String returns the surface's tag, "eng" or "nob".
func (l Lang) String() string {
	switch l {
	case Eng:
		return "eng"
	case Nob:
		return "nob"
	}
	return fmt.Sprintf("lang(%d)", uint8(l))
}

// ParseLang returns the surface with the given tag; "" is eng, the default.
func ParseLang(tag string) (Lang, error) {
	switch tag {
	case "eng", "":
		return Eng, nil
	case "nob":
		return Nob, nil
	}
	return 0, fmt.Errorf("unknown language %q (want eng or nob)", tag)
}

// Reserve says where a word is reserved.
type Reserve uint8

// The reservations.
const (
	// Hard words are reserved everywhere: a hard word is never a name,
	// except after a dot, where every word names a field, a subject or an
	// attribute.
	Hard Reserve = iota + 1
	// Contextual words are reserved only where the grammar expects them
	// (after `list`, after `except`, after `@`, as forget's `before=`);
	// elsewhere they are ordinary names.
	Contextual
)

// Group says what part of the language a word belongs to.
type Group uint8

// The groups of reserved word.
const (
	Statement  Group = iota + 1 // statement and declaration keywords
	Operator                    // and, or, not, in
	Literal                     // True, False
	Verb                        // the built-in verbs and functions
	Type                        // the built-in value types
	Collection                  // the compound `list … of …` heads
	Decorator                   // the words after `@`
	Handler                     // the handler kinds after `except`
	Argument                    // keyword arguments of verbs
)

// ID is a canonical keyword id; the zero ID is no keyword.
type ID uint8

// The canonical ids. Their names are the eng spellings.
const (
	None ID = iota
	Import
	Def
	Class
	Return
	Pass
	If
	Elif
	Else
	Match
	Case
	For
	In
	Break
	Continue
	While
	And
	Or
	Not
	True
	False
	Branch
	Commit
	Rollback
	Try
	Except
	As
	Assert
	Print
	Remember
	Update
	Forget
	Current
	Why
	WhyNot
	WhatNeeds
	ListScripts
	Len
	List
	Int
	Float
	Bool
	String
	StringList
	Attributes
	Subjects
	Claims
	Of
	Before
	Rule
	Constraint
	Computed
	Missing
	Conversion
	Arithmetic
	Conflict
	Error
	numIDs
)

// Entry is one row of the table.
type Entry struct {
	ID      ID
	Reserve Reserve
	Group   Group
	Eng     string
	Nob     string
	// Fixed marks the words that are English on every surface (§12).
	Fixed bool
	// Why says, for nob, why the word was chosen where it is not obvious.
	Why string
}

// table is the keyword table, indexed by ID. It is the single source of
// every surface word.
var table = [numIDs]Entry{
	Import:   {Import, Hard, Statement, "import", "importer", false, ""},
	Def:      {Def, Hard, Statement, "def", "def", false, "short for Norwegian «definer» as much as English «define»; what every Norwegian Python programmer types"},
	Class:    {Class, Hard, Statement, "class", "klasse", false, ""},
	Return:   {Return, Hard, Statement, "return", "returner", false, ""},
	Pass:     {Pass, Hard, Statement, "pass", "hopp_over", false, "«skip over»; Norwegian «pass» means something else"},
	If:       {If, Hard, Statement, "if", "hvis", false, ""},
	Elif:     {Elif, Hard, Statement, "elif", "ellers_hvis", false, "«else if», as elif contracts it"},
	Else:     {Else, Hard, Statement, "else", "ellers", false, ""},
	Match:    {Match, Hard, Statement, "match", "velg", false, "«choose»: velg x: / tilfelle …"},
	Case:     {Case, Hard, Statement, "case", "tilfelle", false, ""},
	For:      {For, Hard, Statement, "for", "for", false, "«for hver …»; the same word in both languages"},
	In:       {In, Hard, Operator, "in", "blant", false, "«among»: for a blant …; «i» is the most common loop variable and cannot be reserved"},
	Break:    {Break, Hard, Statement, "break", "bryt", false, ""},
	Continue: {Continue, Hard, Statement, "continue", "fortsett", false, ""},
	While:    {While, Hard, Statement, "while", "mens", false, "reserved only to be refused with the bounded-iteration diagnostic"},
	And:      {And, Hard, Operator, "and", "og", false, ""},
	Or:       {Or, Hard, Operator, "or", "eller", false, ""},
	Not:      {Not, Hard, Operator, "not", "ikke", false, ""},
	True:     {True, Hard, Literal, "True", "Sann", false, ""},
	False:    {False, Hard, Literal, "False", "Usann", false, ""},
	Branch:   {Branch, Hard, Statement, "branch", "gren", false, ""},
	Commit:   {Commit, Hard, Statement, "commit", "bekreft", false, "«confirm»: the transaction's outcome, not git's noun"},
	Rollback: {Rollback, Hard, Statement, "rollback", "angre", false, "«undo»"},
	Try:      {Try, Hard, Statement, "try", "prøv", false, ""},
	Except:   {Except, Hard, Statement, "except", "fang", false, "«catch»: prøv / fang"},
	As:       {As, Hard, Statement, "as", "som", false, ""},
	Assert:   {Assert, Hard, Statement, "assert", "krev", false, "«require»: a constraint requires"},

	Print:       {Print, Hard, Verb, "print", "skriv", false, "given by the contract (§8.1)"},
	Remember:    {Remember, Hard, Verb, "remember", "husk", false, "given by the contract (§8.1)"},
	Update:      {Update, Hard, Verb, "update", "oppdater", false, ""},
	Forget:      {Forget, Hard, Verb, "forget", "glem", false, ""},
	Current:     {Current, Hard, Verb, "current", "gjeldende", false, "given by the contract (§8.1)"},
	Why:         {Why, Hard, Verb, "why", "hvorfor", false, ""},
	WhyNot:      {WhyNot, Hard, Verb, "why_not", "why_not", true, "English on every surface (contract §8.1, reference §12)"},
	WhatNeeds:   {WhatNeeds, Hard, Verb, "what_needs", "what_needs", true, "English on every surface (contract §8.1, reference §12)"},
	ListScripts: {ListScripts, Hard, Verb, "list_scripts", "liste_skript", false, ""},
	Len:         {Len, Hard, Verb, "len", "lengde", false, ""},

	List:       {List, Hard, Collection, "list", "liste", false, "head of liste attributter av …"},
	Int:        {Int, Hard, Type, "int", "heltall", false, ""},
	Float:      {Float, Hard, Type, "float", "flyttall", false, ""},
	Bool:       {Bool, Hard, Type, "bool", "boolsk", false, ""},
	String:     {String, Hard, Type, "string", "streng", false, "«tekst» is too common a variable name to reserve"},
	StringList: {StringList, Hard, Type, "string_list", "strengliste", false, ""},

	Attributes: {Attributes, Contextual, Collection, "attributes", "attributter", false, ""},
	Subjects:   {Subjects, Contextual, Collection, "subjects", "subjekter", false, ""},
	Claims:     {Claims, Contextual, Collection, "claims", "påstander", false, ""},
	Of:         {Of, Contextual, Collection, "of", "av", false, ""},
	Before:     {Before, Contextual, Argument, "before", "før", false, ""},
	Rule:       {Rule, Contextual, Decorator, "rule", "regel", false, ""},
	Constraint: {Constraint, Contextual, Decorator, "constraint", "skranke", false, "the Norwegian term of art for a constraint"},
	Computed:   {Computed, Contextual, Decorator, "computed", "beregnet", false, ""},
	Missing:    {Missing, Contextual, Handler, "missing", "mangler", false, ""},
	Conversion: {Conversion, Contextual, Handler, "conversion", "konvertering", false, ""},
	Arithmetic: {Arithmetic, Contextual, Handler, "arithmetic", "aritmetikk", false, ""},
	Conflict:   {Conflict, Contextual, Handler, "conflict", "konflikt", false, ""},
	Error:      {Error, Contextual, Handler, "error", "feil", false, ""},
}

// byWord maps each surface's words to their ids. It is built on the first
// lookup, not at every start of the programs that link the language.
var byWord = sync.OnceValue(func() map[Lang]map[string]ID {
	all := make(map[Lang]map[string]ID, len(Langs))
	for _, l := range Langs {
		m := make(map[string]ID, numIDs)
		for id := ID(1); id < numIDs; id++ {
			m[table[id].word(l)] = id
		}
		all[l] = m
	}
	return all
})

func (e Entry) word(l Lang) string {
	if l == Nob {
		return e.Nob
	}
	return e.Eng
}

// Word returns the spelling of id on surface l.
func Word(l Lang, id ID) string {
	if id == None || id >= numIDs {
		return ""
	}
	return table[id].word(l)
}

// String returns the canonical (eng) spelling of the id.
func (id ID) String() string {
	if id == None || id >= numIDs {
		return fmt.Sprintf("keyword(%d)", uint8(id))
	}
	return table[id].Eng
}

// Lookup returns the id of word on surface l, of any reservation.
func Lookup(l Lang, word string) (ID, bool) {
	id, ok := byWord()[l][word]
	return id, ok
}

// LookupHard returns the id of word if it is a hard keyword on surface l.
func LookupHard(l Lang, word string) (ID, bool) {
	id, ok := byWord()[l][word]
	if !ok || table[id].Reserve != Hard {
		return None, false
	}
	return id, true
}

// Foreign reports the id of word if it is a keyword of some surface other
// than l and not a keyword of l: the word a program written from another
// surface's habits uses where l expects Word(l, id).
func Foreign(l Lang, word string) (ID, Lang, bool) {
	if _, ok := byWord()[l][word]; ok {
		return None, 0, false
	}
	for _, o := range Langs {
		if o == l {
			continue
		}
		if id, ok := byWord()[o][word]; ok {
			return id, o, true
		}
	}
	return None, 0, false
}

// Get returns the table entry of id.
func Get(id ID) Entry {
	if id >= numIDs {
		return Entry{}
	}
	return table[id]
}

// Reserve returns where id is reserved.
func (id ID) Reserve() Reserve { return Get(id).Reserve }

// Group returns the group of id.
func (id ID) Group() Group { return Get(id).Group }

// All returns every entry, in id order.
func All() []Entry {
	out := make([]Entry, 0, numIDs-1)
	for id := ID(1); id < numIDs; id++ {
		out = append(out, table[id])
	}
	return out
}

// Fixed returns the words that are English on every surface, sorted.
func Fixed() []string {
	var out []string
	for _, e := range All() {
		if e.Fixed {
			out = append(out, e.Eng)
		}
	}
	sort.Strings(out)
	return out
}

// InGroup returns the ids of group g, in id order.
func InGroup(g Group) []ID {
	var out []ID
	for _, e := range All() {
		if e.Group == g {
			out = append(out, e.ID)
		}
	}
	return out
}
