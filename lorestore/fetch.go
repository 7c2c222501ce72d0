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

	"github.com/deloreis/deloreis/lorestore/refs"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp/capability"
	"github.com/go-git/go-git/v5/plumbing/transport"
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
	tr, ep, err := newTransport(target.url)
	if err != nil {
		return FetchResult{}, err
	}
	sess, err := tr.NewUploadPackSession(ep, nil)
	if err != nil {
		return FetchResult{}, err
	}
	defer sess.Close()
	adv, err := sess.AdvertisedReferencesContext(ctx)
	if errors.Is(err, transport.ErrEmptyRemoteRepository) {
		return FetchResult{}, nil
	}
	if err != nil {
		return FetchResult{}, fmt.Errorf("lorestore: fetch from %s: %w", target.url, err)
	}
	heads, err := pickHeads(adv, o.Branches)
	if err != nil {
		return FetchResult{}, err
	}
	res := FetchResult{Head: advertisedHead(adv)}
	if err := s.fetchObjects(ctx, sess, adv, heads, o.Progress); err != nil {
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
			u.Old = old
			if err := s.forceRef(tr, u.New); err != nil {
				return FetchResult{}, err
			}
		}
		res.Updates = append(res.Updates, u)
	}
	return res, s.writeFetchHead(target.url, heads)
}

// pickHeads selects the advertised branches to fetch.
func pickHeads(adv *packp.AdvRefs, branches []string) (map[string]plumbing.Hash, error) {
	heads := map[string]plumbing.Hash{}
	for name, h := range adv.References {
		if strings.HasPrefix(name, "refs/heads/") && refs.CheckName(name) == nil {
			heads[name] = h
		}
	}
	if len(branches) == 0 {
		return heads, nil
	}
	picked := map[string]plumbing.Hash{}
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

// advertisedHead reads the symref capability: which branch HEAD names.
func advertisedHead(adv *packp.AdvRefs) string {
	for _, v := range adv.Capabilities.Get(capability.SymRef) {
		if from, to, ok := strings.Cut(v, ":"); ok && from == "HEAD" {
			return strings.TrimPrefix(to, "refs/heads/")
		}
	}
	return ""
}

// fetchObjects asks for the heads we lack, telling the remote every commit
// our refs name, and stores the pack it answers with.
func (s *Store) fetchObjects(ctx context.Context, sess transport.UploadPackSession, adv *packp.AdvRefs, heads map[string]plumbing.Hash, p Progress) error {
	req := packp.NewUploadPackRequestFromCapabilities(adv.Capabilities)
	// We store the pack as it comes; a thin pack would need bases we
	// would have to append, so do not ask for one.
	req.Capabilities.Delete(capability.ThinPack)
	if p == nil && adv.Capabilities.Supports(capability.NoProgress) {
		req.Capabilities.Set(capability.NoProgress)
	}
	seen := map[plumbing.Hash]bool{}
	for _, h := range heads {
		if seen[h] {
			continue
		}
		seen[h] = true
		if ok, _ := s.hasCommit(h); !ok {
			req.Wants = append(req.Wants, h)
		}
	}
	if len(req.Wants) == 0 {
		return nil
	}
	local, err := s.refs.List("refs/")
	if err != nil {
		return err
	}
	for _, r := range local {
		if ok, _ := s.hasCommit(r.Hash); ok {
			req.Haves = append(req.Haves, r.Hash)
		}
	}
	resp, err := sess.UploadPack(ctx, req)
	if errors.Is(err, transport.ErrEmptyUploadPackRequest) {
		return nil
	}
	if err != nil {
		return err
	}
	defer resp.Close()
	r := wantSideband(req.Capabilities, resp, nil)
	return s.db.IngestPack(r, func(n int) { p.report("receiving objects", n, 0) })
}

func (s *Store) writeFetchHead(url string, heads map[string]plumbing.Hash) error {
	var b strings.Builder
	for _, name := range sortedKeys(heads) {
		fmt.Fprintf(&b, "%s\t\tbranch '%s' of %s\n", heads[name], strings.TrimPrefix(name, "refs/heads/"), url)
	}
	return os.WriteFile(filepath.Join(s.gitDir, "FETCH_HEAD"), []byte(b.String()), 0o644)
}

func sortedKeys(m map[string]plumbing.Hash) []string {
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
	if err := initBare(dir); err != nil {
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
	var tip plumbing.Hash
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
	if err = s.refs.Update(ref, tip, plumbing.ZeroHash); err != nil {
		return s, err
	}
	return s, s.refs.SetHead(ref)
}
