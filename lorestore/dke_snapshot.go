// Reading the dke/ namespace of a snapshot: DKE stores, their modules and
// their claims, lazily, every blob checked against where it is filed.

package lorestore

import (
	"errors"
	"fmt"
	"runtime"
	"sort"
	"strings"
	"sync"

	"github.com/deloreis/deloreis/objects"
)

// DKEClaim is one stored claim of a DKE store: its kind, its id and its
// canonical JSON bytes.
type DKEClaim struct {
	Kind string
	ID   objects.ID
	Data []byte
}

// DKEStores lists the DKE stores that hold anything, sorted.
func (sn *Snapshot) DKEStores() ([]string, error) {
	return sn.folders(func(string) bool { return true }, dkeDir)
}

// folders lists the folder names under path that keep accepts, sorted.
func (sn *Snapshot) folders(keep func(string) bool, path ...string) ([]string, error) {
	h, ok, err := sn.walk(path...)
	if err != nil || !ok {
		return nil, err
	}
	es, err := sn.s.readTree(h)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range es {
		if !e.isTree() {
			return nil, &CorruptError{Path: strings.Join(append(path, e.name), "/"), Reason: "a file where a folder belongs"}
		}
		if keep(e.name) {
			out = append(out, e.name)
		}
	}
	sort.Strings(out)
	return out, nil
}

// ModuleNames lists the modules of a DKE store, sorted, without reading
// any of them.
func (sn *Snapshot) ModuleNames(store string) ([]string, error) {
	fs, err := sn.moduleFiles(store)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = strings.TrimSuffix(f.path()[strings.LastIndexByte(f.path(), '/')+1:], ".json")
	}
	return out, nil
}

// moduleFiles lists the module files of a store, sorted by name.
func (sn *Snapshot) moduleFiles(store string) ([]fileRef, error) {
	if err := checkDKEStore(store); err != nil {
		return nil, err
	}
	dir := modulePath(store)
	h, ok, err := sn.walk(dir...)
	if err != nil || !ok {
		return nil, err
	}
	es, err := sn.s.readTree(h)
	if err != nil {
		return nil, err
	}
	prefix := strings.Join(dir, "/") + "/"
	out := make([]fileRef, 0, len(es))
	for _, e := range es {
		name, ok := strings.CutSuffix(e.name, ".json")
		if !ok || e.isTree() || checkModuleName(name) != nil {
			return nil, &CorruptError{Path: prefix + e.name, Reason: "not a module file <name>.json"}
		}
		out = append(out, fileRef{blob: e.hash, dir: prefix, name: e.name})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].path() < out[j].path() })
	return out, nil
}

// Module reads one module of a DKE store; ErrNotFound when it has none of
// that name.
func (sn *Snapshot) Module(store, name string) ([]byte, error) {
	if err := checkDKEStore(store); err != nil {
		return nil, err
	}
	if err := checkModuleName(name); err != nil {
		return nil, err
	}
	dir, ok, err := sn.walk(modulePath(store)...)
	if err != nil {
		return nil, err
	}
	var e treeEntry
	if ok {
		e, ok, err = sn.lookup(dir, moduleFile(name))
	}
	if err != nil {
		return nil, err
	}
	if !ok || e.isTree() {
		return nil, fmt.Errorf("%w: module %s in DKE store %s", ErrNotFound, name, store)
	}
	return sn.readModule(fileRef{blob: e.hash, dir: strings.Join(modulePath(store), "/") + "/", name: moduleFile(name)}, name)
}

// DKEHeader reads the header of a DKE store (ErrNotFound when the store
// has none).
func (sn *Snapshot) DKEHeader(store string) ([]byte, error) {
	if err := checkDKEStore(store); err != nil {
		return nil, err
	}
	dir, ok, err := sn.walk(dkeDir, store)
	if err != nil {
		return nil, err
	}
	var e treeEntry
	if ok {
		e, ok, err = sn.lookup(dir, dkeHeaderFile)
	}
	if err != nil {
		return nil, err
	}
	if !ok || e.isTree() {
		return nil, fmt.Errorf("%w: header of DKE store %s", ErrNotFound, store)
	}
	path := dkeDir + "/" + store + "/" + dkeHeaderFile
	data, err := sn.s.readBlob(e.hash)
	if err != nil {
		return nil, err
	}
	if err := checkEnvelope(data, "store", store); err != nil {
		return nil, &CorruptError{Path: path, Reason: err.Error()}
	}
	return data, nil
}

// Modules reads every module of a DKE store, by name.
func (sn *Snapshot) Modules(store string) (map[string][]byte, error) {
	fs, err := sn.moduleFiles(store)
	if err != nil {
		return nil, err
	}
	out := make(map[string][]byte, len(fs))
	for _, f := range fs {
		name := strings.TrimSuffix(f.path()[strings.LastIndexByte(f.path(), '/')+1:], ".json")
		data, err := sn.readModule(f, name)
		if err != nil {
			return nil, err
		}
		out[name] = data
	}
	return out, nil
}

func (sn *Snapshot) readModule(f fileRef, name string) ([]byte, error) {
	data, err := sn.s.readBlob(f.blob)
	if err != nil {
		return nil, err
	}
	if err := checkEnvelope(data, "name", name); err != nil {
		return nil, &CorruptError{Path: f.path(), Reason: err.Error()}
	}
	return data, nil
}

// ClaimKinds lists the kinds a DKE store holds claims of, sorted.
func (sn *Snapshot) ClaimKinds(store string) ([]string, error) {
	if err := checkDKEStore(store); err != nil {
		return nil, err
	}
	return sn.folders(func(k string) bool { return checkClaimKind(k) == nil }, dkeDir, store, dkeClaimsDir)
}

// claimFiles lists the claim files of one kind, in id order.
func (sn *Snapshot) claimFiles(store, kind string) ([]fileRef, error) {
	if err := checkDKEStore(store); err != nil {
		return nil, err
	}
	if err := checkClaimKind(kind); err != nil {
		return nil, err
	}
	base := []string{dkeDir, store, dkeClaimsDir, kind}
	h, ok, err := sn.walk(base...)
	if err != nil || !ok {
		return nil, err
	}
	var out []fileRef
	err = sn.collect(h, strings.Join(base, "/")+"/", 1, &out)
	return out, err
}

// DKEClaimIDs lists the ids of the claims of one kind without reading any.
func (sn *Snapshot) DKEClaimIDs(store, kind string) ([]objects.ID, error) {
	fs, err := sn.claimFiles(store, kind)
	if err != nil {
		return nil, err
	}
	ids := make([]objects.ID, len(fs))
	for i, f := range fs {
		ids[i] = f.id
	}
	return ids, nil
}

// DKEClaims reads the claims of one kind of a DKE store, or of every kind
// when kind is "", ordered by kind, then id.
func (sn *Snapshot) DKEClaims(store, kind string) ([]DKEClaim, error) {
	kinds := []string{kind}
	if kind == "" {
		var err error
		if kinds, err = sn.ClaimKinds(store); err != nil {
			return nil, err
		}
	}
	var out []DKEClaim
	for _, k := range kinds {
		fs, err := sn.claimFiles(store, k)
		if err != nil {
			return nil, err
		}
		datas, err := sn.readIDFiles(fs)
		if err != nil {
			return nil, err
		}
		for i, f := range fs {
			out = append(out, DKEClaim{Kind: k, ID: f.id, Data: datas[i]})
		}
	}
	return out, nil
}

// DKEClaim reads one claim: three tree lookups below the kind and one
// blob, whatever the store's size. ErrNotFound when it is not there.
func (sn *Snapshot) DKEClaim(store, kind string, id objects.ID) ([]byte, error) {
	if err := checkDKEStore(store); err != nil {
		return nil, err
	}
	if err := checkClaimKind(kind); err != nil {
		return nil, err
	}
	path := claimDir(store, kind, id)
	dir, ok, err := sn.walk(path...)
	if err != nil {
		return nil, err
	}
	var e treeEntry
	if ok {
		e, ok, err = sn.lookup(dir, fileName(id))
	}
	if err != nil {
		return nil, err
	}
	if !ok || e.isTree() {
		return nil, fmt.Errorf("%w: claim %s of kind %s in DKE store %s", ErrNotFound, id, kind, store)
	}
	datas, err := sn.readIDFiles([]fileRef{{id: id, blob: e.hash, dir: strings.Join(path, "/") + "/"}})
	if err != nil {
		return nil, err
	}
	return datas[0], nil
}

// readIDFiles reads files named by their id, in parallel when there are
// many, checking that each one's bytes hash to its id.
func (sn *Snapshot) readIDFiles(fs []fileRef) ([][]byte, error) {
	out := make([][]byte, len(fs))
	workers := min(runtime.GOMAXPROCS(0), max(1, len(fs)/256))
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := w; i < len(fs); i += workers {
				data, err := sn.s.readBlob(fs[i].blob)
				if err == nil && objects.ID(sumID(data)) != fs[i].id {
					err = &CorruptError{Path: fs[i].path(), Reason: "bytes do not hash to the file's id"}
				}
				if err != nil {
					errs[w] = err
					return
				}
				out[i] = data
			}
		}(w)
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return out, nil
}
