// The claims.Store of one DKE store over the lorestore: one file per claim
// under dke/<id>/claims/<Kind>/, the clock in the header, one commit per
// change set, and an in-memory index advanced by the commits made here.
// A run writes through an overlay (overlay.go) and commits here once.

package service

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/deloreis/deloreis/dke/claims"
	"github.com/deloreis/deloreis/fault"
	"github.com/deloreis/deloreis/jcs"
	"github.com/deloreis/deloreis/lorestore"
	"github.com/deloreis/deloreis/objects"
)

// claimFile is a claim as stored: the lorestore wants a "kind" member
// equal to the kind folder (DL-0201), so the cell is spread flat.
type claimFile struct {
	Kind    string       `json:"kind"`
	Subject string       `json:"subject"`
	Attr    string       `json:"attribute"`
	Value   claims.Value `json:"value"`
	Source  string       `json:"source"`
	At      int64        `json:"at"`
}

func toFile(c claims.Claim) claimFile {
	return claimFile{Kind: c.Cell.Kind, Subject: c.Cell.Subject, Attr: c.Cell.Attr, Value: c.Value, Source: c.Source, At: c.At}
}

func (f claimFile) claim() claims.Claim {
	return claims.Claim{Cell: claims.Cell{Kind: f.Kind, Subject: f.Subject, Attr: f.Attr}, Value: f.Value, Source: f.Source, At: f.At}
}

// claimID is the file id the lorestore gives a claim: the BLAKE3 of its
// canonical bytes.
func claimID(c claims.Claim) (objects.ID, []byte, error) {
	raw, err := json.Marshal(toFile(c))
	if err != nil {
		return objects.ID{}, nil, err
	}
	canon, err := jcs.Transform(raw)
	if err != nil {
		return objects.ID{}, nil, err
	}
	return objects.ID(jcs.Sum(canon)), canon, nil
}

// header is dke/<id>/store.json (DL-0215).
type header struct {
	Store   string `json:"store"`
	Created string `json:"created"`
	Clock   int64  `json:"clock"`
}

// claimStore binds claims.Store to one DKE store of a lorestore. The
// index is a claims.Mem: each commit made here is replayed into it, so a
// snapshot costs nothing and a write costs what it touches; a head moved
// by anyone else makes the next snapshot re-read the store.
type claimStore struct {
	svc *Service
	id  string

	mu      sync.Mutex
	mem     *claims.Mem
	memVer  string         // the Mem version matching head
	head    lorestore.Hash // the lorestore commit the index describes
	created string
	// writes counts the commits replayed into mem since it was loaded.
	writes int
	// mods is the store's parsed modules at commit modsAt, kept while
	// commits touch no module of the store.
	mods   *modset
	modsAt lorestore.Hash
}

// compactAfter bounds the history the index keeps: after that many
// writes the next snapshot loads the store afresh, dropping the versions
// no snapshot in use needs (a run holding one keeps its own).
const compactAfter = 20_000

// adopt takes head as the index's commit when it is one commit on from
// cs.head and changed no claim of this store (another store's write, a
// module file); anything else needs a reload. The caller holds mu.
func (cs *claimStore) adopt(head lorestore.Hash) bool {
	es, err := cs.svc.cfg.Store.Log(lorestore.LogOptions{From: head.String(), Limit: 1})
	if err != nil || len(es) != 1 || len(es[0].Parents) != 1 || es[0].Parents[0] != cs.head {
		return false
	}
	changes, err := cs.svc.cfg.Store.DKEChanges(head)
	if err != nil {
		return false
	}
	modsKept := cs.modsAt == cs.head
	for _, c := range changes {
		if c.Store == cs.id && c.Module == "" {
			return false
		}
		if c.Store == cs.id {
			modsKept = false
		}
	}
	if modsKept {
		cs.modsAt = head
	}
	cs.head = head
	return true
}

// snap is a Snapshot of the index at one lorestore commit.
type snap struct {
	claims.Snapshot
	version string
}

func (s snap) Version() string { return s.version }

// Snapshot implements claims.Store.
func (cs *claimStore) Snapshot() (claims.Snapshot, error) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	head, err := cs.svc.cfg.Store.Head(cs.svc.cfg.Branch)
	if err != nil {
		return nil, err
	}
	if cs.mem == nil || head != cs.head && !cs.adopt(head) || cs.writes > compactAfter {
		if err := cs.load(head); err != nil {
			return nil, err
		}
	}
	ms, err := cs.mem.Snapshot()
	if err != nil {
		return nil, err
	}
	return snap{Snapshot: ms, version: cs.head.String()}, nil
}

// load reads every claim of the store at commit head into a fresh index.
func (cs *claimStore) load(head lorestore.Hash) error {
	sn, err := cs.svc.cfg.Store.SnapshotAt(head)
	if err != nil {
		return err
	}
	h, err := readHeader(sn, cs.id)
	if err != nil {
		return err
	}
	all, err := sn.DKEClaims(cs.id, "")
	if err != nil {
		return err
	}
	mem := claims.NewMem()
	s0, _ := mem.Snapshot()
	set := claims.ChangeSet{Base: s0.Version(), Clock: h.Clock}
	if set.Adds, err = decodeClaims(cs.id, all); err != nil {
		return err
	}
	ver, err := mem.Commit(set)
	if err != nil {
		return err
	}
	cs.mem, cs.memVer, cs.head, cs.created, cs.writes = mem, ver, head, h.Created, 0
	return nil
}

// decodeClaims decodes claim files on every core: at 100,000 claims the
// decoding is most of a load.
func decodeClaims(store string, all []lorestore.DKEClaim) ([]claims.Claim, error) {
	out := make([]claims.Claim, len(all))
	workers := min(runtime.GOMAXPROCS(0), len(all)/1024+1)
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < len(all); i += workers {
				var f claimFile
				if err := json.Unmarshal(all[i].Data, &f); err != nil {
					errs[w] = fmt.Errorf("dke store %s: claim %s: %w", store, all[i].ID, err)
					return
				}
				out[i] = f.claim()
			}
		}()
	}
	wg.Wait()
	return out, errors.Join(errs...)
}

// readHeader reads a store's header; a store with none (not created)
// reads as a new one.
func readHeader(sn *lorestore.Snapshot, id string) (header, error) {
	data, err := sn.DKEHeader(id)
	if errors.Is(err, lorestore.ErrNotFound) {
		return header{Store: id}, nil
	}
	if err != nil {
		return header{}, err
	}
	var h header
	if err := json.Unmarshal(data, &h); err != nil {
		return header{}, fmt.Errorf("dke store %s: header: %w", id, err)
	}
	return h, nil
}

// Commit implements claims.Store: one lorestore commit, compare-and-swap
// on the head the change set was made against.
func (cs *claimStore) Commit(set claims.ChangeSet) (string, error) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if cs.mem == nil || set.Base != cs.head.String() {
		return "", claims.ErrConflict
	}
	msg := runMessage("run", "", cs.id, len(set.Adds), len(set.Removes))
	return cs.commitLocked(set, nil, msg)
}

// commitLocked writes the change set and whatever extra adds to the batch
// as one commit on cs.head, and advances the index. The caller holds mu.
func (cs *claimStore) commitLocked(set claims.ChangeSet, extra func(b *lorestore.Batch) error, msg lorestore.Message) (string, error) {
	b := lorestore.NewBatch()
	for _, c := range set.Removes {
		id, _, err := claimID(c)
		if err != nil {
			return "", err
		}
		if err := b.RemoveDKEClaim(cs.id, c.Cell.Kind, id); err != nil {
			return "", err
		}
	}
	for _, c := range set.Adds {
		_, data, err := claimID(c)
		if err != nil {
			return "", err
		}
		if _, err := b.PutDKEClaim(cs.id, c.Cell.Kind, data); err != nil {
			return "", err
		}
	}
	ms, _ := cs.mem.Snapshot()
	clock := max(set.Clock, ms.Clock())
	if cs.created == "" {
		cs.created = cs.svc.now().Format(time.RFC3339)
	}
	hdr, _ := json.Marshal(header{Store: cs.id, Created: cs.created, Clock: clock})
	if err := b.PutDKEHeader(cs.id, hdr); err != nil {
		return "", err
	}
	if extra != nil {
		if err := extra(b); err != nil {
			return "", err
		}
	}
	res, err := cs.svc.cfg.Store.Commit(b, msg, lorestore.CommitOptions{Branch: cs.svc.cfg.Branch, Parent: cs.head, Refuse: true})
	if err != nil {
		if errors.Is(err, lorestore.ErrStale) {
			return "", claims.ErrConflict
		}
		return "", err
	}
	set.Base = cs.memVer
	set.Clock = clock
	ver, err := cs.mem.Commit(set)
	if err != nil {
		return "", err
	}
	if extra == nil && cs.modsAt == cs.head {
		cs.modsAt = res.Commit // a claims-only commit leaves the modules
	}
	cs.memVer, cs.head = ver, res.Commit
	cs.writes++
	return cs.head.String(), nil
}

// runMessage is the commit message of a run's (or a module body's) write.
func runMessage(op, subject, store string, adds, removes int) lorestore.Message {
	if op == "" {
		op = "run"
	}
	summary := "dke " + op
	if subject != "" {
		summary += " " + subject
	}
	summary += fmt.Sprintf(": %s written, %d removed", plural(adds, "claim", "claims"), removes)
	return dkeMessage(summary, op, store)
}

// dkeMessage builds a message with the DKE trailers.
func dkeMessage(summary, op, store string) lorestore.Message {
	m := lorestore.NewMessage(summary, "dke-"+op, "")
	m.Trailers = append(m.Trailers, lorestore.Trailer{Key: "Lore-DKE-Store", Value: store})
	return m
}

func plural(n int, one, many string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, one)
	}
	return fmt.Sprintf("%d %s", n, many)
}

// runRetries bounds how often a run's final commit is re-applied over a
// head another writer moved.
const runRetries = 32

// landed is where a run's commit put the store: at commit head, holding
// exactly the run's change set over the commit the run read (set.Base)
// when exact. A run that changed nothing lands exactly where it read.
type landed struct {
	head  lorestore.Hash
	exact bool
}

// commitRun writes a run's net change set, with extra's edits, as one
// commit labelled msg. When another writer moved the branch, the change
// set is re-applied over the new head: an add already there and a remove
// of a claim already gone drop out, so neither side loses a write. next,
// when not nil, is the store's modules after the edit, read at modsAt.
func (s *Service) commitRun(id string, set claims.ChangeSet, extra func(*lorestore.Batch) error, msg lorestore.Message, next *modset, modsAt lorestore.Hash) (landed, error) {
	if set.Empty() && extra == nil {
		return landed{head: lorestore.NewHash(set.Base), exact: set.Base != ""}, nil
	}
	cs := s.store(id)
	for attempt := 0; attempt < runRetries; attempt++ {
		snap, err := cs.Snapshot()
		if err != nil {
			return landed{}, err
		}
		cur := rebase(set, snap)
		if cur.Empty() && extra == nil {
			return landed{}, nil // another writer made the same change
		}
		exact := set.Base != "" && snap.Version() == set.Base && len(cur.Adds) == len(set.Adds) && len(cur.Removes) == len(set.Removes)
		if s.beforeRunCommit != nil {
			s.beforeRunCommit(attempt)
		}
		cs.mu.Lock()
		parent := cs.head
		cur.Base = parent.String()
		exact = exact && parent.String() == set.Base
		_, err = cs.commitLocked(cur, extra, msg)
		if err == nil && next != nil && parent == modsAt {
			cs.mods, cs.modsAt = next, cs.head
		}
		head := cs.head
		cs.mu.Unlock()
		if err == nil {
			return landed{head: head, exact: exact}, nil
		}
		if !errors.Is(err, claims.ErrConflict) {
			return landed{}, err
		}
		runBackoff(attempt)
	}
	return landed{}, fault.Errorf(fault.Conflict, CodeConflict, "the store kept changing while this call committed; retry it")
}

// runBackoff waits a random while, growing with the attempt, before a
// lost commit is tried again: two writers that keep colliding in step
// would otherwise starve one another (seen under the race detector).
func runBackoff(attempt int) {
	limit := time.Duration(200<<min(attempt, 6)) * time.Microsecond
	time.Sleep(time.Duration(rand.Int64N(int64(limit))))
}

// rebase is set over snap: the adds snap lacks and the removes it holds.
func rebase(set claims.ChangeSet, snap claims.Snapshot) claims.ChangeSet {
	out := claims.ChangeSet{Clock: max(set.Clock, snap.Clock())}
	has := func(c claims.Claim) bool {
		return slices.ContainsFunc(snap.Claims(c.Cell), func(x claims.Claim) bool { return sameClaim(x, c) })
	}
	for _, c := range set.Adds {
		if !has(c) {
			out.Adds = append(out.Adds, c)
		}
	}
	for _, c := range set.Removes {
		if has(c) {
			out.Removes = append(out.Removes, c)
		}
	}
	return out
}
