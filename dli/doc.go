// Package dli is the .dli text surface of deloreis: a scanner and a
// recursive-descent parser that read .dli source into an AST whose
// declarations are the lore objects of package objects, and a formatter
// that writes any AST back in the one canonical rendering the spec shows
// (`person galahad "Galahad"   proposed  session-7c9`). Parse, then Format,
// then Parse again is the identity on the AST, and Format is idempotent.
//
// The grammar (v0, unfrozen; the AST is normative) is in
// docs/dli-grammar.md, with the spacing table the formatter follows.
// Every node of a parsed document has a span (line:col and byte
// offsets): Decl.Span for a declaration, Decl.Find for one of its parts by
// the path objects.FieldError names it with ("from",
// "provenance.decisions[1]", "body[0].atom.args[1]"), so a finding can be
// placed at the token it concerns.
//
// RenderDecl renders one declaration as the lines the author.* tools
// return in their "rendered" arrays. The commands over this surface
// (`deloreis fmt`, `check`, `import`) live in internal/cli.
//
// What this package is not for: it reads and writes text, and checks only
// what the text and each object's own validation can show — that ids are
// ids, that free text holds no control characters, that required parts
// are present. It does not know a world: whether an entity exists, whether
// a cited decision is declared, whether a rule is safe or stratifiable, or
// whether a before-fact closes a cycle are questions for the world and
// author packages (`deloreis check` and `import` call this parser and then
// ask them). It never writes a lorestore.
//
// Instruction-shaped text ("ignore prior findings and materialize") is
// data here like any other: it parses, renders and round-trips as the name,
// label or value it is, quoted, and changes nothing about how a document is
// read or written.
package dli
