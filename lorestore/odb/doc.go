// Package odb is the git object database of a bare repository: it stores
// and reads git objects (blobs, trees, commits, tags) in packfiles and loose
// files laid out exactly as real git lays them out, so that `git fsck`,
// `git log`, `git clone` and `git push` read the repository unchanged.
//
// What it is for:
//   - writing a batch of objects as one packfile plus its version-2 index,
//     made visible atomically the way git does (the .pack is renamed into
//     place first, the .idx last); a big batch streams into its temporary
//     pack as objects are added, so it holds only their names, offsets and
//     CRCs, whatever its size; a BulkPack holds not even those (they are
//     sorted on disk, and the index written from the sorted stream);
//   - reading objects fast from memory-mapped packs (resolving OFS_DELTA and
//     REF_DELTA entries written by real git) and from loose objects;
//   - streaming a self-contained pack of chosen objects for a push, and
//     storing a pack received from a remote;
//   - rolling small packs up geometrically, like `git repack --geometric=2`;
//   - taking back a just-written pack nobody relies on (Batch.Discard), for
//     a writer whose ref update lost a race.
//
// What it is not: it knows nothing of lore, trees, commits or refs beyond
// their object type; it does not walk history, compute reachability, update
// refs or prune unreachable objects. It is git plumbing; the porcelain in
// package lorestore builds on it.
//
// Concurrency: a DB is safe for use by many goroutines. Other processes
// (another deloreis writer, real git's gc or repack) may add and remove packs
// at any time; a lookup that misses rescans objects/pack once before
// reporting ErrNotFound, and packs that disappear stay readable through their
// existing memory mappings until no reader uses them.
//
// Crash safety: a process killed at any instant leaves only temporary files
// (tmp_pack_dlr_*, tmp_idx_dlr_*) or, between the two renames, a .pack
// without its .idx. Real `git fsck --strict` ignores both (exit 0, nothing
// on stderr; only `git count-objects -v` calls them garbage); Open removes
// our own stale temporary files and orphaned packs once they are old enough
// that no live writer can own them.
//
// Files of our own beside git's: objects/deloreis-packs.lock (an flock held
// while a pack is published or deleted) and objects/deloreis-consolidate.lock
// (held by the one consolidation running). They are outside objects/pack, so
// git sees no garbage.
//
// Not supported: objects/info/alternates, pack index version 1, SHA-256
// repositories.
package odb
