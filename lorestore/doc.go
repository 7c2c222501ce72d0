// Package lorestore keeps a lore world in a bare git repository that real git
// reads unchanged: every lore object is a blob of RFC 8785 canonical JSON
// named by its BLAKE3 id, every durable change is one commit with a
// one-line summary and Lore-* trailers, and branches, merges and remotes are
// ordinary git refs, merge commits, pushes and fetches.
//
// The package is the porcelain over two plumbing packages: odb (packs and
// loose objects) and refs (git's lock-and-rename ref protocol). It knows the
// tree layout of DESIGN.md section 3 and nothing of what the objects mean:
// compiling a world, grading claims and reporting conflicts belong to the
// world package.
//
// Layout of a commit's tree:
//
//	lore.json                                   store header
//	scopes/<scope>/claims/<ab>/<id>.json        claims, sharded by id prefix
//	scopes/<scope>/decisions/<id>.json
//	scopes/<scope>/attacks/<id>.json
//	scopes/<scope>/standing/<claim-id>/<id>.json
//	dke/<store>/modules/<name>.json             a DKE module, replaced on put
//	dke/<store>/claims/<Kind>/<ab>/<id>.json    a DKE claim, sharded by id prefix
//	project/documents/<scope>.json              a declared document, replaced on put
//	project/dialects/<id>.json                  a project-level dialect, replaced on put
//
// The project/ namespace is the project's declaration (project.go): it
// travels with the lore, so a clone of a store can be served.
//
// Every write is a Batch: objects put into a scope, DKE modules and
// claims put into a DKE store, the project's documents and dialects, and
// removals of any of those files (a removal of a file the parent lacks is
// no change; a folder left empty goes). A Bulk is the other write: one
// scope's objects, as many as a stream holds, in memory that does not
// grow with them. History keeps every removed value: the commit before a
// removal still holds it, as `git log` and `git show` read.
package lorestore
