// Package dke is DKE Python, the language front-end of deloreis whose
// programs read and write claims at Kind.subject.attribute cells.
//
// This package holds the command-line entry points that the deloreis
// command wires in (CheckMain for `deloreis dke check`). The language
// itself lives in sub-packages: keywords (the one keyword table of the
// eng and nob surfaces), syntax (scanner, parser, tree, translation
// between surfaces), check (names, types, termination, rules), diag (the
// diagnostics and their fixes) and reference (the language reference the
// spec tool serves).
package dke
