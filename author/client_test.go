package author

// The tests' client of the use cases: an op name and the JSON params a
// client sends, decoded strictly into the use case's Go type and answered
// as a client reads the answer ({"ok": true, …fields} or {"ok": false,
// "error": {code, class, message, …data}}). It stands in for the worker
// protocol, which imports this package and so cannot serve its own tests:
// the envelope, the registry, profiles, killed forms and wire errors are
// tested in package worker, over the same use cases.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/deloreis/deloreis/fault"
	"github.com/deloreis/deloreis/objects"
)

// testOp runs one op on raw params under a guard.
type testOp func(ctx context.Context, g Guard, raw json.RawMessage) (any, error)

// testOps are every op the tests call, by op name.
func testOps(s *Service) map[string]testOp {
	return map[string]testOp{
		"author.open":                     asRead(s.OpenWorkspace),
		"author.add_entity":               asClaim[*objects.Entity](s),
		"author.add_fact":                 asClaim[*objects.Fact](s),
		"author.add_relation":             asClaim[*objects.Relation](s),
		"author.add_event":                asClaim[*objects.Event](s),
		"author.add_before":               asClaim[*objects.Before](s),
		"author.add_hypothesis":           asClaim[*objects.Hypothesis](s),
		"author.open_question":            asMut(s.OpenQuestion),
		"author.add_option":               asMut(s.AddOption),
		"author.suppose":                  asMut(s.Suppose),
		"author.discard":                  asMut(s.Discard),
		"author.materialize":              asMut(s.Materialize),
		"author.status":                   asRead(s.Status),
		"author.diff":                     asRead(s.Diff),
		"author.query":                    asRead(s.Query),
		"author.why":                      asRead(s.Why),
		"author.check":                    asRead(s.Check),
		"author.entities":                 asRead(s.Entities),
		"author.history":                  asRead(s.History),
		"author.questions":                asRead(s.Questions),
		"author.record_decision":          asMut(s.RecordDecision),
		"author.record_decisions":         asMut(s.RecordDecisions),
		"author.set_standing":             asMut(s.SetStanding),
		"author.defeat":                   asMut(s.Defeat),
		"author.declare_functional":       asClaim[*objects.Functional](s),
		"author.declare_inertial":         asClaim[*objects.Inertial](s),
		"author.assert_same_as":           asClaim[*objects.SameAs](s),
		"author.assert_predicate_same_as": asMut(s.AssertPredicateSameAs),
		"author.add_state":                asClaim[*objects.State](s),
		"author.add_rule":                 asMut(s.AddRule),
		"author.branch":                   asMut(s.Branch),
		"author.merge":                    asMut(s.Merge),
		"author.add_dialect":              asClaim[*objects.Dialect](s),
		"author.add_word":                 asClaim[*objects.Word](s),
		"author.add_name":                 asClaim[*objects.Name](s),
		"author.add_derivation":           asClaim[*objects.Derivation](s),
		"author.add_ledger_entry":         asClaim[*objects.LedgerEntry](s),
		"author.add_transition":           asMut(s.AddTransition),
		"dli.name.check":                  asRead(s.NameCheck),
		"dli.canon":                       asRead(s.ExportCanon),
		"dli.check":                       asRead(s.CheckText),
		"dli.import":                      asRead(s.ImportText),
	}
}

func asClaim[T objects.Object](s *Service) testOp {
	return asMut(func(ctx context.Context, g Guard, p *ClaimParams[T]) (StageResult, error) {
		return AddClaim(s, ctx, g, p)
	})
}

func asMut[P, R any](f func(context.Context, Guard, *P) (R, error)) testOp {
	return func(ctx context.Context, g Guard, raw json.RawMessage) (any, error) {
		p, err := decodeParams[P](raw)
		if err != nil {
			return nil, err
		}
		return f(ctx, g, p)
	}
}

func asRead[P, R any](f func(context.Context, *P) (R, error)) testOp {
	return func(ctx context.Context, g Guard, raw json.RawMessage) (any, error) {
		if g.ExpectedDigest != "" || g.IdempotencyKey != "" {
			return nil, fault.Errorf(fault.Invalid, "not-mutating", "%s does not mutate", g.Op)
		}
		p, err := decodeParams[P](raw)
		if err != nil {
			return nil, err
		}
		return f(ctx, p)
	}
}

// decodeParams decodes params strictly, as the protocol does: an unknown
// field or a wrong type is a schema error, a params type's own checks
// (UnmarshalJSON, Validate) answer as they are.
func decodeParams[P any](raw json.RawMessage) (*P, error) {
	var p P
	if len(bytes.TrimSpace(raw)) == 0 {
		raw = json.RawMessage("{}")
	}
	if err := requireFields[P](raw); err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		if _, ok := fault.As(err); ok {
			return nil, err
		}
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return nil, fault.Errorf(fault.Invalid, fault.CodeBadParams, "params: field %s has the wrong type", te.Field).With("field", te.Field)
		}
		if f, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
			return nil, fault.Errorf(fault.Invalid, fault.CodeUnknownField, "params has no field %s", f).With("field", strings.Trim(f, `"`))
		}
		return nil, fault.Errorf(fault.Invalid, fault.CodeBadParams, "params: %v", err)
	}
	if v, ok := any(&p).(interface{ Validate() error }); ok {
		if err := v.Validate(); err != nil {
			if e, ok := fault.As(err); ok && e.Class != fault.Internal {
				return nil, e
			}
			return nil, fault.Errorf(fault.Invalid, fault.CodeBadParams, "params: %v", err)
		}
	}
	return &p, nil
}

// callOp runs op on params with the envelope fields env (pairs: name,
// value; "expected_digest" and "idempotency_key") and returns the answer
// as a client reads it.
func callOp(ops map[string]testOp, op string, params any, env ...string) map[string]any {
	f, ok := ops[op]
	if !ok {
		return map[string]any{"ok": false, "error": map[string]any{"code": "unknown-op", "class": "schema", "message": "no op " + op}}
	}
	raw, err := json.Marshal(params)
	if err != nil {
		panic(err)
	}
	g := Guard{Op: op}
	for i := 0; i+1 < len(env); i += 2 {
		switch env[i] {
		case "expected_digest":
			g.ExpectedDigest = env[i+1]
		case "idempotency_key":
			g.IdempotencyKey = env[i+1]
		default:
			panic(fmt.Sprintf("the test client takes no envelope field %q", env[i]))
		}
	}
	res, err := f(context.Background(), g, raw)
	if err != nil {
		e := fault.Of(err)
		out := map[string]any{}
		if len(e.Data) > 0 {
			b, _ := json.Marshal(e.Data)
			_ = json.Unmarshal(b, &out)
		}
		out["code"], out["class"], out["message"] = e.Code, string(e.Class), e.Message
		return map[string]any{"ok": false, "error": out}
	}
	b, err := json.Marshal(res)
	if err != nil {
		panic(err)
	}
	out := map[string]any{}
	if err := json.Unmarshal(b, &out); err != nil {
		panic(err)
	}
	out["ok"] = true
	return out
}

// requireFields refuses params lacking a field P requires (a field whose
// json tag has no omitempty), as the protocol's decoder does; a params
// type that reads itself checks itself.
func requireFields[P any](raw json.RawMessage) error {
	t := reflect.TypeFor[P]()
	if reflect.PointerTo(t).Implements(reflect.TypeFor[json.Unmarshaler]()) {
		return nil
	}
	var present map[string]json.RawMessage
	if json.Unmarshal(raw, &present) != nil {
		return nil // not an object: the decoder says so
	}
	for i := 0; i < t.NumField(); i++ {
		name, opts, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if name == "" || name == "-" || strings.Contains(opts, "omitempty") {
			continue
		}
		if v, ok := present[name]; !ok || string(v) == "null" {
			return fault.Errorf(fault.Invalid, fault.CodeMissingField, "params needs field %q", name).With("field", name)
		}
	}
	return nil
}
