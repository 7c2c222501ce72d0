// Package dliops is the dli.* worker ops over one project: the handshake
// and the self-description of the served contract (dli.hello, dli.version,
// dli.ops, dli.schema, dli.errors, dli.findings, dli.killed), the .dli text
// tools (dli.check, dli.fmt, dli.parse, dli.render, dli.validate,
// dli.import) and the read-only store tools (dli.object, dli.log, dli.show,
// dli.branches, dli.scopes, dli.export, dli.fsck, dli.graph, dli.diff,
// dli.project). Register files them in a worker.Registry beside the
// author.* ops; the self-describing ops read that registry when called, so
// they describe whatever it serves.
//
// The `deloreis check` and `import` commands share its finding placement
// (PlaceAll), so a finding sits at the same line and column on the command
// line and on the wire.
//
// What it is not: none of its ops is a workspace op. They carry no digest
// fence; dli.import is the one that writes, one content-addressed commit
// through author.Stager, so an exact retry commits nothing new. Strings in
// params are data: revisions go through lorestore.Resolve, scopes and ids
// are checked by package objects, and nothing becomes a path.
package dliops
