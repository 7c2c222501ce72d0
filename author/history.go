// The history as the Go surfaces read it: a walk of the commits with every
// filter the command line has, one commit and the changes it made streamed
// as the diff finds them, the objects an id or id prefix names, and the
// world graph of a scope. The dli.log, dli.show, dli.object and dli.graph
// ops of store_reads.go are built on these, so that each read has one
// implementation. These variants name a revision as the store does ("" is
// its HEAD) and return the store's own errors, which the command line
// prints as they are; the ops resolve their rev params first and answer
// with their wire errors.

package author

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/deloreis/deloreis/fault"
	"github.com/deloreis/deloreis/lorestore"
	"github.com/deloreis/deloreis/objects"
)

// LogEntry is one commit of the history as the store holds it: its id,
// parents, author and committer, and its message with its trailers.
type LogEntry = lorestore.LogEntry

// DKEChange is one file of the dke/ namespace a commit added, replaced or
// removed: a module (Module set) or a claim (Kind and ID set).
type DKEChange = lorestore.DKEChange

// RevisionError is the store's error for a revision that names no commit
// (errors.As); it wraps ErrNotFound.
type RevisionError = lorestore.RevisionError

// ErrNotFound is what the store's reads wrap when a commit or an object is
// not there (errors.Is).
var ErrNotFound = lorestore.ErrNotFound

// LogQuery says which commits CommitLog walks. Zero values filter nothing.
type LogQuery struct {
	Rev    string     // the revision to start at, as the store names it ("" is its HEAD), or a range "A..B" or "A...B" as git log reads it
	Scope  string     // only commits that change this scope
	Op     string     // only commits whose Lore-Op trailer is this
	Object objects.ID // only the commit that added this object
	Limit  int        // at most this many commits (0: all)
	// KnownScope refuses a Scope that no commit of the history holds,
	// when no commit passes the filters, instead of answering none.
	KnownScope bool
}

// CommitLog walks the history from q.Rev, newest commit first (by committer
// time, as git log does), and returns the commits that pass the filters.
// dli.log is CommitLog from the revision its params resolve to.
func (s *Service) CommitLog(q LogQuery) ([]LogEntry, error) {
	st, err := s.needStore()
	if err != nil {
		return nil, err
	}
	es, err := st.Log(lorestore.LogOptions{From: q.Rev, Scope: q.Scope, Op: q.Op, Object: q.Object, Limit: q.Limit})
	if err != nil {
		return nil, err
	}
	if len(es) == 0 && q.Scope != "" && q.KnownScope {
		if err := historyHolds(st, q.Rev, q.Scope); err != nil {
			return nil, err
		}
	}
	return es, nil
}

// historyHolds refuses a scope that no commit from rev ever held. It reads
// a snapshot a commit, so it runs only when a scope filter found nothing.
func historyHolds(st *lorestore.Store, rev, scope string) error {
	es, err := st.Log(lorestore.LogOptions{From: rev})
	if err != nil {
		return err
	}
	for _, e := range es {
		sn, err := st.SnapshotAt(e.Commit)
		if err != nil {
			return err
		}
		scopes, err := sn.Scopes()
		if err != nil {
			return err
		}
		if slices.Contains(scopes, scope) {
			return nil
		}
	}
	return fault.Errorf(fault.Refused, CodeUnknownScope, "unknown scope %s: no commit in this history holds it", scope).With("scope", scope)
}

// HistoryGraph lays out commits (newest first, as CommitLog returns them)
// as the lines of a text graph in the manner of git log --graph: label
// gives the text lines of a commit, the first beside its '*'.
func HistoryGraph(entries []LogEntry, label func(LogEntry) []string) []string {
	return lorestore.RenderGraph(entries, label)
}

// ShownCommit is one commit as show reads it: its history entry, the
// object changes it made (ShowChanges) and the DKE files (DKEChanges).
type ShownCommit struct {
	Entry LogEntry
	store *lorestore.Store
}

// ShowCommit reads the commit rev names, as the store names it (a
// *RevisionError when it names none). dli.show is ShowCommit at the
// revision its params resolve to, its changes collected.
func (s *Service) ShowCommit(rev string) (*ShownCommit, error) {
	st, err := s.needStore()
	if err != nil {
		return nil, err
	}
	h, err := st.Resolve(rev)
	if err != nil {
		return nil, err
	}
	return shownAt(st, h)
}

func shownAt(st *lorestore.Store, h lorestore.Hash) (*ShownCommit, error) {
	es, err := st.Log(lorestore.LogOptions{From: h.String(), Limit: 1})
	if err != nil {
		return nil, err
	}
	return &ShownCommit{Entry: es[0], store: st}, nil
}

// DKEChanges lists what the commit changed under dke/ against its first
// parent, in tree order.
func (c *ShownCommit) DKEChanges() ([]DKEChange, error) {
	return c.store.DKEChanges(c.Entry.Commit)
}

// ObjectChange is one object a commit added or removed.
type ObjectChange struct {
	Scope   string
	Kind    string // the object's section: claims, decisions, attacks, standing
	ID      objects.ID
	Removed bool
}

func objectChange(c lorestore.Change) ObjectChange {
	return ObjectChange{Scope: c.Scope, Kind: string(c.Kind), ID: c.ID, Removed: c.Removed}
}

// ShowChanges streams the object changes of a shown commit against its
// first parent, in tree order, as the diff finds them: nothing holds the
// list, so a commit of millions of objects is shown in little memory.
// With load set, prep is given each change's object (as the commit holds
// it, or its first parent for a removal), else nil; prep runs on several
// goroutines at once, emit on the caller's alone, one change at a time,
// in order. The first error stops everything and is returned.
func ShowChanges[T any](c *ShownCommit, load bool, prep func(ObjectChange, objects.Object) (T, error), emit func(ObjectChange, T) error) error {
	e := c.Entry
	return lorestore.ShowChanges(c.store, e.Commit, load, func(ch lorestore.Change, o objects.Object) (T, error) {
		if ch.Removed && len(e.Parents) == 0 {
			var zero T
			return zero, fmt.Errorf("commit %s removes %s but has no parent", e.Commit.String()[:12], ch.ID)
		}
		return prep(objectChange(ch), o)
	}, func(ch lorestore.Change, t T) error {
		return emit(objectChange(ch), t)
	})
}

// ObjectHit is one stored object an id or id prefix names.
type ObjectHit struct {
	Scope string
	ID    objects.ID
}

// ObjectHits are the stored objects an id, or its leading hex digits,
// names at one commit.
type ObjectHits struct {
	Commit string // the full commit id
	// Hits are in scope order, an id once for each scope that holds it;
	// a full id is looked up directly and found in the first scope only.
	Hits []ObjectHit
	sn   *lorestore.Snapshot
	got  objects.Object // a full id's object, read already
}

// FindObjects lists the stored objects whose ids begin with prefix (4 to
// 64 hex digits, any case) at rev, as the store names it ("" is its HEAD).
// dli.object is FindObjects at the revision its params resolve to, the
// one object read.
func (s *Service) FindObjects(rev, prefix string) (ObjectHits, error) {
	st, err := s.needStore()
	if err != nil {
		return ObjectHits{}, err
	}
	h, err := st.Resolve(rev)
	if err != nil {
		return ObjectHits{}, err
	}
	return objectHits(st, h, prefix)
}

func objectHits(st *lorestore.Store, h lorestore.Hash, prefix string) (ObjectHits, error) {
	sn, err := st.SnapshotAt(h)
	if err != nil {
		return ObjectHits{}, err
	}
	scopes, err := sn.Scopes()
	if err != nil {
		return ObjectHits{}, err
	}
	res := ObjectHits{Commit: h.String(), sn: sn}
	prefix = strings.ToLower(prefix)
	if id, err := objects.ParseID(prefix); err == nil {
		// A whole id: read it where it is filed, not list its neighbours.
		for _, scope := range scopes {
			o, err := sn.Get(scope, id)
			if errors.Is(err, lorestore.ErrNotFound) {
				continue
			}
			if err != nil {
				return ObjectHits{}, err
			}
			res.Hits, res.got = []ObjectHit{{scope, id}}, o
			break
		}
		return res, nil
	}
	for _, scope := range scopes {
		ids, err := sn.Expand(scope, prefix)
		if err != nil {
			return ObjectHits{}, err
		}
		for _, id := range ids {
			res.Hits = append(res.Hits, ObjectHit{scope, id})
		}
	}
	return res, nil
}

// Read reads the i-th hit as stored.
func (h ObjectHits) Read(i int) (ObjectResult, error) {
	hit := h.Hits[i]
	o := h.got
	if o == nil || i != 0 {
		var err error
		if o, err = h.sn.Get(hit.Scope, hit.ID); err != nil {
			return ObjectResult{}, err
		}
	}
	so, err := stored(hit.Scope, hit.ID, o)
	return ObjectResult{Commit: h.Commit, ObjectID: so.ID, Type: so.Type, Scope: so.Scope, Path: so.Path, Object: so.Object, Rendered: so.Rendered}, err
}

// ScopeChoiceError says that a commit holds other than one scope where a
// world is drawn and no scope was named.
type ScopeChoiceError struct {
	Rev    string
	Scopes []string
}

func (e *ScopeChoiceError) Error() string {
	return fmt.Sprintf("%s holds %d scopes (%s): name one", e.Rev, len(e.Scopes), strings.Join(e.Scopes, ", "))
}

// GraphAt draws the world of a scope at rev, as the store names it ("" is
// its HEAD): the scope must be one the commit holds, and may be left out
// when it holds only one (else a *ScopeChoiceError). dli.graph draws
// the same graph at the revision its params resolve to; GraphSelect
// draws a part of it.
func (s *Service) GraphAt(rev, scope string) (GraphResult, error) {
	return s.GraphSelect(context.Background(), GraphOptions{Rev: rev, Scope: scope})
}
