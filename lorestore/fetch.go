// Fetch and clone: ask a remote for the commits it has and we lack, store
// the pack it sends, and move remote-tracking refs.

package lorestore

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/deloreis/deloreis/lorestore/fsys"
	"github.com/deloreis/deloreis/lorestore/odb"
	"github.com/deloreis/deloreis/lorestore/refs"
	"github.com/go-git/go-git/v5/plumbing"
)

// FetchOptions say what a fetch asks for.
type FetchOptions struct {
	Branches []string // default: every branch the remote has
	Progress Progress
}

// FetchResult tells what a fetch brought.
type FetchResult struct {
	Updates []RefUpdate // remote branches, with the tracking ref's old and new commit
	Head    string      // the branch the remote's HEAD names, when it says
}

// Fetch brings the remote's branches and the objects they reach. For a named
// remote, refs/remotes/<name>/<branch> follow the remote's branches; for a
// bare URL only FETCH_HEAD records what came.
func (s *Store) Fetch(ctx context.Context, remote string, o FetchOptions) (FetchResult, error) {
	if s.ReadOnly() {
		return FetchResult{}, ErrReadOnly
	}
	target, err := s.resolveRemote(remote)
	if err != nil {
		return FetchResult{}, err
	}
	return s.fetch(ctx, target, o)
}

func (s *Store) fetch(ctx context.Context, target remoteTarget, o FetchOptions) (FetchResult, error) {
	sess, err := dial(ctx, target.url, UploadPack)
	if err != nil {
		return FetchResult{}, err
	}
	defer sess.Close()
	adv, err := sess.Advertised(ctx)
	if errors.Is(err, ErrEmptyRemote) {
		return FetchResult{}, nil
	}
	if err != nil {
		return FetchResult{}, fmt.Errorf("lorestore: fetch from %s: %w", target.url, err)
	}
	heads, err := pickHeads(adv, o.Branches)
	if err != nil {
		return FetchResult{}, err
	}
	res := FetchResult{Head: adv.HeadBranch}
	// A plain fetch publishes what it received at once: its tracking refs
	// are the quarantine (DL-0030).
	q, err := s.fetchObjects(ctx, sess, heads, o.Progress)
	if err == nil && q != nil {
		err = q.Publish()
	}
	if err != nil {
		return FetchResult{}, fmt.Errorf("lorestore: fetch from %s: %w", target.url, err)
	}
	for _, name := range sortedKeys(heads) {
		branch := strings.TrimPrefix(name, "refs/heads/")
		u := RefUpdate{Ref: name, New: heads[name]}
		if tr := target.tracking(branch); tr != "" {
			u.Ref = tr
			old, err := s.refs.Read(tr)
			if err != nil && !errors.Is(err, refs.ErrNotFound) {
				return FetchResult{}, err
			}
			u.Old = Hash(old)
			if err := s.forceRef(tr, u.New); err != nil {
				return FetchResult{}, err
			}
		}
		res.Updates = append(res.Updates, u)
	}
	return res, s.writeFetchHead(target.url, heads)
}

// pickHeads selects the advertised branches to fetch.
func pickHeads(adv *Advertisement, branches []string) (map[string]Hash, error) {
	heads := map[string]Hash{}
	for name, h := range adv.Refs {
		// A remote branch we would not name here (DL-0437) is not brought.
		if b, ok := strings.CutPrefix(name, "refs/heads/"); ok {
			if _, err := refs.BranchRef(b); err == nil {
				heads[name] = h
			}
		}
	}
	if len(branches) == 0 {
		return heads, nil
	}
	picked := map[string]Hash{}
	for _, b := range branches {
		name, err := refs.BranchRef(b)
		if err != nil {
			return nil, err
		}
		h, ok := heads[name]
		if !ok {
			return nil, fmt.Errorf("%w: the remote has no branch %s", ErrBranchNotFound, b)
		}
		picked[name] = h
	}
	return picked, nil
}

// fetchObjects asks for the heads we lack, telling the remote every commit
// our refs name, and receives the pack it answers with into quarantine:
// the caller publishes or discards it. It returns nil when nothing was
// asked for.
func (s *Store) fetchObjects(ctx context.Context, sess RemoteSession, heads map[string]Hash, p Progress) (*odb.Quarantine, error) {
	var wants, haves []Hash
	seen := map[Hash]bool{}
	for _, h := range heads {
		if seen[h] {
			continue
		}
		seen[h] = true
		if ok, _ := s.hasCommit(h); !ok {
			wants = append(wants, h)
		}
	}
	if len(wants) == 0 {
		return nil, nil
	}
	local, err := s.refs.List("refs/")
	if err != nil {
		return nil, err
	}
	for _, r := range local {
		if ok, _ := s.hasCommit(Hash(r.Hash)); ok {
			haves = append(haves, Hash(r.Hash))
		}
	}
	pack, err := sess.FetchPack(ctx, wants, haves, p == nil)
	if err != nil || pack == nil {
		return nil, err
	}
	defer pack.Close()
	return s.db.Receive(pack, func(n int) { p.report("receiving objects", n, 0) })
}

func (s *Store) writeFetchHead(url string, heads map[string]Hash) error {
	var b strings.Builder
	for _, name := range sortedKeys(heads) {
		fmt.Fprintf(&b, "%s\t\tbranch '%s' of %s\n", heads[name], strings.TrimPrefix(name, "refs/heads/"), url)
	}
	// Not flushed: git does not flush it either, and nothing depends on it.
	fs := fsys.Or(s.opts.FS)
	f, err := fs.OpenFile(filepath.Join(s.gitDir, "FETCH_HEAD"), os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	_, err = fs.WriteAt(f, []byte(b.String()), 0)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

func sortedKeys(m map[string]Hash) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// CloneOptions say how a clone is made.
type CloneOptions struct {
	Progress Progress
	Store    Options
}

// Clone makes a new bare lorestore at dir from a remote: every branch the
// remote has is fetched and tracked as origin/<branch>, and the branch the
// remote's HEAD names becomes the local default. A remote that holds no
// lore is refused, and dir is removed again on any failure.
func Clone(ctx context.Context, url, dir string, o CloneOptions) (s *Store, err error) {
	if entries, err := os.ReadDir(dir); err == nil && len(entries) > 0 {
		return nil, fmt.Errorf("%w: %s is not empty", ErrExists, dir)
	}
	if err := initBare(dir, o.Store); err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			if s != nil {
				s.Close()
				s = nil
			}
			os.RemoveAll(dir)
		}
	}()
	if s, err = Open(dir, o.Store); err != nil {
		return nil, err
	}
	if err = s.AddRemote("origin", url); err != nil {
		return s, err
	}
	res, err := s.fetch(ctx, remoteTarget{name: "origin", url: url}, FetchOptions{Progress: o.Progress})
	if err != nil {
		return s, err
	}
	head := res.Head
	if head == "" {
		head = DefaultBranch
	}
	var tip Hash
	for _, u := range res.Updates {
		if u.Ref == "refs/remotes/origin/"+head {
			tip = u.New
		}
	}
	if tip.IsZero() {
		return s, fmt.Errorf("%w: %s has no branch %s to clone", ErrNotLorestore, url, head)
	}
	// The tracking refs are quarantine; the local branch is not. Every
	// commit it will reach is checked before it exists.
	if err = s.verifyNew(tip, nil); err != nil {
		return s, err
	}
	if _, err = s.SnapshotAt(tip); err != nil {
		return s, err
	}
	ref, err := refs.BranchRef(head)
	if err != nil {
		return s, err
	}
	if err = s.refs.Update(ref, plumbing.Hash(tip), plumbing.Hash(ZeroHash)); err != nil {
		return s, err
	}
	return s, s.refs.SetHead(ref)
}
