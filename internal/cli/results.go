// The JSON results of the commands whose use case answers a Go type
// without a JSON form (no json tags: it is not on any wire), or that print
// more than one use case's answer. Where a use case's type is on the wire
// (author.ImportResult, author.ScopesResult, author.SyncReport, …) the
// command prints it as it is, so that a program reads one shape from the
// command line and from the servers.

package cli

import (
	"github.com/deloreis/deloreis/author"
	"github.com/deloreis/deloreis/dke/keys"
	"github.com/deloreis/deloreis/dke/service"
)

// checkReport is check's result: one entry a file, in the order given.
type checkReport struct {
	Files []checkedFile `json:"files" desc:"one a file, in the order given"`
	Clean bool          `json:"clean" desc:"every file parsed and has no error-severity finding"`
}

// checkedFile is one file's check: author.check_text's result (dli.check's
// shape) with the file's path, or the error that kept it from being
// checked.
type checkedFile struct {
	Path  string `json:"path" desc:"the file as given"`
	Error string `json:"error,omitempty" desc:"why the file could not be checked (also on stderr); its other fields are then empty"`
	author.TextCheckResult
}

// importReport is import's result, staged or bulk: dli.import's result
// with what the command line adds.
type importReport struct {
	File        string             `json:"file" desc:"the file imported (\"-\" for standard input)"`
	Branch      string             `json:"branch" desc:"the branch staged over (--branch)"`
	Materialize bool               `json:"materialize" desc:"the import was to commit (--materialize); false for a dry run"`
	Bulk        bool               `json:"bulk" desc:"streamed (--bulk): objects checked, the world not compiled, so findings and consequences are empty"`
	ParseErrors []author.TextError `json:"parse_errors" desc:"why the file does not parse; nothing was staged"`
	author.ImportResult
}

// branchReport is what branch did: the branches listed, the one created
// or the one deleted.
type branchReport struct {
	Action   string              `json:"action" desc:"list, create or delete"`
	Branches []author.BranchInfo `json:"branches" desc:"list: every branch, by name; create: the new branch; delete: the deleted branch with the head it had"`
}

// remoteJSON is one named remote.
type remoteJSON struct {
	Name string   `json:"name" desc:"the remote's name (origin, …)"`
	URLs []string `json:"urls" desc:"where it fetches from and pushes to"`
}

// remotesReport is remote's (and remote list's) result.
type remotesReport struct {
	Remotes []remoteJSON `json:"remotes" desc:"by name"`
}

// fsckReport is fsck's result: the store's problems, and the garbage a
// killed writer left (not a problem; gc removes it).
type fsckReport struct {
	author.FsckResult
	Garbage []author.GarbageFile `json:"garbage" desc:"files a killed writer left: not problems; deloreis gc removes them"`
}

// refUpdateJSON is one ref a push, fetch or pull moved or found as it was.
type refUpdateJSON struct {
	Ref    string `json:"ref" desc:"the ref, as refs/heads/main or refs/remotes/origin/main"`
	Old    string `json:"old" desc:"the ref's commit before (all zeros: it did not exist)"`
	New    string `json:"new" desc:"its commit after"`
	Status string `json:"status" desc:"new, updated or up-to-date"`
}

func updatesJSON(us []author.RefUpdate) []refUpdateJSON {
	out := make([]refUpdateJSON, 0, len(us))
	for _, u := range us {
		s := "updated"
		switch {
		case u.UpToDate():
			s = "up-to-date"
		case u.Created():
			s = "new"
		}
		out = append(out, refUpdateJSON{Ref: u.Ref, Old: u.Old, New: u.New, Status: s})
	}
	return out
}

// pushReport is push's result.
type pushReport struct {
	Updates      []refUpdateJSON `json:"updates" desc:"the remote's branches as pushed"`
	DanglingHead bool            `json:"dangling_head" desc:"the remote's HEAD names a branch it does not have, so a clone of it checks nothing out"`
	HeadBranch   string          `json:"head_branch,omitempty" desc:"with dangling_head: the branch HEAD should name"`
	URL          string          `json:"url,omitempty" desc:"with dangling_head: the remote's URL"`
}

// fetchReport is fetch's result.
type fetchReport struct {
	Updates []refUpdateJSON `json:"updates" desc:"the remote-tracking refs as fetched"`
}

// pullReport is pull's result, as far as it got.
type pullReport struct {
	Remote      string                 `json:"remote" desc:"as pulled, defaults filled in"`
	Branch      string                 `json:"branch" desc:"the remote's branch pulled"`
	Into        string                 `json:"into" desc:"the local branch it was merged into"`
	Updates     []refUpdateJSON        `json:"updates" desc:"the remote-tracking refs the fetch moved"`
	UpToDate    bool                   `json:"up_to_date" desc:"the local branch held the remote's already: nothing changed"`
	FastForward bool                   `json:"fast_forward" desc:"the local branch was moved forward to the remote's, no merge commit"`
	Merged      bool                   `json:"merged" desc:"a merge commit was written"`
	Before      string                 `json:"before" desc:"the target's head before"`
	Head        string                 `json:"head" desc:"the target's head after"`
	Conflicts   []author.MergeConflict `json:"conflicts" desc:"the world conflicts the merge commit brought (written whatever they are, as sync does)"`
}

func pullJSON(r author.PullResult) pullReport {
	p := pullReport{Remote: r.Remote, Branch: r.Branch, Into: r.Into, Updates: updatesJSON(r.Updates), UpToDate: r.UpToDate,
		FastForward: r.FastForward, Merged: r.Merged, Before: r.Before, Head: r.Head, Conflicts: r.Conflicts}
	if p.Conflicts == nil {
		p.Conflicts = []author.MergeConflict{}
	}
	return p
}

// cloneReport is clone's result.
type cloneReport struct {
	URL   string `json:"url" desc:"as given"`
	Dir   string `json:"dir" desc:"the new project folder (\"\" when --store named the store itself)"`
	Store string `json:"store" desc:"the new store's folder"`
}

// versionReport is version's result.
type versionReport struct {
	Version     string `json:"version" desc:"this binary's version"`
	StoreFormat int    `json:"store_format" desc:"the lorestore format this binary reads and writes"`
	Contract    string `json:"contract" desc:"the store contract"`
	Go          string `json:"go" desc:"the Go release it was built with"`
}

// initReport is init's result.
type initReport struct {
	Store         string   `json:"store" desc:"the store's folder"`
	Reinitialized bool     `json:"reinitialized" desc:"the store was there already"`
	WroteSettings bool     `json:"wrote_settings" desc:"a deloreis.toml was written (there was none)"`
	Settings      string   `json:"settings" desc:"the deloreis.toml's path"`
	Declared      []string `json:"declared" desc:"the scopes this call declared"`
	AlreadyThere  []string `json:"already_declared" desc:"the scopes the lore declared already"`
}

// orEmpty is s, or an empty slice for nil (a JSON array, never null).
func orEmpty[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// dkeChangeReport is what a DKE store lifecycle call (create, delete,
// restore) did to the branch.
type dkeChangeReport struct {
	Summary string `json:"summary" desc:"the commit's subject, as \"dke store create alpha\""`
	Commit  string `json:"commit" desc:"the commit written; \"\" when nothing changed"`
	Changed bool   `json:"changed" desc:"false when the store already was as asked: no commit"`
}

// dkeSnapshotJSON is one snapshot of a DKE store.
type dkeSnapshotJSON struct {
	Store  string `json:"store" desc:"the DKE store id"`
	Name   string `json:"name" desc:"the snapshot's name"`
	Commit string `json:"commit" desc:"the commit it records"`
}

func dkeSnapshot(sn service.StoreSnapshot) dkeSnapshotJSON {
	return dkeSnapshotJSON{Store: sn.Store, Name: sn.Name, Commit: sn.Commit}
}

// dkeStoreJSON is one DKE store as dke store list sees it.
type dkeStoreJSON struct {
	ID        string            `json:"id" desc:"the DKE store id"`
	Live      bool              `json:"live" desc:"the branch holds the store; false for a deleted store that has snapshots"`
	Created   string            `json:"created" desc:"from the store's header; \"\" when it has none"`
	Clock     int64             `json:"clock" desc:"the store's logical clock: how many writes it has taken"`
	Modules   int               `json:"modules" desc:"how many modules it holds"`
	Snapshots []dkeSnapshotJSON `json:"snapshots" desc:"by name"`
}

// dkeStoresReport is dke store list's result.
type dkeStoresReport struct {
	Branch string         `json:"branch" desc:"the branch the stores are read on"`
	Stores []dkeStoreJSON `json:"stores" desc:"every store the branch holds or a snapshot remembers, by id"`
}

// dkeKeyReport is dke key create's result: the key itself, shown this once.
type dkeKeyReport struct {
	Key   string `json:"key" desc:"the key; the keyring keeps only its hash, so it is never shown again"`
	Hash  string `json:"hash" desc:"hex SHA-256 of the key, as dke key list shows it"`
	Store string `json:"store" desc:"the DKE store the key addresses"`
	Mode  string `json:"mode" desc:"read or write"`
}

// dkeKeysReport is dke key list's result (never the keys).
type dkeKeysReport struct {
	Keys []keys.Entry `json:"keys" desc:"every key of the keyring, by its hash (never the key)"`
}

// dkeRevokeReport is dke key revoke's result.
type dkeRevokeReport struct {
	Revoked string `json:"revoked" desc:"the hash prefix of the key revoked"`
}
