// Package author is where the lore world meets the lorestore: workspaces
// and the author.* operations over them. A Workspace is a base commit of
// one document (scope), the compiled world of that commit — taken from a
// cache keyed by (commit, scope) — and a staged world built from it with
// world.Stage, one call at a time. Staging, discarding, reading and
// materializing a workspace, and the `deloreis import` and `deloreis
// check` commands, all go through here; nothing else compiles a world.
//
// The mutation law of the spec lives here too: a mutating call may present
// the workspace digest it expects (a stale one is refused and stages
// nothing) and an idempotency key (an exact retry returns the first result
// and stages nothing; the same key with other params conflicts), and every
// call that fails validation stages nothing.
//
// What it is not: it speaks no transport. Register puts its ops into a
// worker.Registry; the stdio and MCP servers dispatch through that.
// Strings that arrive in params are data: they are checked as ids, names
// or free text by package objects and never become paths or ref names.
package author
