// Package service is the DKE runtime's use cases: the thirteen tools of
// dke-mcp-contract.txt — compile, run, spec, list, info, forget,
// forget_rule, forget_constraint, list_modules, info_module,
// forget_module, stores and checkup — as typed Go methods of Service,
// over DKE stores kept in the lorestore under dke/<store_id>/. A method
// takes its params struct and returns its result struct or a domain error
// (fault.Error, its code one of the Code constants; ErrorCodes classes
// them).
//
// A store's claims are one canonical JSON file each under
// dke/<id>/claims/<Kind>/, its logical clock and creation time in
// dke/<id>/store.json, and its modules under dke/<id>/modules/<name>.json
// (the source, the surface it was compiled in, its version, created and
// updated, the compiling authority, what it installs, and the sources of
// the modules it imported as they were then). Every call that writes is
// one lorestore commit whose message reads as DKE history ("dke run: 2
// claims written, 1 removed", trailers Lore-Op and Lore-DKE-Store), made
// by compare-and-swap on the head the writer read. A run, or a module
// body, writes into an in-memory overlay that its own reads see; its net
// change is committed once when it ends, a failed run's too, and
// re-applied over the head when another writer moved it (DL-0239).
//
// The claims of a store are indexed in memory once and the index is
// advanced by each commit made here, so a write costs what it touches; a
// head moved by another writer makes the next read load the store again.
// Likewise each store's rule model is kept at its latest commit
// (rulecache.go, a few models within a bound of cells): a run over that
// commit starts from it and advances it by its writes (eval.Rules), and
// the model at the commit the run made is kept in its place.
//
// New serves a lorestore its caller opened and closes; Open and Init open
// (or make) one for an adapter that may not name the lorestore, and Close
// closes it. Beside the tools, the account's part that the wire never
// offers — the stores' lifecycle (CreateStore, DeleteStore, SnapshotStore,
// RestoreStore, ListStores) and the server's keys (CreateKey, Keys,
// RevokeKey) — is here for the command line.
//
// It knows no transport. The adapters bind it: worker.RegisterDKE makes
// the methods ops of a worker registry, mcpserve.DKEOptions gives their
// MCP results the contract's _meta and text, and mcpserve.KeyHandler
// guards the HTTP server with the keyring. A caller's key reaches the
// methods as a grant in the context (WithGrant); ReadOnlyTools names the
// tools a read key may call.
package service
