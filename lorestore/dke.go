// The dke/ namespace: DKE stores' modules and claims, put into and removed
// from a batch beside the scopes' objects. The DKE runtime writes through
// these calls only; it never writes git objects itself.
//
//	dke/<store_id>/store.json                    the store's header, replaced on put
//	dke/<store_id>/modules/<name>.json           one per module, replaced on put
//	dke/<store_id>/claims/<Kind>/<ab>/<id>.json  a claim, named by its id

package lorestore

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/deloreis/deloreis/jcs"
	"github.com/deloreis/deloreis/objects"
)

const (
	dkeDir        = "dke"
	dkeModulesDir = "modules"
	dkeClaimsDir  = "claims"
	dkeHeaderFile = "store.json"
)

// DataError reports DKE or project content a batch or a branch will not
// take: bytes that are not one canonical JSON object, or whose
// name-bearing field does not match where the file is filed. The batch is
// unchanged.
type DataError struct {
	Path   string
	Reason string
}

func (e *DataError) Error() string {
	return fmt.Sprintf("lorestore: %s: %s", e.Path, e.Reason)
}

// modulePath and claimPath are where the files go, as folder names.
func modulePath(store string) []string { return []string{dkeDir, store, dkeModulesDir} }

func claimDir(store, kind string, id objects.ID) []string {
	return []string{dkeDir, store, dkeClaimsDir, kind, shardName(id[0])}
}

func moduleFile(name string) string { return name + ".json" }

// PutModule adds or replaces the module name of a DKE store. data is JSON
// (stored in its RFC 8785 canonical form): an object whose "name" member
// is name. Of two puts of one module in a batch, the later wins.
func (b *Batch) PutModule(store, name string, data []byte) error {
	if b.spent {
		return ErrBatchSpent
	}
	if err := checkDKEStore(store); err != nil {
		return err
	}
	if err := checkModuleName(name); err != nil {
		return err
	}
	path := strings.Join(modulePath(store), "/") + "/" + moduleFile(name)
	canon, err := canonicalEnvelope(path, data, "name", name)
	if err != nil {
		return err
	}
	b.putNamed(modulePath(store), moduleFile(name), canon)
	return nil
}

// putNamed puts a file named otherwise than by its id into the folder at
// dir, replacing what the parent or this batch had there.
func (b *Batch) putNamed(dir []string, file string, canon []byte) {
	d := b.walkDir(dir)
	blob, idx := b.stash(canon)
	if d.named == nil {
		d.named = map[string]namedIns{}
	}
	if _, again := d.named[file]; !again {
		b.n++
	}
	d.named[file] = namedIns{blob: blob, data: idx}
	if d.removes != nil {
		delete(d.removes, file)
	}
}

// PutDKEHeader adds or replaces the header of a DKE store: what the store
// says of itself (its creation, its logical clock). data is JSON (stored
// canonically): an object whose "store" member is the store id.
func (b *Batch) PutDKEHeader(store string, data []byte) error {
	if b.spent {
		return ErrBatchSpent
	}
	if err := checkDKEStore(store); err != nil {
		return err
	}
	canon, err := canonicalEnvelope(dkeDir+"/"+store+"/"+dkeHeaderFile, data, "store", store)
	if err != nil {
		return err
	}
	b.putNamed([]string{dkeDir, store}, dkeHeaderFile, canon)
	return nil
}

// PutDKEClaim adds a claim of kind to a DKE store and returns its id, the
// BLAKE3 of its canonical bytes, which is also its file name. data is JSON
// (stored canonically): an object whose "kind" member is kind. Putting
// the same claim twice adds it once.
func (b *Batch) PutDKEClaim(store, kind string, data []byte) (objects.ID, error) {
	if b.spent {
		return objects.ID{}, ErrBatchSpent
	}
	if err := checkDKEStore(store); err != nil {
		return objects.ID{}, err
	}
	if err := checkClaimKind(kind); err != nil {
		return objects.ID{}, err
	}
	path := strings.Join([]string{dkeDir, store, dkeClaimsDir, kind}, "/")
	canon, err := canonicalEnvelope(path, data, "kind", kind)
	if err != nil {
		return objects.ID{}, err
	}
	id := objects.ID(sumID(canon))
	b.addFile(b.walkDir(claimDir(store, kind, id)), id, canon)
	return id, nil
}

// RemoveModule removes the module name of a DKE store. Removing a module
// the commit's parent does not hold is no change (forget is idempotent).
func (b *Batch) RemoveModule(store, name string) error {
	if b.spent {
		return ErrBatchSpent
	}
	if err := checkDKEStore(store); err != nil {
		return err
	}
	if err := checkModuleName(name); err != nil {
		return err
	}
	b.removeFile(b.walkDir(modulePath(store)), moduleFile(name))
	return nil
}

// RemoveDKEClaim removes the claim id of kind from a DKE store; removing
// one that is not there is no change.
func (b *Batch) RemoveDKEClaim(store, kind string, id objects.ID) error {
	if b.spent {
		return ErrBatchSpent
	}
	if err := checkDKEStore(store); err != nil {
		return err
	}
	if err := checkClaimKind(kind); err != nil {
		return err
	}
	b.removeFile(b.walkDir(claimDir(store, kind, id)), fileName(id))
	return nil
}

// RemoveDKEStore removes a whole DKE store: every module and claim the
// parent holds under dke/<store>/, and whatever this batch put there
// before the call. Puts after it fill the store anew.
func (b *Batch) RemoveDKEStore(store string) error {
	if b.spent {
		return ErrBatchSpent
	}
	if err := checkDKEStore(store); err != nil {
		return err
	}
	parent := b.root.dir(dkeDir)
	parent.dirs[store] = &dirIns{dirs: map[string]*dirIns{}, drop: true}
	b.n++
	return nil
}

// Remove removes the file at path, which must be a place of the layout
// (DESIGN.md section 3): an object file of a scope, a DKE module or a DKE
// claim, or a file of the project's declaration, with every name in it
// valid and an id-named file in its shard.
// Removing a file that is not there is no change.
func (b *Batch) Remove(path string) error {
	if b.spent {
		return ErrBatchSpent
	}
	dir, name, err := checkLayoutPath(path)
	if err != nil {
		return err
	}
	b.removeFile(b.walkDir(dir), name)
	return nil
}

// walkDir returns the folder at path in the batch's trie, creating it.
func (b *Batch) walkDir(path []string) *dirIns {
	d := b.root
	for _, p := range path {
		d = d.dir(p)
	}
	return d
}

// removeFile records the removal of name in d and drops what the batch
// put there under that name: the later call wins.
func (b *Batch) removeFile(d *dirIns, name string) {
	if d.removes == nil {
		d.removes = map[string]struct{}{}
	}
	d.removes[name] = struct{}{}
	delete(d.named, name)
	if id, ok := objectFileID(name); ok {
		kept := d.files[:0]
		for _, f := range d.files {
			if f.id != id {
				kept = append(kept, f)
			}
		}
		d.files = kept
	}
	b.n++
}

// canonicalEnvelope returns data in canonical form, refusing anything
// but one JSON object whose member field is the string want.
func canonicalEnvelope(path string, data []byte, field, want string) ([]byte, error) {
	canon, err := jcs.Transform(data)
	if err != nil {
		return nil, &DataError{Path: path, Reason: "not JSON: " + trimPrefix(err.Error())}
	}
	if err := checkEnvelope(canon, field, want); err != nil {
		return nil, &DataError{Path: path, Reason: err.Error()}
	}
	return canon, nil
}

// checkEnvelope checks canonical bytes: one JSON object whose member
// field is the string want. It says nothing else of the content: what a
// module or claim holds is the DKE runtime's to define.
func checkEnvelope(canon []byte, field, want string) error {
	if len(canon) == 0 || canon[0] != '{' {
		return fmt.Errorf("not a JSON object")
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(canon, &m); err != nil {
		return fmt.Errorf("not a JSON object: %v", err)
	}
	raw, ok := m[field]
	if !ok {
		return fmt.Errorf("has no %q member", field)
	}
	var got string
	if err := json.Unmarshal(raw, &got); err != nil {
		return fmt.Errorf("its %q member is not a string", field)
	}
	if got != want {
		return fmt.Errorf("its %q member is %q, not %q as its path says", field, got, want)
	}
	return nil
}

// isCanonical reports whether data is already in RFC 8785 form.
func isCanonical(data []byte) bool {
	canon, err := jcs.Transform(data)
	return err == nil && bytes.Equal(canon, data)
}

// checkLayoutPath splits a file path of the layout into its folder and
// file name, refusing any path the layout has no place for.
func checkLayoutPath(path string) ([]string, string, error) {
	bad := func(reason string) ([]string, string, error) {
		return nil, "", &NameError{What: "path", Name: path, Reason: reason}
	}
	parts := strings.Split(path, "/")
	if len(parts) < 2 {
		return bad("not a file of the store's layout")
	}
	dir, name := parts[:len(parts)-1], parts[len(parts)-1]
	if err := checkLayoutDir(dir); err != nil {
		return bad(err.Error())
	}
	if err := checkLayoutFile(dir, name); err != nil {
		return bad(err.Error())
	}
	return dir, name, nil
}

// checkLayoutDir checks a folder that holds files: one of
//
//	scopes/<scope>/{claims/<ab>,decisions,attacks,standing/<claim-id>}
//	dke/<store>/{modules,claims/<Kind>/<ab>}
//	project/{documents,dialects}
func checkLayoutDir(dir []string) error {
	switch dir[0] {
	case scopesDir:
		if len(dir) < 3 || checkScope(dir[1]) != nil || !knownKind(Kind(dir[2])) {
			return fmt.Errorf("not a section of a valid scope")
		}
		switch Kind(dir[2]) {
		case Claims:
			if len(dir) != 4 || !isShard(dir[3]) {
				return fmt.Errorf("a claim is filed in a two-digit shard")
			}
		case Standing:
			if len(dir) != 4 || !validIDName(dir[3]) {
				return fmt.Errorf("a standing revision is filed under the id of the claim it revises")
			}
		default:
			if len(dir) != 3 {
				return fmt.Errorf("no folders in %s", dir[2])
			}
		}
		return nil
	case dkeDir:
		if len(dir) < 3 || checkDKEStore(dir[1]) != nil {
			return fmt.Errorf("not a valid DKE store")
		}
		switch {
		case dir[2] == dkeModulesDir && len(dir) == 3:
			return nil
		case dir[2] == dkeClaimsDir && len(dir) == 5 && checkClaimKind(dir[3]) == nil && isShard(dir[4]):
			return nil
		}
		return fmt.Errorf("not dke/<store>/modules or dke/<store>/claims/<Kind>/<ab>")
	case projectDir:
		if len(dir) != 2 || projectMember(dir[1]) == "" {
			return fmt.Errorf("not %s/%s or %s/%s", projectDir, ProjectDocuments, projectDir, ProjectDialects)
		}
		return nil
	}
	return fmt.Errorf("outside the %s/, %s/ and %s/ namespaces", scopesDir, dkeDir, projectDir)
}

// checkLayoutFile checks the name of a file in a checked folder: a module
// file is <name>.json, a project file <scope or dialect id>.json, every
// other file <id>.json in its id's shard.
func checkLayoutFile(dir []string, name string) error {
	if dir[0] == projectDir {
		return checkProjectLayout(dir, name)
	}
	if dir[0] == dkeDir && dir[2] == dkeModulesDir {
		base, ok := strings.CutSuffix(name, ".json")
		if !ok || checkModuleName(base) != nil {
			return fmt.Errorf("a module file is <module name>.json")
		}
		return nil
	}
	id, ok := objectFileID(name)
	if !ok {
		return fmt.Errorf("not an object file name <id>.json")
	}
	if shard := dir[len(dir)-1]; isShard(shard) && (dir[0] == dkeDir || Kind(dir[2]) == Claims) && shard != id.String()[:2] {
		return fmt.Errorf("object %s belongs in shard %s", id, id.String()[:2])
	}
	return nil
}

// isShard reports whether name is a shard folder: two lowercase hex digits.
func isShard(name string) bool {
	return len(name) == 2 && isHex(name) && strings.ToLower(name) == name
}

func validIDName(s string) bool {
	_, err := objects.ParseID(s)
	return err == nil
}
