// Verifying what a lore branch is about to receive: every commit a merge,
// fast-forward, branch or clone would make reachable, and every tree and
// blob those commits add, is decoded, validated and checked to sit where
// its id says, before any ref moves. Only what is new is read: commits
// reachable from the source but not from the commits already trusted, and
// in each such commit only the entries that differ from its first parent.

package lorestore

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/deloreis/deloreis/objects"
)

// ErrInvalidContent matches every *ContentError.
var ErrInvalidContent = errors.New("lorestore: invalid content")

// ContentError reports content that would reach a lore branch but breaks
// the store's layout or holds an object that does not decode, validate or
// hash to the id it is filed under. The operation that met it was refused
// and no ref moved.
type ContentError struct {
	Commit Hash   // the commit that brings the content
	Path   string // the path in that commit's tree ("" for the commit itself)
	Object Hash   // the git object at Path (or the commit)
	Reason string
}

func (e *ContentError) Error() string {
	where := "commit " + short(e.Commit)
	if e.Path != "" {
		where += " at " + e.Path
	}
	if !e.Object.IsZero() && e.Object != e.Commit {
		where += " (git object " + short(e.Object) + ")"
	}
	return "lorestore: refused: " + where + ": " + e.Reason
}

// Unwrap lets errors.Is(err, ErrInvalidContent) match.
func (e *ContentError) Unwrap() error { return ErrInvalidContent }

// verifier checks new history. Its counters tell tests how much it read.
type verifier struct {
	s       *Store
	collect bool    // record problems and go on (fsck) instead of stopping at the first
	found   []error // the problems recorded when collecting
	commit  Hash    // the commit being checked
	commits int     // commits checked
	blobs   int     // object files decoded
}

func newVerifier(s *Store) *verifier { return &verifier{s: s} }

// verifyNew refuses src unless everything it reaches that known does not
// is a well-formed lorestore history.
func (s *Store) verifyNew(src Hash, known []Hash) error {
	return newVerifier(s).verify(src, known)
}

// verify checks every commit reachable from src and not from known (the
// commits already trusted: a branch's head), each against its first
// parent.
func (v *verifier) verify(src Hash, known []Hash) error {
	// The walk push uses to find what a remote lacks finds what a branch
	// lacks: the commits src reaches and known does not.
	fresh, err := v.s.newCommits([]Hash{src}, known)
	var re *RevisionError
	if errors.As(err, &re) {
		return &ContentError{Commit: src, Object: src, Reason: "history is incomplete: " + re.Error()}
	}
	if err != nil {
		return err
	}
	for _, h := range fresh {
		if err := v.verifyCommit(h); err != nil && !v.record(err) {
			return err
		}
	}
	return nil
}

// record keeps a problem when collecting and says whether it did.
func (v *verifier) record(err error) bool {
	if !v.collect {
		return false
	}
	v.found = append(v.found, err)
	return true
}

func (v *verifier) fail(path string, obj Hash, format string, args ...any) error {
	reason := fmt.Sprintf(format, args...)
	for {
		// Causes from this package repeat its prefix; say it once.
		r, ok := strings.CutPrefix(reason, "lorestore: ")
		if !ok {
			break
		}
		reason = r
	}
	return &ContentError{Commit: v.commit, Path: path, Object: obj, Reason: reason}
}

// verifyCommit checks one commit's tree against its first parent's: the
// parent is trusted or checked on its own, so only what differs is read.
func (v *verifier) verifyCommit(h Hash) error {
	v.commit = h
	v.commits++
	c, err := v.s.readCommit(h)
	if err != nil {
		return v.fail("", h, "%v", err)
	}
	var parentTree Hash
	if len(c.parents) > 0 {
		pc, err := v.s.readCommit(c.parents[0])
		if err != nil {
			return v.fail("", c.parents[0], "parent: %v", err)
		}
		parentTree = pc.tree
	}
	if c.tree == parentTree {
		return nil
	}
	es, err := v.s.readTree(c.tree)
	if err != nil {
		return v.fail("", c.tree, "root tree: %v", err)
	}
	hdr, ok := findEntry(es, headerPath)
	if !ok || hdr.isTree() {
		return v.fail(headerPath, c.tree, "the commit has no store header; this is not a lorestore")
	}
	if !parentTree.IsZero() {
		if err := v.sameIdentity(parentTree, hdr); err != nil {
			return err
		}
	}
	return v.tree(parentTree, c.tree, nil)
}

// sameIdentity refuses a commit whose store header differs from its first
// parent's: a lorestore keeps the identity its root commit gave it, so a
// commit that rewrites lore.json (another store id, or none) is refused
// before any ref reaches it (DL-0436).
func (v *verifier) sameIdentity(parentTree Hash, hdr treeEntry) error {
	pes, err := v.s.readTree(parentTree)
	if err != nil {
		return v.fail("", parentTree, "parent root tree: %v", err)
	}
	old, ok := findEntry(pes, headerPath)
	if !ok || old.hash == hdr.hash {
		return nil
	}
	was, now := v.storeID(old.hash), v.storeID(hdr.hash)
	return v.fail(headerPath, hdr.hash, "the commit changes the store's identity (store id %s, its parent's %s); a lorestore keeps the identity of its root commit", now, was)
}

// storeID names the store id a header blob holds, for a message.
func (v *verifier) storeID(h Hash) string {
	data, err := v.s.readBlob(h)
	if err != nil {
		return "(unreadable)"
	}
	hd, err := parseHeader(data)
	switch {
	case err != nil:
		return "(not a header)"
	case hd.Store == "":
		return "(none)"
	}
	return strconv.Quote(hd.Store)
}

// tree checks the entries of newTree that oldTree does not hold as they
// are, descending only into subtrees that differ.
func (v *verifier) tree(oldTree, newTree Hash, path []string) error {
	var olds []treeEntry
	if !oldTree.IsZero() {
		var err error
		if olds, err = v.s.readTree(oldTree); err != nil {
			return v.fail(strings.Join(path, "/"), oldTree, "%v", err)
		}
	}
	news, err := v.s.readTree(newTree)
	if err != nil {
		return v.fail(strings.Join(path, "/"), newTree, "%v", err)
	}
	for _, e := range news {
		oe, had := findEntry(olds, e.name)
		if had && oe == e {
			continue
		}
		sub := append(path[:len(path):len(path)], e.name)
		if err := v.entry(sub, e); err != nil {
			if v.record(err) {
				continue // a bad entry is not descended into
			}
			return err
		}
		if e.isTree() {
			var base Hash
			if had && oe.isTree() {
				base = oe.hash
			}
			if err := v.tree(base, e.hash, sub); err != nil {
				return err
			}
		}
	}
	return nil
}

// entry checks that the layout has a place for e at path, and decodes the
// object or header a file there holds. The layout is DESIGN.md section 3:
//
//	lore.json
//	scopes/<scope>/claims/<ab>/<id>.json
//	scopes/<scope>/{decisions,attacks}/<id>.json
//	scopes/<scope>/standing/<claim-id>/<id>.json
//	dke/<store>/store.json
//	dke/<store>/modules/<name>.json
//	dke/<store>/claims/<Kind>/<ab>/<id>.json
//	project/documents/<scope>.json
//	project/dialects/<id>.json
func (v *verifier) entry(path []string, e treeEntry) error {
	p := strings.Join(path, "/")
	wantTree := func(yes bool) error {
		switch {
		case yes && !e.isTree():
			return v.fail(p, e.hash, "a file where the layout has a folder")
		case !yes && e.mode != modeBlob:
			return v.fail(p, e.hash, "not a regular file (mode %o) where the layout has an object file", e.mode)
		}
		return nil
	}
	if len(path) > 1 && path[0] == dkeDir {
		return v.dkeEntry(path, e, wantTree)
	}
	if len(path) > 1 && path[0] == projectDir {
		return v.projectEntry(path, e, wantTree)
	}
	switch len(path) {
	case 1:
		switch e.name {
		case headerPath:
			if err := wantTree(false); err != nil {
				return err
			}
			return v.header(p, e.hash)
		case scopesDir, dkeDir, projectDir:
			return wantTree(true)
		}
		return v.fail(p, e.hash, "the layout has no place for it (only %s, %s/, %s/ and %s/ are allowed)", headerPath, scopesDir, dkeDir, projectDir)
	case 2:
		if checkScope(e.name) != nil {
			return v.fail(p, e.hash, "%q is not a valid scope name", e.name)
		}
		return wantTree(true)
	case 3:
		if !knownKind(Kind(e.name)) {
			return v.fail(p, e.hash, "%q is not a section of a scope", e.name)
		}
		return wantTree(true)
	}
	kind := Kind(path[2])
	leaf := len(path) == 4
	if kind == Claims || kind == Standing {
		leaf = len(path) == 5
		if len(path) == 4 {
			if err := wantTree(true); err != nil {
				return err
			}
			if kind == Claims && (len(e.name) != 2 || !isHex(e.name) || strings.ToLower(e.name) != e.name) {
				return v.fail(p, e.hash, "%q is not a two-digit shard of claim ids", e.name)
			}
			if _, err := objects.ParseID(e.name); kind == Standing && err != nil {
				return v.fail(p, e.hash, "%q is not the id of the claim its revisions revise", e.name)
			}
			return nil
		}
	}
	if !leaf {
		return v.fail(p, e.hash, "the layout has no place this deep in %s", kind)
	}
	if err := wantTree(false); err != nil {
		return err
	}
	return v.object(path, e.hash)
}

func knownKind(k Kind) bool {
	for _, x := range Kinds {
		if x == k {
			return true
		}
	}
	return false
}

// header checks a lore.json blob.
func (v *verifier) header(p string, h Hash) error {
	data, err := v.s.readBlob(h)
	if err != nil {
		return v.fail(p, h, "%v", err)
	}
	if _, err := parseHeader(data); err != nil {
		return v.fail(p, h, "%v", err)
	}
	return nil
}

// object checks an object file: its name is an id, its bytes hash to that
// id, they decode to a valid object whose canonical form is those bytes,
// and it is filed in its section (and shard, or claim folder).
func (v *verifier) object(path []string, h Hash) error {
	p := strings.Join(path, "/")
	v.blobs++
	name := path[len(path)-1]
	id, ok := objectFileID(name)
	if !ok {
		return v.fail(p, h, "%q is not an object file name <id>.json", name)
	}
	kind := Kind(path[2])
	if kind == Claims && path[3] != id.String()[:2] {
		return v.fail(p, h, "object %s is filed in shard %s, not %s", id, path[3], id.String()[:2])
	}
	data, err := v.s.readBlob(h)
	if err != nil {
		return v.fail(p, h, "%v", err)
	}
	if objects.ID(sumID(data)) != id {
		return v.fail(p, h, "bytes do not hash to the file's id %s", id)
	}
	o, err := objects.Decode(data)
	if err != nil {
		return v.fail(p, h, "object %s does not decode: %s", id, oneLine(err.Error()))
	}
	if cid, err := o.ID(); err != nil || cid != id {
		return v.fail(p, h, "object %s is not in canonical form", id)
	}
	if k := kindOf(o.Type()); k != kind {
		return v.fail(p, h, "a %s object %s is filed under %s, not %s", o.Type(), id, kind, k)
	}
	if kind == Standing && standingClaim(o).String() != path[3] {
		return v.fail(p, h, "standing %s revises claim %s, not %s", id, standingClaim(o), path[3])
	}
	return nil
}

func oneLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " …"
	}
	return s
}

// dkeEntry is entry for a path under dke/: every folder name valid, a
// module file <name>.json holding a canonical JSON object whose "name" is
// name, a claim file <id>.json in its id's shard holding canonical JSON
// bytes that hash to id, an object whose "kind" is its kind folder.
func (v *verifier) dkeEntry(path []string, e treeEntry, wantTree func(bool) error) error {
	p := strings.Join(path, "/")
	switch {
	case len(path) == 2:
		if checkDKEStore(e.name) != nil {
			return v.fail(p, e.hash, "%q is not a valid DKE store id", e.name)
		}
		return wantTree(true)
	case len(path) == 3 && e.name == dkeHeaderFile:
		if err := wantTree(false); err != nil {
			return err
		}
		return v.envelopeBlob(p, e.hash, nil, "store", path[1])
	case len(path) == 3:
		if e.name != dkeModulesDir && e.name != dkeClaimsDir {
			return v.fail(p, e.hash, "%q is not a section of a DKE store (%s, %s or %s)", e.name, dkeHeaderFile, dkeModulesDir, dkeClaimsDir)
		}
		return wantTree(true)
	case path[2] == dkeModulesDir && len(path) == 4:
		if err := wantTree(false); err != nil {
			return err
		}
		name, ok := strings.CutSuffix(e.name, ".json")
		if !ok || checkModuleName(name) != nil {
			return v.fail(p, e.hash, "%q is not a module file <module name>.json", e.name)
		}
		return v.envelopeBlob(p, e.hash, nil, "name", name)
	case path[2] == dkeClaimsDir && len(path) == 4:
		if checkClaimKind(e.name) != nil {
			return v.fail(p, e.hash, "%q is not a valid claim kind", e.name)
		}
		return wantTree(true)
	case path[2] == dkeClaimsDir && len(path) == 5:
		if !isShard(e.name) {
			return v.fail(p, e.hash, "%q is not a two-digit shard of claim ids", e.name)
		}
		return wantTree(true)
	case path[2] == dkeClaimsDir && len(path) == 6:
		if err := wantTree(false); err != nil {
			return err
		}
		id, ok := objectFileID(e.name)
		if !ok {
			return v.fail(p, e.hash, "%q is not a claim file name <id>.json", e.name)
		}
		if path[4] != id.String()[:2] {
			return v.fail(p, e.hash, "claim %s is filed in shard %s, not %s", id, path[4], id.String()[:2])
		}
		return v.envelopeBlob(p, e.hash, &id, "kind", path[3])
	}
	return v.fail(p, e.hash, "the layout has no place this deep in %s", path[2])
}

// envelopeBlob checks the bytes of a DKE or project file: canonical
// JSON, an object whose member field is want, hashing to id when the file
// is named by one.
func (v *verifier) envelopeBlob(p string, h Hash, id *objects.ID, field, want string) error {
	v.blobs++
	data, err := v.s.readBlob(h)
	if err != nil {
		return v.fail(p, h, "%v", err)
	}
	if id != nil && objects.ID(sumID(data)) != *id {
		return v.fail(p, h, "bytes do not hash to the file's id %s", *id)
	}
	if !isCanonical(data) {
		return v.fail(p, h, "not canonical JSON (RFC 8785)")
	}
	if err := checkEnvelope(data, field, want); err != nil {
		return v.fail(p, h, "%v", err)
	}
	return nil
}
