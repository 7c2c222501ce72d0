// Package keywords is the one table of DKE Python's reserved words: every
// word the language reserves, its canonical id, and its spelling on each
// keyword surface (eng, nob).
//
// The scanner, the parser, the checker's messages, the translator between
// surfaces and the language reference all derive their words from this
// table, so a word is added or renamed in one place. The AST stores the
// canonical ids, never the spelling, so one program has one tree whatever
// surface it was written in.
//
// It is not a lexer: it knows words, not positions or grammar.
package keywords
