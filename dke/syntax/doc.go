// Package syntax is DKE Python's front end before names mean anything: the
// scanner (tokens, INDENT/OUTDENT from an indentation stack, keywords of
// one surface), the recursive-descent parser that builds the AST, the
// nodes themselves with their positions, and the mechanical translation of
// a source between keyword surfaces.
//
// Every error is a diag.Diagnostic of class parse_error with a 1-based
// line and a column counted in characters. The parser recovers at line
// boundaries and reports every error it can find, not only the first;
// structural errors a parser can see (a `while`, a `return` outside a
// def, a `commit` outside a `branch`) are reported here.
//
// It does not resolve names or types: that is package check. The tree
// stores canonical keyword ids (package keywords), never their spelling,
// so one program has one tree in every surface.
package syntax
