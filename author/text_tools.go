// The .dli text tools: check, fmt, parse, render, validate and import —
// what `deloreis check`, `fmt` and `import` do, over text that arrives in
// params instead of files. Text is data: it is parsed, never opened as a
// path, and a scope line in it is checked against the project like any
// other scope param.

package author

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/deloreis/deloreis/dli"
	"github.com/deloreis/deloreis/fault"
	"github.com/deloreis/deloreis/objects"
	"github.com/deloreis/deloreis/world"
)

// textName is the file name parse errors carry: the text has none.
const textName = ""

// TextError is one parse error of the text.
type TextError struct {
	Line    int    `json:"line" desc:"the line, from 1"`
	Col     int    `json:"col" desc:"the column, from 1, in characters"`
	Message string `json:"message" desc:"what is wrong"`
}

// PlacedFinding is a finding and where in the text it is reported: the
// token it concerns, else the declaration it cites, else the scope line,
// else 1:1 (as `deloreis check` prints it).
type PlacedFinding struct {
	Line int `json:"line" desc:"the line it is reported at, from 1: the token it concerns, else the declaration it cites, else the scope line, else 1"`
	Col  int `json:"col" desc:"the column, from 1, in characters"`
	world.Finding
}

// placed places findings in a document, in source order.
func placed(doc *dli.Document, fs []world.Finding) []PlacedFinding {
	ps := PlaceAll(doc, boundFindings(fs))
	out := make([]PlacedFinding, len(ps))
	for i, p := range ps {
		out[i] = PlacedFinding{Line: p.Pos.Line, Col: p.Pos.Col, Finding: p.Finding}
	}
	return out
}

// parseErrors lists the errors of a failed parse (nil for none).
func parseErrors(err error) []TextError {
	if err == nil {
		return nil
	}
	var list dli.ErrorList
	if !errors.As(err, &list) {
		return []TextError{{Line: 1, Col: 1, Message: err.Error()}}
	}
	out := make([]TextError, len(list))
	for i, e := range list {
		out[i] = TextError{Line: e.Pos.Line, Col: e.Pos.Col, Message: e.Msg}
	}
	return out
}

// parse parses text, or returns the parse-error refusal naming the first
// error's position and listing them all.
func parse(text string) (*dli.Document, error) {
	doc, err := dli.Parse(textName, []byte(text))
	if err == nil {
		return doc, nil
	}
	return nil, parseError(parseErrors(err))
}

func parseError(es []TextError) *fault.Error {
	first := es[0]
	return fault.Errorf(fault.Invalid, CodeParseError, "The text does not parse: %d:%d: %s", first.Line, first.Col, first.Message).
		With("line", first.Line).With("col", first.Col).With("errors", es)
}

func docObjects(doc *dli.Document) []objects.Object {
	objs := make([]objects.Object, len(doc.Decls))
	for i, d := range doc.Decls {
		objs[i] = d.Object
	}
	return objs
}

// TextParams carry .dli text.
type TextParams struct {
	Text string `json:"text" desc:".dli source text"`
}

// TextCheckParams check .dli text, over the scope's head in the store unless
// standalone.
type TextCheckParams struct {
	Text       string `json:"text" desc:".dli source text"`
	Scope      string `json:"scope,omitempty" desc:"the document to check over (default: the text's scope line); must match the scope line when both are given"`
	Standalone bool   `json:"standalone,omitempty" desc:"check the text as a world of its own, ignoring the store"`
}

// TextCheckResult is dli.check.
type TextCheckResult struct {
	Scope       string          `json:"scope" desc:"the scope checked (\"\" for a standalone text with no scope line)"`
	Base        string          `json:"base" desc:"the commit the text was staged over; \"\" when standalone or the branch has no commit"`
	Clean       bool            `json:"clean" desc:"no parse error and no error-severity finding"`
	ParseErrors []TextError     `json:"parse_errors" desc:"the text's parse errors, at most one a line; [] when it parses"`
	Findings    []PlacedFinding `json:"findings" desc:"the findings over the text, each placed at a line and column, in source order"`
}

// FmtResult is dli.fmt.
type FmtResult struct {
	Text    string `json:"text" desc:"the text in canonical .dli form"`
	Changed bool   `json:"changed" desc:"the canonical text differs from the input"`
}

// ParsedObject is one declaration of parsed text.
type ParsedObject struct {
	ID     string          `json:"id" desc:"the object id (64 hex digits)"`
	Type   string          `json:"type" desc:"the object's type"`
	Line   int             `json:"line" desc:"the declaration's first line, from 1"`
	Col    int             `json:"col" desc:"its column, from 1 (1 for a declaration)"`
	Object json.RawMessage `json:"object" desc:"the object's canonical JSON"`
}

// ParseResult is dli.parse.
type ParseResult struct {
	Grammar string         `json:"grammar" desc:"v0, or \"\" for a text without the header line"`
	Scope   string         `json:"scope" desc:"the scope line's id, or \"\""`
	Objects []ParsedObject `json:"objects" desc:"the declarations as objects, in source order"`
}

// RenderParams render objects as a .dli document.
type RenderParams struct {
	Scope   string            `json:"scope,omitempty" desc:"the scope line to write (none when empty)"`
	Objects []json.RawMessage `json:"objects" desc:"lore objects as JSON, each with its type"`
}

// Validate checks the scope.
func (p *RenderParams) Validate() error {
	if p.Scope != "" && !objects.ValidID(p.Scope) {
		return fault.Errorf(fault.Invalid, fault.CodeBadParams, "params: scope %q is not a scope id", p.Scope).With("field", "scope")
	}
	return nil
}

// RenderResult is dli.render.
type RenderResult struct {
	Text string `json:"text" desc:"the canonical .dli document"`
}

// ValidateParams carry one object.
type ValidateParams struct {
	Object json.RawMessage `json:"object" desc:"a lore object as JSON, with its type"`
}

// FieldProblem is one field error of an object.
type FieldProblem struct {
	Field   string `json:"field" desc:"the field at fault, as a JSON path (provenance.origin, options[2].label, …); \"\" for the object as a whole"`
	Code    string `json:"code" desc:"the condition code: field.required, field.unknown, field.invalid-id, field.invalid-enum, field.too-long, field.control-char, …"`
	Message string `json:"message" desc:"the problem in words"`
}

// ValidateResult is dli.validate: the object's id and canonical bytes, or
// its field errors.
type ValidateResult struct {
	Valid     bool           `json:"valid" desc:"true when the object has no field error"`
	ObjectID  string         `json:"object_id,omitempty" desc:"the object's id, the BLAKE3-256 of its canonical bytes (64 hex digits); absent when invalid"`
	Type      string         `json:"type,omitempty" desc:"the object's type; absent when invalid"`
	Canonical string         `json:"canonical,omitempty" desc:"the exact canonical bytes (RFC 8785), whose BLAKE3-256 is the id"`
	Rendered  []string       `json:"rendered,omitempty" desc:"the object as canonical .dli lines"`
	Errors    []FieldProblem `json:"errors" desc:"every field error; empty when valid"`
}

// ImportParams import .dli text into a document.
type ImportParams struct {
	Text        string `json:"text" desc:".dli source text"`
	Scope       string `json:"scope" desc:"the document to import into; must match the text's scope line, if any"`
	Materialize bool   `json:"materialize,omitempty" desc:"commit the declarations, only when no finding is an error"`
}

// ImportResult is dli.import.
type ImportResult struct {
	Scope        string          `json:"scope" desc:"the document imported into"`
	Base         string          `json:"base" desc:"the commit the text was staged over (\"\" before the first commit)"`
	Declarations int             `json:"declarations" desc:"how many declarations the text holds"`
	Findings     []PlacedFinding `json:"findings" desc:"the findings over the text, each placed at a line and column, in source order"`
	Consequences Consequences    `json:"consequences" desc:"the derived-consequence diff the text makes"`
	Blocked      bool            `json:"blocked" desc:"an error finding stands, so a materialize is refused"`
	Committed    bool            `json:"committed" desc:"a new commit was written"`
	Commit       string          `json:"commit" desc:"the new commit, or the head when every declaration was there already; \"\" on a dry run"`
	// Counts count the consequences of each kind, those Consequences
	// lists and those it leaves out (ImportRequest.Listed).
	Counts ConsequenceCounts `json:"-"`
}

// scopeOf settles the scope of a text: the param, else its scope line;
// both given must agree.
func scopeOf(doc *dli.Document, scope string) (string, error) {
	if scope == "" {
		return doc.Scope, nil
	}
	if !objects.ValidID(scope) {
		return "", fault.Errorf(fault.Invalid, fault.CodeBadParams, "params: scope %q is not a scope id", scope).With("field", "scope")
	}
	if doc.Scope != "" && doc.Scope != scope {
		return "", fault.Errorf(fault.Refused, CodeScopeMismatch, "The text is written for scope %s, not %s.", doc.Scope, scope).
			With("scope", scope).With("text_scope", doc.Scope)
	}
	return scope, nil
}

func (s *Service) CheckText(ctx context.Context, p *TextCheckParams) (TextCheckResult, error) {
	doc, perr := dli.Parse(textName, []byte(p.Text))
	if doc == nil {
		return TextCheckResult{}, parseError(parseErrors(perr))
	}
	scope, err := scopeOf(doc, p.Scope)
	if err != nil {
		return TextCheckResult{}, err
	}
	doc.Scope = scope
	return s.CheckDocument(ctx, CheckRequest{Doc: doc, ParseErrors: parseErrors(perr), Standalone: p.Standalone})
}

func (s *Service) FormatText(_ context.Context, p *TextParams) (FmtResult, error) {
	doc, err := parse(p.Text)
	if err != nil {
		return FmtResult{}, err
	}
	out := string(dli.Format(doc))
	return FmtResult{Text: out, Changed: out != p.Text}, nil
}

func (s *Service) ParseText(_ context.Context, p *TextParams) (ParseResult, error) {
	doc, err := parse(p.Text)
	if err != nil {
		return ParseResult{}, err
	}
	res := ParseResult{Grammar: doc.Grammar, Scope: doc.Scope, Objects: make([]ParsedObject, len(doc.Decls))}
	for i, d := range doc.Decls {
		data, err := objects.Canonical(d.Object)
		if err != nil {
			return ParseResult{}, err
		}
		id, err := d.Object.ID()
		if err != nil {
			return ParseResult{}, err
		}
		res.Objects[i] = ParsedObject{ID: id.String(), Type: string(d.Object.Type()), Line: d.Pos.Line, Col: d.Pos.Col, Object: data}
	}
	return res, nil
}

// decodeObject decodes one object param, or refuses it as invalid-object
// naming the first field at fault under path (all of them in data).
func decodeObject(raw json.RawMessage, path string) (objects.Object, error) {
	o, err := objects.Decode(raw)
	if err == nil {
		return o, nil
	}
	fes := objects.FieldErrors(err)
	if len(fes) == 0 {
		return nil, fault.Errorf(fault.Invalid, CodeInvalidObject, "params: %s: %v", path, err).With("field", path)
	}
	problems := make([]FieldProblem, len(fes))
	for i, fe := range fes {
		problems[i] = FieldProblem{Field: joinField(path, fe.Field), Code: fe.Code, Message: fe.Message}
	}
	return nil, fault.Errorf(fault.Invalid, CodeInvalidObject, "params: %s: %s", path, fes[0].Message).
		With("field", problems[0].Field).With("problems", problems)
}

func joinField(path, field string) string {
	if field == "" {
		return path
	}
	return path + "." + field
}

func (s *Service) RenderObjects(_ context.Context, p *RenderParams) (RenderResult, error) {
	doc := &dli.Document{Grammar: dli.Grammar, Scope: p.Scope}
	for i, raw := range p.Objects {
		o, err := decodeObject(raw, fmt.Sprintf("objects[%d]", i))
		if err != nil {
			return RenderResult{}, err
		}
		doc.Decls = append(doc.Decls, dli.Decl{Object: o})
	}
	return RenderResult{Text: string(dli.Format(doc))}, nil
}

func (s *Service) ValidateObject(_ context.Context, p *ValidateParams) (ValidateResult, error) {
	o, err := objects.Decode(p.Object)
	if err != nil {
		fes := objects.FieldErrors(err)
		if len(fes) == 0 {
			return ValidateResult{}, err
		}
		res := ValidateResult{Errors: make([]FieldProblem, len(fes))}
		for i, fe := range fes {
			res.Errors[i] = FieldProblem{Field: fe.Field, Code: fe.Code, Message: fe.Message}
		}
		return res, nil
	}
	data, err := objects.Canonical(o)
	if err != nil {
		return ValidateResult{}, err
	}
	id, err := o.ID()
	if err != nil {
		return ValidateResult{}, err
	}
	return ValidateResult{Valid: true, ObjectID: id.String(), Type: string(o.Type()), Canonical: string(data), Rendered: dli.RenderDecl(o), Errors: []FieldProblem{}}, nil
}

func (s *Service) ImportText(ctx context.Context, p *ImportParams) (ImportResult, error) {
	if _, err := s.needStore(); err != nil {
		return ImportResult{}, err
	}
	if err := s.checkDocument(p.Scope); err != nil {
		return ImportResult{}, err
	}
	doc, err := parse(p.Text)
	if err != nil {
		return ImportResult{}, err
	}
	if _, err := scopeOf(doc, p.Scope); err != nil {
		return ImportResult{}, err
	}
	doc.Scope = p.Scope
	res, err := s.Import(ctx, ImportRequest{Doc: doc, Materialize: p.Materialize})
	if err != nil {
		return ImportResult{}, err
	}
	return res, nil
}
