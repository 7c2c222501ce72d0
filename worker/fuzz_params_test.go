// FuzzParams: every op's params decoder, driven by the registry. The
// fuzzer picks an op of the served list (every DLI op, then every DKE
// tool) by an index byte and sends the params bytes in a request line,
// as a stdio client would; the op answers a typed error or a result,
// never panics, never hangs and never allocates without bound. Each input
// runs on a fresh copy of the seed project (with ws-1 open on storybook)
// or of the seed DKE store, so an input answers alone as it did in the
// run. Its seeds, which plain go test runs, are the params of every call
// of the contract fixtures.

package worker

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/deloreis/deloreis/internal/fuzzseed"
)

// fuzzOps lists the ops FuzzParams picks from: the project registry's,
// then the DKE registry's, each by name. dke marks the DKE tools.
func fuzzOps(f *testing.F, seeds *fuzzseed.Seeds) (ops []string, dke map[string]bool) {
	for _, op := range ProjectRegistry(seeds.Project(f), "fuzz").Ops(ProfileExtended) {
		ops = append(ops, op.Name)
	}
	reg := NewRegistry()
	RegisterDKE(reg, seeds.DKE(f))
	dke = map[string]bool{}
	for _, op := range reg.Ops(ProfileExtended) {
		ops = append(ops, op.Name)
		dke[op.Name] = true
	}
	return ops, dke
}

// paramsLine is the request line that sends params to op: the params as
// they are (no member when empty), the id and version fixed.
func paramsLine(op string, params []byte) []byte {
	name, _ := json.Marshal(op)
	line := append([]byte(`{"dli":"2.0.0","id":"fz","op":`), name...)
	if len(params) > 0 {
		line = append(append(line, `,"params":`...), params...)
	}
	return append(line, '}')
}

func FuzzParams(f *testing.F) {
	seeds := fuzzseed.Build(f)
	ops, dke := fuzzOps(f, seeds)
	index := map[string]int{}
	for i, op := range ops {
		index[op] = i
	}
	for _, c := range fuzzseed.Calls(f, "..") {
		if i, ok := index[c.Op]; ok { // a killed op is FuzzDispatch's
			f.Add(byte(i), []byte(c.Params))
		}
	}
	for i := range ops { // every op with no params and with a wrong shape
		f.Add(byte(i), []byte(`{}`))
		f.Add(byte(i), []byte(`{"workspace":"ws-1","scope":7,"x":[{}]}`))
	}
	f.Fuzz(func(t *testing.T, pick byte, params []byte) {
		op := ops[int(pick)%len(ops)]
		var reg *Registry
		if dke[op] {
			reg = NewRegistry()
			RegisterDKE(reg, seeds.DKE(t))
		} else {
			reg = ProjectRegistry(seeds.Project(t), "fuzz")
			if resp := reg.Dispatch(context.Background(), []byte(`{"dli":"2.0.0","id":"setup","op":"author.open","params":{"scope":"storybook"}}`)); resp.Err != nil {
				t.Fatalf("opening ws-1: %v", resp.Err)
			}
		}
		var resp Response
		fuzzseed.Bounded(t, len(params), func() { resp = reg.Dispatch(context.Background(), paramsLine(op, params)) })
		checkAnswer(t, op, params, resp)
	})
}

// checkAnswer: the response is one JSON object; a refusal is a typed
// error of a known class other than internal, with a code and a message;
// a result is an object.
func checkAnswer(t *testing.T, op string, params []byte, resp Response) {
	t.Helper()
	data, err := json.Marshal(resp)
	if err != nil {
		t.Fatalf("%s %q: the response does not marshal: %v", op, params, err)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatalf("%s %q: the response is not one JSON object: %s", op, params, data)
	}
	if resp.Err == nil {
		var obj map[string]json.RawMessage
		if json.Unmarshal(resp.Result, &obj) != nil || obj == nil {
			t.Fatalf("%s %q: the result is not an object: %s", op, params, resp.Result)
		}
		return
	}
	switch resp.Err.Class {
	case ClassSchema, ClassRefused, ClassConflict, ClassNotFound:
	case ClassInternal:
		t.Fatalf("%s %q: an internal error: %s", op, params, data)
	default:
		t.Fatalf("%s %q: unknown class %q", op, params, resp.Err.Class)
	}
	if resp.Err.Code == "" || resp.Err.Message == "" {
		t.Fatalf("%s %q: an error without code or message: %s", op, params, data)
	}
}
