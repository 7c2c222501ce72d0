// The project/ namespace: the project's declaration, versioned with the
// lore so that a clone of a store can be served without the folder it was
// made in. Each file is one canonical JSON object, named by the id it
// declares:
//
//	project/documents/<scope>.json   a declared document: its "scope" member is <scope>
//	project/dialects/<id>.json       a project-level dialect: its "id" member is <id>
//
// The store checks the names and the name-bearing member, as it does for
// DKE modules; what else a file says is the project package's to define.
// A declaration is committed, pushed, fetched, merged and verified like
// every other file of the lore.

package lorestore

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/deloreis/deloreis/objects"
)

// The sections of project/, as ProjectFile.Section and
// ProjectChange.Section name them.
const (
	ProjectDocuments = "documents" // project/documents/<scope>.json
	ProjectDialects  = "dialects"  // project/dialects/<id>.json
)

const projectDir = "project"

// projectMember is the member of a section's files that must equal the
// file's name, or "" for a name that is no section of project/.
func projectMember(section string) string {
	switch section {
	case ProjectDocuments:
		return "scope"
	case ProjectDialects:
		return "id"
	}
	return ""
}

// checkProjectName refuses a file name of a project/ section that is not
// an id: a document is named by its scope, a dialect by its id, and both
// become tree entry names.
func checkProjectName(section, name string) error {
	if section == ProjectDocuments {
		return checkScope(name)
	}
	if !validProjectID(name) {
		return &NameError{What: "dialect id", Name: name, Reason: "not an id (letters, digits, '-' and '_', starting with a letter or digit, at most 128 bytes)"}
	}
	return nil
}

// validProjectID is the rule for every name in project/: a scope id.
func validProjectID(name string) bool { return objects.ValidID(name) }

// PutDocument adds or replaces the declaration of the document scope.
// data is JSON (stored in its RFC 8785 canonical form): an object whose
// "scope" member is scope, and optionally a "source" (the .dli file the
// document is written in, relative to the project folder). A bad scope
// is a *ScopeError, bad data a *DataError; the batch is then unchanged.
func (b *Batch) PutDocument(scope string, data []byte) error {
	return b.putProject(ProjectDocuments, scope, data)
}

// PutProjectDialect adds or replaces the project-level dialect id. data
// is JSON (stored canonically): an object whose "id" member is id. A bad
// id is a *NameError, bad data a *DataError; the batch is then unchanged.
func (b *Batch) PutProjectDialect(id string, data []byte) error {
	return b.putProject(ProjectDialects, id, data)
}

func (b *Batch) putProject(section, name string, data []byte) error {
	if b.spent {
		return ErrBatchSpent
	}
	if err := checkProjectName(section, name); err != nil {
		return err
	}
	file := name + ".json"
	canon, err := canonicalEnvelope(projectDir+"/"+section+"/"+file, data, projectMember(section), name)
	if err != nil {
		return err
	}
	b.putNamed([]string{projectDir, section}, file, canon)
	return nil
}

// RemoveDocument removes the declaration of the document scope; removing
// one the parent does not hold is no change. The scope's lore stays.
func (b *Batch) RemoveDocument(scope string) error {
	return b.removeProject(ProjectDocuments, scope)
}

// RemoveProjectDialect removes the project-level dialect id; removing one
// the parent does not hold is no change.
func (b *Batch) RemoveProjectDialect(id string) error {
	return b.removeProject(ProjectDialects, id)
}

func (b *Batch) removeProject(section, name string) error {
	if b.spent {
		return ErrBatchSpent
	}
	if err := checkProjectName(section, name); err != nil {
		return err
	}
	b.removeFile(b.walkDir([]string{projectDir, section}), name+".json")
	return nil
}

// checkProjectLayout checks the name of a file in a checked folder of
// project/ (see checkLayoutDir), for Batch.Remove: <id>.json.
func checkProjectLayout(dir []string, name string) error {
	base, ok := strings.CutSuffix(name, ".json")
	if !ok || !validProjectID(base) {
		return fmt.Errorf("a file of %s/%s is <id>.json", projectDir, dir[1])
	}
	return nil
}

// ProjectFile is one file of a snapshot's project/ namespace: its section
// (ProjectDocuments or ProjectDialects), its name (the scope or dialect
// id, without ".json") and its canonical JSON bytes.
type ProjectFile struct {
	Section, Name string
	Data          []byte
}

// ProjectFiles reads every file of the snapshot's project/ namespace,
// sorted by section, then name. A commit that declares nothing has none
// (an empty list, not an error). A file out of place, or one whose
// name-bearing member is not its name, is a *CorruptError.
func (sn *Snapshot) ProjectFiles() ([]ProjectFile, error) {
	h, ok, err := sn.walk(projectDir)
	if err != nil || !ok {
		return nil, err
	}
	sections, err := sn.s.readTree(h)
	if err != nil {
		return nil, err
	}
	var out []ProjectFile
	for _, se := range sections {
		at := projectDir + "/" + se.name
		member := projectMember(se.name)
		if member == "" || !se.isTree() {
			return nil, &CorruptError{Path: at, Reason: fmt.Sprintf("not a section of %s/ (%s or %s)", projectDir, ProjectDocuments, ProjectDialects)}
		}
		es, err := sn.s.readTree(se.hash)
		if err != nil {
			return nil, err
		}
		for _, e := range es {
			name, ok := strings.CutSuffix(e.name, ".json")
			if !ok || e.isTree() || !validProjectID(name) {
				return nil, &CorruptError{Path: at + "/" + e.name, Reason: "not a file <id>.json"}
			}
			data, err := sn.s.readBlob(e.hash)
			if err != nil {
				return nil, err
			}
			if err := checkEnvelope(data, member, name); err != nil {
				return nil, &CorruptError{Path: at + "/" + e.name, Reason: err.Error()}
			}
			out = append(out, ProjectFile{Section: se.name, Name: name, Data: data})
		}
	}
	// Git orders "a-b.json" before "a.json"; callers expect names' order.
	slices.SortFunc(out, func(a, b ProjectFile) int {
		return cmp.Or(cmp.Compare(a.Section, b.Section), cmp.Compare(a.Name, b.Name))
	})
	return out, nil
}

// ProjectChange is one file of the project/ namespace a commit added,
// replaced or removed: neither Removed nor Replaced means added.
type ProjectChange struct {
	Section  string // ProjectDocuments or ProjectDialects
	Name     string // the scope or dialect id
	Removed  bool
	Replaced bool // the file's content changed
}

// ProjectChanges lists what a commit changed under project/ against its
// first parent (for a root commit, everything it declares), sorted by
// section, then name. Changes and DKEChanges list the rest.
func (s *Store) ProjectChanges(commit Hash) ([]ProjectChange, error) {
	oldTree, newTree, err := s.commitSubtrees(commit, projectDir)
	if err != nil {
		return nil, err
	}
	var out []ProjectChange
	err = s.diffFiles(oldTree, newTree, nil, func(path []string, file string, _ Hash, removed, replaced bool) error {
		name, ok := strings.CutSuffix(file, ".json")
		if len(path) != 1 || projectMember(path[0]) == "" || !ok {
			return nil // a verified branch holds nothing else here
		}
		out = append(out, ProjectChange{Section: path[0], Name: name, Removed: removed, Replaced: replaced})
		return nil
	})
	slices.SortStableFunc(out, func(a, b ProjectChange) int {
		return cmp.Or(cmp.Compare(a.Section, b.Section), cmp.Compare(a.Name, b.Name))
	})
	return out, err
}

// projectEntry is verifier.entry for a path under project/: exactly the
// two sections, each holding files <id>.json of canonical JSON objects
// whose name-bearing member is the file's name.
func (v *verifier) projectEntry(path []string, e treeEntry, wantTree func(bool) error) error {
	p := strings.Join(path, "/")
	switch len(path) {
	case 2:
		if projectMember(e.name) == "" {
			return v.fail(p, e.hash, "%q is not a section of %s/ (only %s/ and %s/ are allowed)", e.name, projectDir, ProjectDocuments, ProjectDialects)
		}
		return wantTree(true)
	case 3:
		if e.isTree() {
			return v.fail(p, e.hash, "the layout has no folders in %s/%s, only files <id>.json", projectDir, path[1])
		}
		if err := wantTree(false); err != nil {
			return err
		}
		name, ok := strings.CutSuffix(e.name, ".json")
		if !ok || !validProjectID(name) {
			return v.fail(p, e.hash, "%q is not a file <id>.json of %s/%s", e.name, projectDir, path[1])
		}
		return v.envelopeBlob(p, e.hash, nil, projectMember(path[1]), name)
	}
	// Not reached: entry does not descend into a folder it refused.
	return v.fail(p, e.hash, "the layout has no place this deep in %s/%s", projectDir, path[1])
}
