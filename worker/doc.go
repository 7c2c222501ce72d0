// Package worker is the dli.* worker protocol of deloreis: the request
// envelope ({dli, id, op, params, expected_digest?, idempotency_key?}), the
// typed errors and their classes, the one registry in which every op is
// registered once (its params type, result type, handler and profile
// membership), the killed-form registry that answers for earlier contract
// versions and removed ops, and the JSON-on-stdio server.
//
// Handlers know no transport: Registry.Dispatch takes one decoded request
// and returns one response, so the stdio server here and the MCP adapter
// (package mcpserve) serve the same ops the same way, and schemas, fixtures
// and docs/ops.md are generated from the same registry.
//
// What it is not: it knows nothing of workspaces, worlds or stores. The
// mutation law (digest fences, idempotency keys) is enforced by the
// handlers' package (author), which reads the envelope fields the registry
// hands it. Strings that arrive in a request are data: they select an op
// only through an exact registry lookup and never become paths.
package worker
