// Moving the lore between machines: push, fetch, pull, sync and clone,
// and the named remotes they go to. Each is one use case every surface
// calls (the command line, serve --sync); the transports are lorestore's,
// the network ones registered with it when the network half is linked.
// The errors keep lorestore's words: they are what the user reads.

package author

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"sync"

	"github.com/deloreis/deloreis/lorestore"
	"github.com/deloreis/deloreis/lorestore/wire"
	"github.com/deloreis/deloreis/world"
)

// TransferProgress hears how far a long transfer is: done of total in a
// stage ("Counting objects" …), total 0 when unknown. nil hears nothing.
type TransferProgress func(stage string, done, total int)

// report tells p, if set, how far a stage is.
func (p TransferProgress) report(stage string, done, total int) {
	if p != nil {
		p(stage, done, total)
	}
}

// RefUpdate is one ref a push or fetch moved, or found already in place.
// Old and New are full commit ids; Old is the zero id when the ref is new.
type RefUpdate struct {
	Ref      string
	Old, New string
}

// UpToDate reports whether the ref did not move.
func (u RefUpdate) UpToDate() bool { return u.Old == u.New }

// Created reports whether the ref did not exist before.
func (u RefUpdate) Created() bool { return u.Old == zeroID }

// zeroID is the zero commit id: no commit.
var zeroID = lorestore.ZeroHash.String()

func refUpdates(us []lorestore.RefUpdate) []RefUpdate {
	out := make([]RefUpdate, len(us))
	for i, u := range us {
		out[i] = RefUpdate{Ref: u.Ref, Old: u.Old.String(), New: u.New.String()}
	}
	return out
}

// Remote is a named remote and its URLs, as git config holds them.
type Remote struct {
	Name string
	URLs []string
}

// Remotes lists the named remotes, by name.
func (s *Service) Remotes() ([]Remote, error) {
	st, err := s.needStore()
	if err != nil {
		return nil, err
	}
	rs, err := st.Remotes()
	if err != nil {
		return nil, err
	}
	out := make([]Remote, len(rs))
	for i, r := range rs {
		out[i] = Remote{Name: r.Name, URLs: r.URLs}
	}
	return out, nil
}

// AddRemote names a remote, as git remote add does.
func (s *Service) AddRemote(name, url string) error {
	st, err := s.needStore()
	if err != nil {
		return err
	}
	return st.CreateRemote(name, url)
}

// RemoveRemote drops a named remote and its remote-tracking refs, as git
// remote remove does.
func (s *Service) RemoveRemote(name string) error {
	st, err := s.needStore()
	if err != nil {
		return err
	}
	return st.RemoveRemote(name)
}

// PushOptions say what a push sends where.
type PushOptions struct {
	Remote   string   // a remote's name, a URL or a path; "" is origin
	Branches []string // default: main
	Force    bool     // allow a non-fast-forward update
	Progress TransferProgress
}

// PushResult is what a push moved, and whether the remote is left in a
// state a clone of it cannot use.
type PushResult struct {
	Updates []RefUpdate
	// DanglingHead: the remote's HEAD names a branch it does not have, so
	// a clone of it checks nothing out; HEAD should name HeadBranch. URL
	// is the remote's, to say where to fix it.
	DanglingHead bool
	URL          string
	HeadBranch   string
}

// Push sends branches to a remote, then asks the remote what its HEAD
// names (a failure to ask is no failure of the push).
func (s *Service) Push(ctx context.Context, o PushOptions) (PushResult, error) {
	st, err := s.needStore()
	if err != nil {
		return PushResult{}, err
	}
	ups, err := st.Push(ctx, o.Remote, lorestore.PushOptions{Branches: o.Branches, Force: o.Force, Progress: lorestore.Progress(o.Progress)})
	if err != nil {
		return PushResult{}, err
	}
	res := PushResult{Updates: refUpdates(ups), HeadBranch: lorestore.DefaultBranch}
	if rh, err := st.CheckRemoteHead(ctx, o.Remote); err == nil && rh.Dangling {
		res.DanglingHead, res.URL = true, rh.URL
	}
	return res, nil
}

// FetchOptions say what a fetch brings from where.
type FetchOptions struct {
	Remote   string   // a remote's name, a URL or a path; "" is origin
	Branches []string // default: every branch the remote has
	Progress TransferProgress
}

// FetchResult is what a fetch moved: the remote-tracking refs.
type FetchResult struct {
	Updates []RefUpdate
}

// Fetch brings a remote's branches into their remote-tracking refs, every
// incoming commit verified first.
func (s *Service) Fetch(ctx context.Context, o FetchOptions) (FetchResult, error) {
	st, err := s.needStore()
	if err != nil {
		return FetchResult{}, err
	}
	res, err := st.Fetch(ctx, o.Remote, lorestore.FetchOptions{Branches: o.Branches, Progress: lorestore.Progress(o.Progress)})
	if err != nil {
		return FetchResult{}, err
	}
	return FetchResult{Updates: refUpdates(res.Updates)}, nil
}

// PullOptions say which remote branch a pull brings into which branch.
type PullOptions struct {
	Remote   string // "" is origin
	Branch   string // the remote's branch; "" is main
	Into     string // the local branch merged into; "" is main
	Progress TransferProgress
	// Fetched, when set, is called once the fetch has ended (whatever its
	// outcome), before the merge: a progress display ends its line there.
	Fetched func()
}

// PullResult is what a pull did: the fetch's updates, then the merge —
// nothing to do (UpToDate), the target moved to the source (FastForward),
// or a merge commit written (Merged) with the world conflicts it brought.
type PullResult struct {
	Remote, Branch, Into string // as pulled, defaults filled in
	Updates              []RefUpdate
	UpToDate             bool
	FastForward          bool
	Merged               bool
	Before               string // the target's head before the merge
	Head                 string // its head after
	// Conflicts are the world conflicts the merge commit brought, scope
	// by scope; the merge is written whatever they are (as sync writes
	// it): they are reported, not refused.
	Conflicts []MergeConflict
}

// Pull fetches a remote's branch and merges it into a local branch,
// fast-forwarding when it can. A failure after the fetch (or after the
// merge commit) answers the result so far beside the error.
func (s *Service) Pull(ctx context.Context, o PullOptions) (PullResult, error) {
	res := PullResult{Remote: o.Remote, Branch: o.Branch, Into: o.Into}
	if res.Remote == "" {
		res.Remote = "origin"
	}
	if res.Branch == "" {
		res.Branch = lorestore.DefaultBranch
	}
	if res.Into == "" {
		res.Into = lorestore.DefaultBranch
	}
	st, err := s.needStore()
	if err != nil {
		return res, err
	}
	fetched, err := st.Fetch(ctx, res.Remote, lorestore.FetchOptions{Branches: []string{res.Branch}, Progress: lorestore.Progress(o.Progress)})
	if o.Fetched != nil {
		o.Fetched()
	}
	if err != nil {
		return res, err
	}
	res.Updates = refUpdates(fetched.Updates)
	if len(fetched.Updates) != 1 {
		return res, fmt.Errorf("pull: %s has no branch %s", res.Remote, res.Branch)
	}
	msg := lorestore.NewMessage(fmt.Sprintf("merge %s of %s into %s", res.Branch, res.Remote, res.Into), "merge", "")
	r, err := st.Merge(fetched.Updates[0].New.String(), lorestore.MergeOptions{Target: o.Into, Message: msg, FastForward: true})
	if err != nil {
		return res, err
	}
	res.UpToDate, res.FastForward = r.UpToDate, r.FastForward
	res.Merged = !r.UpToDate && !r.FastForward
	res.Before, res.Head = r.Target.String(), r.Commit.String()
	if !res.Merged {
		return res, nil
	}
	o.Progress.report("checking the merge for world conflicts", 0, 0)
	byScope, err := ScopeConflicts(st, r.Base, r.Target, r.Source, r.Commit)
	if err != nil {
		return res, err
	}
	scopes := make([]string, 0, len(byScope))
	for sc := range byScope {
		scopes = append(scopes, sc)
	}
	sort.Strings(scopes)
	for _, sc := range scopes {
		for _, c := range byScope[sc] {
			res.Conflicts = append(res.Conflicts, MergeConflict{Kind: c.Kind, Claims: c.Claims, Message: c.Message, Data: c.Data, Scope: sc})
		}
	}
	return res, nil
}

// SyncOptions say which branch a sync moves with which remote.
type SyncOptions struct {
	Remote   string // a remote's name, a URL or a path; "" is origin
	Branch   string // local and remote branch; "" is main
	Progress TransferProgress
}

// SyncReport is what one sync did (its JSON is `deloreis sync --json`).
type SyncReport struct {
	Remote      string         `json:"remote" desc:"the remote synced with"`
	Branch      string         `json:"branch" desc:"the branch synced"`
	Before      string         `json:"before" desc:"the local branch's head before the sync"`
	Head        string         `json:"head" desc:"its head after the sync"`
	RemoteHead  string         `json:"remote_head" desc:"the remote branch as last fetched; \"\" when the remote had none"`
	FastForward bool           `json:"fast_forward" desc:"the local branch was moved forward to the remote's, no merge written"`
	Merged      []string       `json:"merged" desc:"the merge commits this sync wrote"`
	Pushed      bool           `json:"pushed" desc:"the result was pushed to the remote"`
	Attempts    int            `json:"attempts" desc:"fetch-merge-push rounds taken (a lost push race retries)"`
	Conflicts   []SyncConflict `json:"conflicts" desc:"the world conflicts of the merges this sync wrote or fetched; a person must rule on them"`
}

// SyncConflict is one world conflict a merge brought, with the merge and
// whether this sync wrote it ("merged") or fetched it ("fetched").
type SyncConflict struct {
	Scope   string         `json:"scope" desc:"the scope whose world conflicts"`
	Kind    string         `json:"kind" desc:"the conflict's kind, as author.merge reports it"`
	Message string         `json:"message" desc:"the conflict in words"`
	Claims  []string       `json:"claims" desc:"the ids of the claims in conflict"`
	Data    map[string]any `json:"data" desc:"the conflict's details, by kind"`
	Merge   string         `json:"merge" desc:"the merge commit that brought it"`
	Origin  string         `json:"origin" desc:"merged: this sync wrote the merge; fetched: it came from the remote"`
}

// syncWorlds bounds the worlds one sync keeps: a run of fetched merges
// shares them (each merge is the next one's parent), derived from each
// other rather than compiled.
const syncWorlds = 8

// Sync fetches a branch from a remote, brings it into the local branch (a
// fast-forward or a merge commit) and pushes the result with a lease,
// retrying a lost race; then it gathers the world conflicts of every
// merge the round wrote or brought in. A sync writes its merge commit
// whatever the conflicts (DL-0250), so the report is the one place a
// replica hears of them.
func (s *Service) Sync(ctx context.Context, o SyncOptions) (SyncReport, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	st, err := s.needStore()
	if err != nil {
		return SyncReport{}, err
	}
	res, err := st.Sync(ctx, o.Remote, lorestore.SyncOptions{Branch: o.Branch, Progress: lorestore.Progress(o.Progress)})
	if err != nil {
		return SyncReport{}, err
	}
	rep := SyncReport{
		Remote: res.Remote, Branch: res.Branch, Before: res.Before.String(), Head: res.Head.String(),
		FastForward: res.FastForward, Merged: []string{}, Pushed: res.Pushed, Attempts: res.Attempts,
		Conflicts: []SyncConflict{},
	}
	if !res.Fetched.New.IsZero() {
		rep.RemoteHead = res.Fetched.New.String()
	}
	if res.Head.IsZero() {
		rep.Head = rep.Before
	}
	for _, m := range res.Merges {
		rep.Merged = append(rep.Merged, m.Commit.String())
	}
	wc := newWorldCache(syncWorlds)
	merges, checked := len(res.Merges)+len(res.Incoming), 0
	for _, g := range []struct {
		origin string
		ms     []lorestore.MergeResult
	}{{"merged", res.Merges}, {"fetched", res.Incoming}} {
		for _, m := range g.ms {
			o.Progress.report("checking merges for world conflicts", checked, merges)
			checked++
			cs, err := syncConflicts(st, wc, m)
			if err != nil {
				return rep, fmt.Errorf("sync: the conflicts of merge %s: %w", m.Commit.String()[:12], err)
			}
			for _, c := range cs {
				c.Merge, c.Origin = m.Commit.String(), g.origin
				rep.Conflicts = append(rep.Conflicts, c)
			}
		}
	}
	if merges > 0 {
		o.Progress.report("checking merges for world conflicts", merges, merges)
	}
	return rep, nil
}

// syncConflicts lists, scope by scope, the world conflicts a merge commit
// brought over its base: those neither side had on its own (as
// author.merge counts them). A scope whose merged objects are one side's
// as they were brings nothing and is not compiled.
func syncConflicts(st *lorestore.Store, wc *worldCache, m lorestore.MergeResult) ([]SyncConflict, error) {
	if m.Base.IsZero() {
		return nil, nil // unrelated sides: nothing to hold them against
	}
	scopes, err := st.MergeScopes(m)
	if err != nil {
		return nil, err
	}
	var out []SyncConflict
	for _, ms := range scopes {
		if !ms.Kept.IsZero() {
			continue // one side's scope as it was: nothing between the sides
		}
		scope := ms.Scope
		var ws [4]*world.World // base, ours, theirs, merged
		for i, c := range []lorestore.Hash{m.Base, m.Target, m.Source, m.Commit} {
			if ws[i], err = wc.get(st, c, scope); err != nil {
				return nil, err
			}
		}
		had := map[string]bool{}
		for _, w := range ws[1:3] {
			for _, c := range world.MergeConflicts(w, w, w, w) {
				had[c.Kind+"\x00"+c.Message] = true
			}
		}
		for _, c := range world.MergeConflicts(ws[0], ws[1], ws[2], ws[3]) {
			if had[c.Kind+"\x00"+c.Message] {
				continue
			}
			sc := SyncConflict{Scope: scope, Kind: c.Kind, Message: c.Message, Claims: c.Claims, Data: c.Data}
			if sc.Claims == nil {
				sc.Claims = []string{}
			}
			if sc.Data == nil {
				sc.Data = map[string]any{}
			}
			out = append(out, sc)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Scope < out[j].Scope })
	return out, nil
}

// CloneOptions say what is cloned where.
type CloneOptions struct {
	URL string
	// Dir is the project folder made (missing or empty); its store goes
	// at Dir/.lore. No deloreis.toml is written: the project is found by
	// its store, and its declaration comes with the lore.
	Dir string
	// Store, when Dir is "", is where the store itself is made.
	Store        string
	StoreOptions StoreOptions
	Progress     TransferProgress
}

// CloneResult says where a clone went.
type CloneResult struct {
	Dir   string // the project folder ("" when the store itself was named)
	Store string // the store's folder
}

// Clone makes a new project from a remote: every branch the remote has,
// tracked as origin/<branch>, the branch its HEAD names the local
// default. Every commit that branch reaches is checked first; a remote
// holding anything else is refused, and nothing is left behind.
func Clone(ctx context.Context, o CloneOptions) (CloneResult, error) {
	useTransports()
	res := CloneResult{Dir: o.Dir, Store: o.Store}
	cleanup := func() {}
	if o.Dir != "" {
		if entries, err := os.ReadDir(o.Dir); err == nil && len(entries) > 0 {
			return CloneResult{}, fmt.Errorf("clone: %s exists and is not empty", o.Dir)
		}
		_, statErr := os.Stat(o.Dir)
		if err := os.MkdirAll(o.Dir, 0o755); err != nil {
			return CloneResult{}, fmt.Errorf("clone: %w", err)
		}
		if os.IsNotExist(statErr) {
			cleanup = func() { os.RemoveAll(o.Dir) }
		}
		res.Store = filepath.Join(o.Dir, DefaultStoreDir)
	}
	st, err := lorestore.Clone(ctx, o.URL, res.Store, lorestore.CloneOptions{Progress: lorestore.Progress(o.Progress), Store: o.StoreOptions})
	if err != nil {
		cleanup()
		return CloneResult{}, err
	}
	return res, st.Close()
}

// useTransports gives the lorestore the git transports (lorestore/wire:
// file://, git://, ssh, http and https) once, when the first service or
// clone needs them: the command line links one program, and nothing is
// set up at package init.
func useTransports() { transportsOnce.Do(func() { lorestore.UseTransports(wire.Dial) }) }

var transportsOnce sync.Once
