// The self-describing ops: the handshake, the version, the served ops and
// their schemas, the error-code reference, the finding catalogue and the
// killed forms — each read off the registry, the catalogue or the code
// tables when called, never a list kept here.

package worker

import (
	"context"
	"fmt"
	"sort"

	"github.com/deloreis/deloreis/author"
	"github.com/deloreis/deloreis/fault"
)

// Server is the server name dli.hello gives.
const Server = "deloreis"

// HelloResult is dli.hello: what this worker is and what it serves.
type HelloResult struct {
	Contract   string   `json:"contract" desc:"the contract version served"`
	Server     string   `json:"server" desc:"the server's name (deloreis)"`
	Version    string   `json:"version" desc:"the build version"`
	Profiles   []string `json:"profiles" desc:"the profiles a transport may advertise"`
	Ops        int      `json:"ops" desc:"the number of ops served (the extended profile)"`
	FictionOps int      `json:"fiction_ops" desc:"the number of ops in the compact fiction profile"`
}

// VersionResult is dli.version.
type VersionResult struct {
	Contract      string `json:"contract" desc:"the contract version served (2.0.0)"`
	Version       string `json:"version" desc:"the build version"`
	StoreFormat   int    `json:"store_format" desc:"the lorestore tree layout this build reads and writes"`
	StoreContract string `json:"store_contract" desc:"the contract version written into a store's lore.json"`
}

// OpsParams select a profile (default extended: every op).
type OpsParams struct {
	Profile string `json:"profile,omitempty" desc:"extended (default) or fiction"`
}

// Validate refuses an unknown profile.
func (p *OpsParams) Validate() error {
	switch Profile(p.Profile) {
	case "", ProfileExtended, ProfileFiction:
		return nil
	}
	return fault.Errorf(fault.Invalid, fault.CodeBadParams, "params: profile %q is not extended or fiction", p.Profile).With("field", "profile")
}

// OpRow is one served op.
type OpRow struct {
	Name     string   `json:"name" desc:"the op's name, as a request's op names it"`
	Summary  string   `json:"summary" desc:"what the op does, in one line"`
	Mutating bool     `json:"mutating" desc:"true when the op is under the mutation law (takes expected_digest and idempotency_key)"`
	Profiles []string `json:"profiles" desc:"the profiles that serve it: extended, and fiction when it is in the compact profile"`
}

// OpsResult is dli.ops.
type OpsResult struct {
	Profile string  `json:"profile" desc:"the profile listed: extended or fiction"`
	Ops     []OpRow `json:"ops" desc:"the ops of the profile, sorted by name"`
}

// SchemaParams name an op.
type SchemaParams struct {
	Op string `json:"op" desc:"the name of a served op"`
}

// SchemaResult is dli.schema: the JSON Schemas of one op's request and
// response lines, and of its params and result objects alone.
type SchemaResult struct {
	Op       string         `json:"op" desc:"the op's name"`
	Mutating bool           `json:"mutating" desc:"true when the op is under the mutation law (takes expected_digest and idempotency_key)"`
	Request  map[string]any `json:"request" desc:"JSON Schema of a whole request line"`
	Response map[string]any `json:"response" desc:"JSON Schema of a whole response line"`
	Params   map[string]any `json:"params" desc:"JSON Schema of the params object"`
	Result   map[string]any `json:"result" desc:"JSON Schema of the result fields"`
}

// ErrorRow is one error code.
type ErrorRow struct {
	Code  string      `json:"code" desc:"the error code, as error.code carries it"`
	Class fault.Class `json:"class" desc:"its class: schema, refused, conflict, not-found or internal"`
}

// ErrorsResult is dli.errors.
type ErrorsResult struct {
	Classes []fault.Class `json:"classes" desc:"every error class, which says what to do: schema (fix the request), refused (re-read, then decide), conflict (an idempotency key reused), not-found, internal (nothing was stored)"`
	Codes   []ErrorRow    `json:"codes" desc:"every code an op may answer with, and its class, sorted by code"`
}

// KilledRow is one killed form.
type KilledRow struct {
	Name        string `json:"name" desc:"the killed op or contract version"`
	Replacement string `json:"replacement" desc:"the op or version to use instead; \"\" when there is none"`
	Note        string `json:"note" desc:"why it was killed"`
}

// KilledResult is dli.killed.
type KilledResult struct {
	Ops      []KilledRow `json:"ops" desc:"the killed ops, answered with killed-op naming the replacement"`
	Versions []KilledRow `json:"versions" desc:"the killed contract versions, answered with killed-version"`
}

// metaOps answer the self-describing ops from the registry they are in.
type metaOps struct {
	reg     *Registry
	version string // the build version
}

// registerMeta binds the self-describing ops in r; they read r when
// called, so they describe whatever it serves. version is the build's.
func registerMeta(r *Registry, version string, findings func(context.Context, *author.Empty) (author.FindingsResult, error)) {
	s := &metaOps{reg: r, version: version}
	Register(r, Spec{Name: "dli.hello", Summary: "Handshake: the contract, the server and its version, the profiles and how many ops each serves.", Fiction: true}, s.opHello)
	Register(r, Spec{Name: "dli.version", Summary: "The contract version, the build version and the store format."}, s.opVersion)
	Register(r, Spec{Name: "dli.ops", Summary: "The served ops of a profile, with summary, mutating flag and profiles."}, s.opOps)
	Register(r, Spec{Name: "dli.schema", Summary: "The JSON Schemas of one op's request and response, generated from its Go types.", Errors: []string{author.CodeNoSuchOp}}, s.opSchema)
	Register(r, Spec{Name: "dli.errors", Summary: "The error-code reference: every code the worker answers with, with its class."}, s.opErrors)
	Register(r, Spec{Name: "dli.findings", Summary: "The finding catalogue: every finding code with its severity, grade and meaning."}, read(findings))
	Register(r, Spec{Name: "dli.killed", Summary: "The killed forms: op names and contract versions no longer served, with their replacements."}, s.opKilled)
}

func (s *metaOps) opHello(_ context.Context, _ *Call, _ *author.Empty) (HelloResult, error) {
	return HelloResult{
		Contract: Version, Server: Server, Version: s.version,
		Profiles: []string{string(ProfileExtended), string(ProfileFiction)},
		Ops:      len(s.reg.Ops(ProfileExtended)), FictionOps: len(s.reg.Ops(ProfileFiction)),
	}, nil
}

func (s *metaOps) opVersion(_ context.Context, _ *Call, _ *author.Empty) (VersionResult, error) {
	return VersionResult{Contract: Version, Version: s.version, StoreFormat: author.StoreFormat, StoreContract: author.StoreContract}, nil
}

func (s *metaOps) opOps(_ context.Context, _ *Call, p *OpsParams) (OpsResult, error) {
	prof := Profile(p.Profile)
	if prof == "" {
		prof = ProfileExtended
	}
	res := OpsResult{Profile: string(prof), Ops: []OpRow{}}
	for _, op := range s.reg.Ops(prof) {
		row := OpRow{Name: op.Name, Summary: op.Summary, Mutating: op.Mutating, Profiles: []string{string(ProfileExtended)}}
		if op.Fiction {
			row.Profiles = append(row.Profiles, string(ProfileFiction))
		}
		res.Ops = append(res.Ops, row)
	}
	return res, nil
}

func (s *metaOps) opSchema(_ context.Context, _ *Call, p *SchemaParams) (SchemaResult, error) {
	op, ok := s.reg.Lookup(p.Op)
	if !ok {
		e := fault.Errorf(fault.NotFound, author.CodeNoSuchOp, "No op named %q is served; dli.ops lists them.", p.Op).With("op", p.Op)
		for _, k := range s.reg.KilledForms() {
			if k.Name == p.Op && k.Replacement != "" {
				e = e.With("replacement", k.Replacement)
				e.Message = fmt.Sprintf("%s is a killed form; use %s.", p.Op, k.Replacement)
			}
		}
		return SchemaResult{}, e
	}
	return SchemaResult{Op: op.Name, Mutating: op.Mutating, Request: op.RequestSchema(), Response: op.ResponseSchema(),
		Params: op.ParamsSchema(), Result: op.ResultSchema()}, nil
}

func (s *metaOps) opErrors(_ context.Context, _ *Call, _ *author.Empty) (ErrorsResult, error) {
	all := DLIErrorCodes()
	res := ErrorsResult{Classes: Classes, Codes: make([]ErrorRow, 0, len(all))}
	for c, cl := range all {
		res.Codes = append(res.Codes, ErrorRow{Code: c, Class: cl})
	}
	sort.Slice(res.Codes, func(i, j int) bool { return res.Codes[i].Code < res.Codes[j].Code })
	return res, nil
}

func (s *metaOps) opKilled(_ context.Context, _ *Call, _ *author.Empty) (KilledResult, error) {
	res := KilledResult{Ops: []KilledRow{}, Versions: []KilledRow{{
		Name: "1.x", Replacement: Version,
		Note: fmt.Sprintf("every contract version before %s is refused with killed-version; any other version with unsupported-version", Version),
	}}}
	for _, k := range s.reg.KilledForms() {
		res.Ops = append(res.Ops, KilledRow(k))
	}
	return res, nil
}

// DLIErrorCodes is the whole error-code reference of the DLI ops: the
// protocol's codes and the use cases', each with its class.
func DLIErrorCodes() map[string]fault.Class {
	out := map[string]fault.Class{}
	for _, m := range []map[string]fault.Class{ProtocolCodes, author.ErrorCodes} {
		for c, cl := range m {
			out[c] = cl
		}
	}
	return out
}
