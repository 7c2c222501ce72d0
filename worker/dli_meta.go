// The self-describing ops: the handshake, the version, the served ops and
// their schemas, the error-code reference, the finding catalogue and the
// killed forms — each read off the registry, the catalogue or the code
// tables when called, never a list kept here.

package dliops

import (
	"context"
	"fmt"
	"sort"

	"github.com/deloreis/deloreis/fault"
	"github.com/deloreis/deloreis/lorestore"
	"github.com/deloreis/deloreis/worker"
	"github.com/deloreis/deloreis/world"
)

// Server is the server name dli.hello gives.
const Server = "deloreis"

// Empty is the params of an op that takes none.
type Empty struct{}

// HelloResult is dli.hello: what this worker is and what it serves.
type HelloResult struct {
	Contract   string   `json:"contract" desc:"the contract version served"`
	Server     string   `json:"server"`
	Version    string   `json:"version" desc:"the build version"`
	Profiles   []string `json:"profiles" desc:"the profiles a transport may advertise"`
	Ops        int      `json:"ops" desc:"the number of ops served (the extended profile)"`
	FictionOps int      `json:"fiction_ops" desc:"the number of ops in the compact fiction profile"`
}

// VersionResult is dli.version.
type VersionResult struct {
	Contract      string `json:"contract"`
	Version       string `json:"version"`
	StoreFormat   int    `json:"store_format" desc:"the lorestore tree layout this build reads and writes"`
	StoreContract string `json:"store_contract" desc:"the contract version written into a store's lore.json"`
}

// OpsParams select a profile (default extended: every op).
type OpsParams struct {
	Profile string `json:"profile,omitempty" desc:"extended (default) or fiction"`
}

// Validate refuses an unknown profile.
func (p *OpsParams) Validate() error {
	switch worker.Profile(p.Profile) {
	case "", worker.ProfileExtended, worker.ProfileFiction:
		return nil
	}
	return fault.Errorf(fault.Invalid, fault.CodeBadParams, "params: profile %q is not extended or fiction", p.Profile).With("field", "profile")
}

// OpRow is one served op.
type OpRow struct {
	Name     string   `json:"name"`
	Summary  string   `json:"summary"`
	Mutating bool     `json:"mutating"`
	Profiles []string `json:"profiles"`
}

// OpsResult is dli.ops.
type OpsResult struct {
	Profile string  `json:"profile"`
	Ops     []OpRow `json:"ops" desc:"sorted by name"`
}

// SchemaParams name an op.
type SchemaParams struct {
	Op string `json:"op"`
}

// SchemaResult is dli.schema: the JSON Schemas of one op's request and
// response lines, and of its params and result objects alone.
type SchemaResult struct {
	Op       string         `json:"op"`
	Mutating bool           `json:"mutating"`
	Request  map[string]any `json:"request" desc:"JSON Schema of a whole request line"`
	Response map[string]any `json:"response" desc:"JSON Schema of a whole response line"`
	Params   map[string]any `json:"params" desc:"JSON Schema of the params object"`
	Result   map[string]any `json:"result" desc:"JSON Schema of the result fields"`
}

// ErrorRow is one error code.
type ErrorRow struct {
	Code  string      `json:"code"`
	Class fault.Class `json:"class"`
}

// ErrorsResult is dli.errors.
type ErrorsResult struct {
	Classes []fault.Class `json:"classes"`
	Codes   []ErrorRow    `json:"codes" desc:"sorted by code"`
}

// FindingRow is one catalogued finding code.
type FindingRow struct {
	Code     string         `json:"code"`
	Severity world.Severity `json:"severity" desc:"error blocks materialize; warn and info do not"`
	Grade    world.Evidence `json:"grade" desc:"asserted < checked < derived"`
	Meaning  string         `json:"meaning"`
}

// FindingsResult is dli.findings.
type FindingsResult struct {
	Findings []FindingRow `json:"findings"`
}

// KilledRow is one killed form.
type KilledRow struct {
	Name        string `json:"name"`
	Replacement string `json:"replacement"`
	Note        string `json:"note"`
}

// KilledResult is dli.killed.
type KilledResult struct {
	Ops      []KilledRow `json:"ops" desc:"op names answered with killed-op"`
	Versions []KilledRow `json:"versions" desc:"contract versions answered with killed-version"`
}

func registerMeta(r *worker.Registry, s *service) {
	worker.Register(r, worker.Spec{Name: "dli.hello", Summary: "Handshake: the contract, the server and its version, the profiles and how many ops each serves.", Fiction: true}, s.opHello)
	worker.Register(r, worker.Spec{Name: "dli.version", Summary: "The contract version, the build version and the store format."}, s.opVersion)
	worker.Register(r, worker.Spec{Name: "dli.ops", Summary: "The served ops of a profile, with summary, mutating flag and profiles."}, s.opOps)
	worker.Register(r, worker.Spec{Name: "dli.schema", Summary: "The JSON Schemas of one op's request and response, generated from its Go types.", Errors: []string{CodeNoSuchOp}}, s.opSchema)
	worker.Register(r, worker.Spec{Name: "dli.errors", Summary: "The error-code reference: every code the worker answers with, with its class."}, s.opErrors)
	worker.Register(r, worker.Spec{Name: "dli.findings", Summary: "The finding catalogue: every finding code with its severity, grade and meaning."}, s.opFindings)
	worker.Register(r, worker.Spec{Name: "dli.killed", Summary: "The killed forms: op names and contract versions no longer served, with their replacements."}, s.opKilled)
}

func (s *service) opHello(_ context.Context, _ *worker.Call, _ *Empty) (HelloResult, error) {
	return HelloResult{
		Contract: worker.Version, Server: Server, Version: s.cfg.Version,
		Profiles: []string{string(worker.ProfileExtended), string(worker.ProfileFiction)},
		Ops:      len(s.reg.Ops(worker.ProfileExtended)), FictionOps: len(s.reg.Ops(worker.ProfileFiction)),
	}, nil
}

func (s *service) opVersion(_ context.Context, _ *worker.Call, _ *Empty) (VersionResult, error) {
	return VersionResult{Contract: worker.Version, Version: s.cfg.Version, StoreFormat: lorestore.FormatVersion, StoreContract: lorestore.ContractVersion}, nil
}

func (s *service) opOps(_ context.Context, _ *worker.Call, p *OpsParams) (OpsResult, error) {
	prof := worker.Profile(p.Profile)
	if prof == "" {
		prof = worker.ProfileExtended
	}
	res := OpsResult{Profile: string(prof), Ops: []OpRow{}}
	for _, op := range s.reg.Ops(prof) {
		row := OpRow{Name: op.Name, Summary: op.Summary, Mutating: op.Mutating, Profiles: []string{string(worker.ProfileExtended)}}
		if op.Fiction {
			row.Profiles = append(row.Profiles, string(worker.ProfileFiction))
		}
		res.Ops = append(res.Ops, row)
	}
	return res, nil
}

func (s *service) opSchema(_ context.Context, _ *worker.Call, p *SchemaParams) (SchemaResult, error) {
	op, ok := s.reg.Lookup(p.Op)
	if !ok {
		e := fault.Errorf(fault.NotFound, CodeNoSuchOp, "No op named %q is served; dli.ops lists them.", p.Op).With("op", p.Op)
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

func (s *service) opErrors(_ context.Context, _ *worker.Call, _ *Empty) (ErrorsResult, error) {
	all := ErrorCodes()
	res := ErrorsResult{Classes: worker.Classes, Codes: make([]ErrorRow, 0, len(all))}
	for c, cl := range all {
		res.Codes = append(res.Codes, ErrorRow{Code: c, Class: cl})
	}
	sort.Slice(res.Codes, func(i, j int) bool { return res.Codes[i].Code < res.Codes[j].Code })
	return res, nil
}

func (s *service) opFindings(_ context.Context, _ *worker.Call, _ *Empty) (FindingsResult, error) {
	res := FindingsResult{Findings: make([]FindingRow, len(world.Catalogue))}
	for i, c := range world.Catalogue {
		res.Findings[i] = FindingRow{Code: c.Code, Severity: c.Severity, Grade: c.Grade, Meaning: c.Meaning}
	}
	sort.Slice(res.Findings, func(i, j int) bool { return res.Findings[i].Code < res.Findings[j].Code })
	return res, nil
}

func (s *service) opKilled(_ context.Context, _ *worker.Call, _ *Empty) (KilledResult, error) {
	res := KilledResult{Ops: []KilledRow{}, Versions: []KilledRow{{
		Name: "1.x", Replacement: worker.Version,
		Note: fmt.Sprintf("every contract version before %s is refused with killed-version; any other version with unsupported-version", worker.Version),
	}}}
	for _, k := range s.reg.KilledForms() {
		res.Ops = append(res.Ops, KilledRow{Name: k.Name, Replacement: k.Replacement, Note: k.Note})
	}
	return res, nil
}
