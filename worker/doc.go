// Package worker is the dli.* worker protocol of deloreis and the table
// that binds every op to its use case: the request envelope ({dli, id, op,
// params, expected_digest?, idempotency_key?}), the typed wire errors and
// their classes (a use case's fault.Error maps onto one field for field),
// the one registry in which every op is registered once (its params type,
// result type, handler and profile membership), the killed-form registry
// that answers for earlier contract versions and removed ops, and the
// JSON-on-stdio server.
//
// The bindings: dli_ops.go binds the author.* and dli.* ops to methods of
// author.Service, dke_ops.go the thirteen DKE tools to dke/service, and
// dli_meta.go serves the self-describing ops off the registry itself. A
// handler decodes its params once, into the op's Go type, and calls one
// use case. Both transports end in Registry.Call — stdio after
// Registry.Dispatch reads a request line, MCP after ToolCall lifts the
// reserved arguments out of a tool call's — so they serve the same ops
// the same way, with the same typed errors; schemas, fixtures and
// docs/ops.md are generated from the same registry.
//
// What it is not: it holds no workspace, world or store of its own, and
// imports neither the lorestore, the world nor the datalog engine. The
// mutation law (digest fences, idempotency keys) is enforced by the use
// cases, which receive the envelope's fields as an author.Guard. Strings
// that arrive in a request are data: they select an op only through an
// exact registry lookup and never become paths.
package worker
