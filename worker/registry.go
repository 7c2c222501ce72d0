// The op registry: every op registered once, with its params type, result
// type, handler and profile membership, and the killed forms that answer
// for what the contract no longer serves. Nothing else lists ops.

package worker

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// Profile is a named set of ops a transport may advertise.
type Profile string

// The profiles. Every op is in the extended profile; the compact fiction
// profile is what MCP advertises by default.
const (
	ProfileFiction  Profile = "fiction"
	ProfileExtended Profile = "extended"
)

// Spec describes an op.
type Spec struct {
	Name     string // "author.add_fact"
	Summary  string // one line, for docs and tool descriptions
	Mutating bool   // under the mutation law: takes expected_digest and idempotency_key
	Fiction  bool   // in the compact fiction profile too

	// Writes marks an op that changes the store outside the mutation law
	// (dli.import with materialize, the DKE tools): not read-only, but it
	// takes no fence or key. Destructive marks an op that can remove
	// something (a workspace, a branch, a module). MCP's tool annotations
	// are read from these (DL-0233).
	Writes      bool
	Destructive bool

	// Errors are the codes the op answers with beyond the protocol's own (for the op reference).
	Errors []string
}

// Call is what a handler learns of its request besides the params.
type Call struct {
	ID             string
	Op             string
	ExpectedDigest string          // "" when not presented
	IdempotencyKey string          // "" when not presented
	Params         json.RawMessage // the params as received, for idempotency checks

	checked bool // Params are part of a request line or of arguments checkJSON passed
}

// Op is a registered op, as the registry and generators see it.
type Op struct {
	Spec
	Params reflect.Type // the params struct type
	Result reflect.Type // the result struct type
	call   func(ctx context.Context, c *Call) (any, *Error)
}

// ReadOnly reports whether the op changes nothing.
func (o *Op) ReadOnly() bool { return !o.Mutating && !o.Writes }

// InProfile reports whether the op is advertised in a profile.
func (o *Op) InProfile(p Profile) bool {
	return p == ProfileExtended || p == ProfileFiction && o.Fiction
}

// Killed is a form the contract no longer serves: an op name or a
// contract version, with what replaces it.
type Killed struct {
	Name        string // the op or version
	Replacement string // the op or version to use instead ("" when none)
	Note        string // why it went
}

// Registry holds the ops. Register everything before serving; after that
// it is only read and is safe for concurrent use.
type Registry struct {
	mu     sync.RWMutex
	ops    map[string]*Op
	killed map[string]Killed // by op name
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry {
	return &Registry{ops: map[string]*Op{}, killed: map[string]Killed{}}
}

// Register adds an op whose params decode into P and whose handler
// returns R (a struct, marshalled as the fields beside "ok"). It panics on
// a second registration of a name: each op is defined once.
func Register[P, R any](r *Registry, spec Spec, handler func(ctx context.Context, c *Call, p *P) (R, error)) {
	pt, rt := reflect.TypeFor[P](), reflect.TypeFor[R]()
	if pt.Kind() != reflect.Struct || rt.Kind() != reflect.Struct {
		panic(fmt.Sprintf("worker: %s: params and result must be structs", spec.Name))
	}
	op := &Op{Spec: spec, Params: pt, Result: rt}
	op.call = func(ctx context.Context, c *Call) (any, *Error) {
		var p P
		params := c.Params
		if len(params) == 0 {
			params = json.RawMessage("{}")
		}
		decode := decodeStrict
		if c.checked {
			decode = decodeChecked // Dispatch checked the whole line, these params in it
		}
		if e := decode(params, &p, "params"); e != nil {
			return nil, e
		}
		if v, ok := any(&p).(interface{ Validate() error }); ok {
			if err := v.Validate(); err != nil {
				if e := asError(err); e.Class != ClassInternal {
					return nil, e
				}
				return nil, Errorf(ClassSchema, CodeBadParams, "params: %v", err)
			}
		}
		res, err := handler(ctx, c, &p)
		if err != nil {
			return nil, asError(err)
		}
		return res, nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, dup := r.ops[spec.Name]; dup {
		panic("worker: op registered twice: " + spec.Name)
	}
	if _, dup := r.killed[spec.Name]; dup {
		panic("worker: op both served and killed: " + spec.Name)
	}
	r.ops[spec.Name] = op
}

// Kill records an op name the contract no longer serves.
func (r *Registry) Kill(k Killed) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, served := r.ops[k.Name]; served {
		panic("worker: op both served and killed: " + k.Name)
	}
	r.killed[k.Name] = k
}

// Ops lists the served ops in a profile, by name.
func (r *Registry) Ops(p Profile) []*Op {
	r.mu.RLock()
	defer r.mu.RUnlock()
	var out []*Op
	for _, op := range r.ops {
		if op.InProfile(p) {
			out = append(out, op)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// KilledForms lists the killed op names, by name.
func (r *Registry) KilledForms() []Killed {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]Killed, 0, len(r.killed))
	for _, k := range r.killed {
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Lookup returns a served op.
func (r *Registry) Lookup(name string) (*Op, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	op, ok := r.ops[name]
	return op, ok
}

// Dispatch answers one request line: it decodes the envelope strictly,
// checks the version and the op, and calls the handler.
func (r *Registry) Dispatch(ctx context.Context, line []byte) Response {
	var req Request
	if e := decodeStrict(line, &req, "request"); e != nil {
		return Response{ID: bestEffortID(line), Err: e}
	}
	return r.serve(ctx, req, true)
}

// Serve answers one decoded request.
func (r *Registry) Serve(ctx context.Context, req Request) Response {
	return r.serve(ctx, req, false)
}

// serve is Serve; checked says the request's params were checked as JSON
// already (as part of the line Dispatch read), so they are not again.
func (r *Registry) serve(ctx context.Context, req Request, checked bool) Response {
	if e := checkFrame(req); e != nil {
		return Response{ID: req.ID, Err: e}
	}
	if e := checkVersion(req.DLI); e != nil {
		return Response{ID: req.ID, Err: e}
	}
	op, ok := r.Lookup(req.Op)
	if !ok {
		r.mu.RLock()
		k, killed := r.killed[req.Op]
		r.mu.RUnlock()
		if killed {
			e := Errorf(ClassRefused, CodeKilledOp, "%s is not served by contract %s: %s", req.Op, Version, k.Note).With("op", req.Op)
			if k.Replacement != "" {
				e = e.With("replacement", k.Replacement)
				e.Message += "; use " + k.Replacement
			}
			return Response{ID: req.ID, Err: e}
		}
		return Response{ID: req.ID, Err: Errorf(ClassSchema, CodeUnknownOp, "no op named %q", req.Op).With("op", req.Op)}
	}
	return r.Call(ctx, op, &Call{ID: req.ID, ExpectedDigest: req.ExpectedDigest, IdempotencyKey: req.IdempotencyKey, Params: req.Params, checked: checked})
}

// Call answers one call of a served op made without a request line (an
// MCP tool call; see ToolCall): c holds the envelope's fence, key and id
// and the params as received (nil for none), and Call sets c.Op to the
// op's name. It makes the checks a request line meets once its op is
// known — a read takes no fence or key — decodes the params strictly into
// the op's type (checked as JSON first, unless ToolCall checked them as
// part of the arguments) and calls the handler, so that every answer is
// the one stdio gives.
func (r *Registry) Call(ctx context.Context, op *Op, c *Call) Response {
	c.Op = op.Name
	if !op.Mutating && (c.ExpectedDigest != "" || c.IdempotencyKey != "") {
		return Response{ID: c.ID, Err: Errorf(ClassSchema, CodeNotMutating,
			"%s does not mutate; expected_digest and idempotency_key are only for mutating ops", op.Name)}
	}
	res, e := op.call(ctx, c)
	if e != nil {
		return Response{ID: c.ID, Err: e}
	}
	body, err := json.Marshal(res)
	if err != nil {
		return Response{ID: c.ID, Err: Errorf(ClassInternal, CodeInternal, "result of %s: %v", op.Name, err)}
	}
	return Response{ID: c.ID, Result: body}
}

// checkFrame checks the frame fields every request needs.
func checkFrame(req Request) *Error {
	switch {
	case req.DLI == "":
		return Errorf(ClassSchema, CodeMissingField, `request needs field "dli" (the contract version, %s)`, Version).With("field", "dli")
	case req.ID == "":
		return Errorf(ClassSchema, CodeMissingField, `request needs field "id"`).With("field", "id")
	case len(req.ID) > 256:
		return Errorf(ClassSchema, CodeBadEnvelope, "request id is longer than 256 bytes")
	case req.Op == "":
		return Errorf(ClassSchema, CodeMissingField, `request needs field "op"`).With("field", "op")
	}
	return nil
}

// checkVersion accepts the served version only: an earlier major version
// is a killed form, anything else unsupported.
func checkVersion(v string) *Error {
	if v == Version {
		return nil
	}
	if major, ok := majorOf(v); ok && major < 2 {
		return Errorf(ClassRefused, CodeKilledVersion, "contract %s is no longer served; speak %s", v, Version).
			With("version", v).With("replacement", Version)
	}
	return Errorf(ClassRefused, CodeBadVersion, "contract %q is not served; this worker speaks %s", v, Version).
		With("version", v).With("replacement", Version)
}

// majorOf reads the major number of a dotted version.
func majorOf(v string) (int, bool) {
	head, _, _ := strings.Cut(v, ".")
	n, err := strconv.Atoi(head)
	return n, err == nil && n >= 0
}

// bestEffortID pulls a string id out of a request that failed to decode,
// so that the client can still pair the error with its call.
func bestEffortID(line []byte) string {
	var probe struct {
		ID any `json:"id"`
	}
	if json.Unmarshal(line, &probe) != nil {
		return ""
	}
	if s, ok := probe.ID.(string); ok && len(s) <= 256 {
		return s
	}
	return ""
}
